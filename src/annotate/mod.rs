//! `forsyth annotate`: a PGN file in, the same games out with the engine's
//! evaluations, mistakes marked and better lines.

pub mod game;
pub mod write;
