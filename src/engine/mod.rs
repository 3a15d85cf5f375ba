//! The engine: the rules, the search and its evaluation, and the UCI
//! front end, with what they need to play (tablebases, opening books).
//! Nothing here uses the tools ([`crate::tools`]); the module map is in
//! the crate's documentation.

pub mod book;
pub mod chess;
pub mod nnue;
pub mod rng;
pub mod score;
pub mod search;
pub mod tablebase;
pub mod uci;
