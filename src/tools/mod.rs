//! The tools around the engine: the command line and its commands. They
//! use the engine ([`crate::engine`]); the engine never uses them. The
//! module map is in the crate's documentation.

pub mod annotate;
pub mod book_build;
pub mod cli;
pub mod datagen;
pub mod diagram;
pub mod fuzz;
pub mod pgn;
pub mod progress;
pub mod suite;
pub mod train;
