//! Self-play training data for tuning the evaluation.

pub mod format;
pub mod game;
