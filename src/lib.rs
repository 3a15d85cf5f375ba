//! Forsyth: a UCI chess engine.
//!
//! Module map:
//! - [`chess`]: the rules (board, FEN, moves, move generation, perft, SAN).
//!   Depends on nothing else of ours.
//! - [`uci`]: the UCI front end (command parsing, output formatting, the loop).

pub mod chess;
pub mod uci;
