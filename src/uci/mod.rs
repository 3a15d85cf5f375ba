//! The UCI front end.

pub mod command;
pub mod engine;
pub mod output;
