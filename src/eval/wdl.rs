//! Win/draw/loss expectations from a score, for `UCI_ShowWDL`, and the
//! normalisation of reported scores.
//!
//! A logistic model: the chance to win is `1 / (1 + exp((A - s) / B))` for
//! an evaluation `s`; the chance to lose is the same for `-s`. A is the
//! evaluation at which a win is as likely as not, so scores are reported
//! as `s * 100 / A`: a reported +100 means about a 50% chance to win, as
//! Stockfish normalises. `forsyth tune` fits A and B on our own games and
//! writes them to `values.rs` with the evaluation.

use super::values::{WDL_A, WDL_B};
use crate::search::{MATE_BOUND, MAX_PLY, TB_WIN, mate_in};

/// (win, draw, loss) in permille, summing to 1000.
pub fn wdl(score: i32) -> (u32, u32, u32) {
    if let Some(m) = mate_in(score) {
        return if m > 0 { (1000, 0, 0) } else { (0, 0, 1000) };
    }
    let s = score.clamp(-MATE_BOUND, MATE_BOUND) as f64;
    let p = |x: f64| 1.0 / (1.0 + ((WDL_A - x) / WDL_B).exp());
    let w = (p(s) * 1000.0).round() as u32;
    let l = (p(-s) * 1000.0).round() as u32;
    let l = l.min(1000 - w);
    (w, 1000 - w - l, l)
}

/// The score as reported to the user: +100 is a 50% chance to win.
/// Mate scores and tablebase wins and losses are left alone: they are
/// results, not evaluations.
pub fn normalise(score: i32) -> i32 {
    if score.abs() >= TB_WIN - MAX_PLY as i32 {
        return score;
    }
    (score as f64 * 100.0 / WDL_A).round() as i32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::MATE;

    #[test]
    fn shape() {
        let (w, d, l) = wdl(0);
        assert_eq!(w, l);
        assert_eq!(w + d + l, 1000);
        let at_a = WDL_A.round() as i32;
        assert!((499..=501).contains(&wdl(at_a).0));
        assert_eq!(normalise(at_a), 100);
        assert_eq!(normalise(-at_a), -100);
        assert_eq!(wdl(MATE - 3), (1000, 0, 0));
        assert_eq!(wdl(-MATE + 2), (0, 0, 1000));
        assert_eq!(normalise(MATE - 3), MATE - 3);
        assert_eq!(normalise(TB_WIN - 7), TB_WIN - 7);
        assert_eq!(normalise(-TB_WIN + 7), -TB_WIN + 7);
        assert!(wdl(3 * at_a).0 > 900);
    }
}
