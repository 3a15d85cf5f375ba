//! Cross-cutting tests of the rules module: keys, make, Chess960 castling.
