//! Perft: counting the leaves of the legal move tree, the test of a move
//! generator. The last ply is counted in bulk, without playing the moves.

use super::moves::Move;
use super::position::Position;
use std::fmt::Write as _;

/// Leaf nodes at `depth` plies below `pos`.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal(),
        _ => {
            let mut nodes = 0;
            for m in pos.legal_moves() {
                let mut child = pos.clone();
                child.play(m);
                nodes += perft(&child, depth - 1);
            }
            nodes
        }
    }
}

/// The leaf count below each root move (depth 0 gives no moves).
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves()
        .into_iter()
        .map(|m| {
            let mut child = pos.clone();
            child.play(m);
            (m, perft(&child, depth - 1))
        })
        .collect()
}

/// Stockfish's `go perft` report: `move: count` per root move (sorted by
/// the move's text, so that reports of two engines can be diffed), a blank
/// line, then `Nodes searched: N`.
pub fn report(pos: &Position, depth: u32, chess960: bool) -> String {
    let mut lines: Vec<(String, u64)> = divide(pos, depth)
        .into_iter()
        .map(|(m, n)| (m.uci(chess960).to_string(), n))
        .collect();
    lines.sort();
    let mut out = String::new();
    let mut total = 0;
    for (m, n) in lines {
        let _ = writeln!(out, "{m}: {n}");
        total += n;
    }
    if depth == 0 {
        total = 1;
    }
    let _ = write!(out, "\nNodes searched: {total}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_shallow() {
        let pos = Position::startpos();
        let expected = [1, 20, 400, 8902, 197_281];
        for (d, &n) in expected.iter().enumerate() {
            assert_eq!(perft(&pos, d as u32), n, "depth {d}");
        }
    }

    #[test]
    fn report_format() {
        let pos = Position::startpos();
        let r = report(&pos, 1, false);
        assert!(r.starts_with("a2a3: 1\n"));
        assert!(r.ends_with("\n\nNodes searched: 20"));
        assert_eq!(r.lines().count(), 22);
    }
}
