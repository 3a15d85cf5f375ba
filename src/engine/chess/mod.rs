//! The rules of chess: squares, bitboards, FEN, moves, move generation,
//! perft and SAN. Nothing here depends on the rest of the engine.
//!
//! # Design
//!
//! - [`attacks`]: magic-bitboard attacks. The magics are found by `build.rs`
//!   with a seeded search and the tables generated at build time, so
//!   start-up costs nothing.
//! - [`zobrist`]: keys generated at compile time. The en-passant square
//!   enters the key only when a legal capture exists, so repetitions are
//!   detected right.
//! - [`moves`]: the 16-bit move. Castling is king-takes-rook internally, in
//!   standard chess and Chess960 alike; only the UCI text differs
//!   (`UCI_Chess960`).
//! - [`position`]: copy-make: the search clones a [`Position`] and plays
//!   each move on the copy, and never undoes one.
//! - [`fen`]: FEN is parsed into a [`Setup`], then validated once into a
//!   [`Position`]; errors are an enum naming the field. X-FEN and
//!   Shredder-FEN castling are read; an impossible castling right or
//!   en-passant square is dropped with a warning.
//! - [`movegen`]: legal move generation with pins and evasions into a sink
//!   (all, noisy or quiet moves), so perft counts the last ply by popcount;
//!   `is_legal` for any 16-bit value and `gives_check`.
//! - [`game_end`]: how the rules end a game in a position, the game's
//!   earlier positions counted (mate, stalemate, the fifty-move rule,
//!   insufficient material, threefold repetition).
//! - [`perft`], [`san`].
//!
//! # Correctness
//!
//! Every position of `tests/data/perft/standard.epd` (128) and
//! `chess960.epd` (960) matches at every listed depth (`make perft-suite`
//! prints `1088 positions passed, 0 failed`). `cargo test` checks all 1,088
//! positions at every depth up to 5 million leaves, `is_legal` against the
//! generator on all 65,536 move encodings in hundreds of positions, and the
//! generator against an independent square-by-square one
//! (`src/tools/fuzz/naive.rs`) over thousands of random games.
//!
//! # Speed
//!
//! Perft against Stockfish 15.1, both on one thread, each time being the
//! whole process less its start-up (median of 7 alternating rounds,
//! `python3 tests/tools/perft_speed.py FORSYTH STOCKFISH 7`, 2-core
//! machine, 2026-11-30): start position perft 6 (119,060,324 leaves) 0.279 s
//! against 0.631 s; Kiwipete perft 5 (193,690,690) 0.314 s against 0.875 s.
//! A portable build (`make NATIVE=`) took 0.414 s and 0.408 s. Both engines
//! count the last ply without playing its moves.

pub mod attacks;
pub mod bitboard;
pub mod epd;
pub mod fen;
pub mod game_end;
pub mod movegen;
pub mod moves;
pub mod perft;
pub mod position;
pub mod san;
pub mod types;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use fen::{FenError, FenWarning, Setup};
pub use game_end::GameEnd;
pub use moves::{Move, MoveKind, MoveList, UciMoveError};
pub use position::Position;
pub use types::{Color, Piece, PieceType, Square};

#[cfg(test)]
mod tests;
