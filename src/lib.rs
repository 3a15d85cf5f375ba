//! Forsyth: a UCI chess engine.
//!
//! Module map:
//! - [`chess`]: the rules (board, FEN, moves, move generation, perft, SAN).
//!   Depends on nothing else of ours.
//! - [`score`]: score units: mate constants, the WDL model and the
//!   normalisation of reported scores (below the search and the network).
//! - [`nnue`]: the evaluation, a neural network (file, accumulators,
//!   forward pass).
//! - [`search`]: alpha-beta search, transposition table, time management,
//!   search threads, playing at a chosen strength (`search::strength`).
//! - [`uci`]: the UCI front end (command parsing, output formatting, the loop).
//! - [`datagen`]: self-play training data for the evaluation (`forsyth datagen`).
//! - [`book`]: Polyglot opening books (reading, choosing, building from PGN).
//! - [`pgn`]: games from PGN text (the `pgn-reader` crate, our rules).
//! - [`annotate`]: whole games analysed and written back with evaluations,
//!   marks and better lines (`forsyth annotate`).
//! - [`progress`]: progress bars of the long commands (`indicatif`).
//! - [`tablebase`]: Syzygy endgame tablebases (probing, ranking root moves).
//! - [`rng`]: SplitMix64, for the tools that need chance.
//! - [`train`]: the network's trainer, on the CPU (`forsyth train`).
//! - [`epd`]: EPD records (reading, writing) and the test-suite runner.
//! - [`cli`]: the command line for scripts (`analyse`, `epd`, `fen`).
//! - [`diagram`]: board diagrams as SVG (`fen svg`, `annotate --html`).
//! - [`fuzz`]: the checks the fuzz targets in `fuzz/` run on arbitrary bytes.

pub mod annotate;
pub mod book;
pub mod chess;
pub mod cli;
pub mod datagen;
pub mod diagram;
pub mod epd;
pub mod fuzz;
pub mod nnue;
pub mod pgn;
pub mod progress;
pub mod rng;
pub mod score;
pub mod search;
pub mod tablebase;
pub mod train;
pub mod uci;
