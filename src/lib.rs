//! Forsyth: a UCI chess engine.
//!
//! Module map. Two wings: the engine plays chess; the tools around it are
//! the command line and its commands. Arrows go from the tools to the
//! engine, never back: no module under [`engine`] uses one under
//! [`tools`].
//!
//! [`engine`]:
//! - [`engine::chess`]: the rules: board, FEN and EPD, moves, move
//!   generation, perft, SAN. Uses nothing else of ours.
//! - [`engine::score`]: score units: mate constants, the WDL model, the
//!   normalisation of reported scores.
//! - [`engine::nnue`]: the evaluation, a neural network (file,
//!   accumulators, forward pass).
//! - [`engine::search`]: alpha-beta on a pool of threads, transposition
//!   table, time management, playing at a chosen strength, the latest-line
//!   collector and the search budgets the tools search with, `bench`.
//! - [`engine::tablebase`]: Syzygy endgame tablebases (probing, ranking
//!   root moves).
//! - [`engine::book`]: Polyglot opening books: reading, choosing a move,
//!   the book built into the binary.
//! - [`engine::uci`]: the UCI front end (commands, output, the loop).
//! - [`engine::rng`]: SplitMix64, for what needs chance (weak play, book
//!   moves, the tools).
//!
//! [`tools`]:
//! - [`tools::cli`]: the command line (clap) and the small commands:
//!   `analyse`, `epd`, `fen`, `bench`, `perft`, `perft-suite`, `book`,
//!   `datagen`'s dispatch; whole-file writes, Ctrl-C.
//! - [`tools::annotate`]: whole games analysed and written back with
//!   evaluations, marks and better lines (`forsyth annotate`).
//! - [`tools::suite`]: the EPD test-suite runner (`forsyth epd`).
//! - [`tools::pgn`]: games from PGN text (the `pgn-reader` crate, our
//!   rules), for `annotate` and the book builder.
//! - [`tools::book_build`]: Polyglot books from PGN games (`forsyth book
//!   build`).
//! - [`tools::datagen`]: self-play training data for the network
//!   (`forsyth datagen`).
//! - [`tools::train`]: the network's trainer, on the CPU (`forsyth train`).
//! - [`tools::diagram`]: board diagrams as SVG (`fen svg`, `annotate
//!   --html`).
//! - [`tools::progress`]: progress bars of the long commands (`indicatif`).
//! - [`tools::fuzz`]: the checks the fuzz targets in `fuzz/` run on
//!   arbitrary bytes.
//!
//! `main.rs` only dispatches a command line to one of them, or to the UCI
//! loop.

pub mod engine;
pub mod tools;
