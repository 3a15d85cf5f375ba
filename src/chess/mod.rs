//! The rules of chess: squares, bitboards, FEN, moves, move generation,
//! perft and SAN. Nothing here depends on the rest of the engine.

pub mod attacks;
pub mod bitboard;
pub mod fen;
pub mod movegen;
pub mod moves;
pub mod perft;
pub mod position;
pub mod san;
pub mod types;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use fen::{FenError, FenWarning, Setup};
pub use moves::{Move, MoveKind, MoveList, UciMoveError};
pub use position::Position;
pub use types::{Color, Piece, PieceType, Square};

#[cfg(test)]
mod tests;
