//! The UCI front end.

pub mod command;
pub mod output;
