//! Win/draw/loss expectations from a score, for `UCI_ShowWDL`, and the
//! normalisation of reported scores.
//!
//! A logistic model: the chance to win is `1 / (1 + exp((A - s) / B))` for
//! an evaluation `s`; the chance to lose is the same for `-s`. A is the
//! evaluation at which a win is as likely as not, so scores are reported
//! as `s * 100 / A`: a reported +100 means about a 50% chance to win, as
//! Stockfish normalises.
//!
//! A and B belong to the network: `forsyth train` fits them to its
//! evaluations and the games' results at the end of a run and prints them,
//! and they are written here when a network is embedded.

use super::{MATE_BOUND, MAX_PLY, TB_WIN, mate_in};

/// The evaluation (centipawns) at which a win is as likely as not.
pub const WDL_A: f64 = 212.5;
/// How fast the chance to win grows with the evaluation.
pub const WDL_B: f64 = 159.9;

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

/// Fits the model to (evaluation, White's
/// result) pairs by maximum likelihood: P(win | s) = 1 / (1 + exp((a - s) / b)),
/// and the same for the loss with -s. Returns (a, b).
pub fn fit(samples: &[(f64, f32)]) -> (f64, f64) {
    // The engine's evaluation is a whole number of centipawns: the samples
    // are counted by (evaluation, result), so that each step of the fit
    // costs a pass over a few thousand counts, not over every position.
    let mut counts = std::collections::BTreeMap::<(i64, u8), f64>::new();
    for &(e, r) in samples {
        let result = if r > 0.75 {
            2
        } else if r < 0.25 {
            0
        } else {
            1
        };
        *counts.entry((e.round() as i64, result)).or_default() += 1.0;
    }
    let counts: Vec<(f64, u8, f64)> = counts
        .into_iter()
        .map(|((e, r), n)| (e as f64, r, n))
        .collect();
    let log_likelihood = |a: f64, b: f64| -> f64 {
        let ln_p = |x: f64| -> f64 {
            // ln(sigmoid((x - a) / b)), stable for large arguments.
            let z = (x - a) / b;
            if z > 0.0 {
                -(-z).exp().ln_1p()
            } else {
                z - z.exp().ln_1p()
            }
        };
        counts
            .iter()
            .map(|&(e, r, n)| {
                let (win, loss) = (r == 2, r == 0);
                let lw = if win { ln_p(e) } else { ln_p_not(e, a, b) };
                let ll = if loss { ln_p(-e) } else { ln_p_not(-e, a, b) };
                n * (lw + ll)
            })
            .sum()
    };
    let (mut a, mut b) = (100.0, 60.0);
    for _ in 0..6 {
        a = ternary_max(|x| log_likelihood(x, b), 1.0, 1000.0);
        b = ternary_max(|x| log_likelihood(a, x), 1.0, 1000.0);
    }
    (a, b)
}

/// ln(1 - sigmoid((x - a) / b)).
fn ln_p_not(x: f64, a: f64, b: f64) -> f64 {
    let z = (x - a) / b;
    if z > 0.0 {
        -z - (-z).exp().ln_1p()
    } else {
        -z.exp().ln_1p()
    }
}

/// The maximum of a unimodal function on [lo, hi].
fn ternary_max(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    for _ in 0..60 {
        let m1 = lo + (hi - lo) / 3.0;
        let m2 = hi - (hi - lo) / 3.0;
        if f(m1) < f(m2) {
            lo = m1;
        } else {
            hi = m2;
        }
    }
    (lo + hi) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::score::MATE;

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
