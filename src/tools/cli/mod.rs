//! The command line: its definition ([`args`], with clap), and the
//! commands for scripts: `analyse` (one search, its result as text or
//! JSON), `epd` (test suites; writing EPD), `fen` (checking and drawing
//! positions, as text or SVG), `bench`, `perft` and `perft-suite`
//! ([`mod@bench`]), `book build` and `book probe` ([`book`]) and
//! `datagen`'s actions ([`datagen`]); [`atomic`] writes output files
//! whole, [`interrupt`] handles Ctrl-C and closed pipes. `main.rs` only
//! dispatches here (and to `annotate`, `train` and the UCI loop).
//!
//! clap refuses a bad invocation itself; past it, every command returns
//! `Err(reason)` for bad input (a FEN, a move, a file), and `main` prints
//! the reason on stderr and exits with status 2, as clap does.

pub mod analyse;
pub mod args;
pub mod atomic;
pub mod bench;
pub mod book;
pub mod datagen;
pub mod epd;
pub mod fen;
pub mod interrupt;

use crate::engine::chess::{Move, Position};

/// Reads a FEN given as one word or as several, warning on stderr about
/// parts that were dropped.
pub fn read_fen(words: &[String]) -> Result<Position, String> {
    let fen = words.join(" ");
    let (pos, warnings) = Position::from_fen(&fen).map_err(|e| format!("bad FEN: {e}"))?;
    for w in warnings {
        eprintln!("warning: {w}");
    }
    Ok(pos)
}

/// A move in UCI notation or, failing that, SAN.
pub fn read_move(pos: &Position, text: &str) -> Result<Move, String> {
    pos.parse_uci_move(text)
        .or_else(|_| pos.parse_san(text))
        .map_err(|e| format!("bad move: {e} in {}", pos.fen()))
}

/// SAN with move numbers: `1. e4 e5 2. Nf3`, or `3... Nc6 4. Bb5` when
/// Black moves first.
pub fn numbered_san(pos: &Position, moves: &[Move]) -> String {
    let mut p = pos.clone();
    let mut out = Vec::new();
    for (i, &m) in moves.iter().enumerate() {
        let white = p.side_to_move() == crate::engine::chess::Color::White;
        if white {
            out.push(format!("{}.", p.fullmove_number()));
        } else if i == 0 {
            out.push(format!("{}...", p.fullmove_number()));
        }
        out.push(p.san(m));
        p.play(m);
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn san_lines_are_numbered() {
        let pos = Position::startpos();
        let e4 = pos.parse_san("e4").unwrap();
        assert_eq!(numbered_san(&pos, &[e4]), "1. e4");
        let mut after = pos.clone();
        after.play(e4);
        let e5 = after.parse_san("e5").unwrap();
        let mut next = after.clone();
        next.play(e5);
        let nf3 = next.parse_san("Nf3").unwrap();
        assert_eq!(numbered_san(&after, &[e5, nf3]), "1... e5 2. Nf3");
        assert!(read_move(&pos, "e2e4").is_ok() && read_move(&pos, "Nf3").is_ok());
        assert!(read_move(&pos, "e2e5").unwrap_err().contains("bad move"));
    }
}
