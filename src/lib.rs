//! Forsyth: a UCI chess engine.

pub mod engine;
pub mod tools;
