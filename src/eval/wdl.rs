//! Win/draw/loss expectations from a score, for `UCI_ShowWDL`.
//!
//! A logistic model: the chance to win is `1 / (1 + exp((A - s) / B))` for
//! a score `s` in centipawns; the chance to lose is the same for `-s`.
//! A is the score at which a win is as likely as not. The constants are the
//! target of the evaluation's normalisation (+100 cp = 50% win) and a
//! spread chosen by hand; the evaluation issue refits them on our games.

use crate::search::{MATE_BOUND, mate_in};

const A: f64 = 100.0;
const B: f64 = 60.0;

/// (win, draw, loss) in permille, summing to 1000.
pub fn wdl(score: i32) -> (u32, u32, u32) {
    if let Some(m) = mate_in(score) {
        return if m > 0 { (1000, 0, 0) } else { (0, 0, 1000) };
    }
    let s = score.clamp(-MATE_BOUND, MATE_BOUND) as f64;
    let p = |x: f64| 1.0 / (1.0 + ((A - x) / B).exp());
    let w = (p(s) * 1000.0).round() as u32;
    let l = (p(-s) * 1000.0).round() as u32;
    let l = l.min(1000 - w);
    (w, 1000 - w - l, l)
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
        assert_eq!(wdl(100).0, 500);
        assert_eq!(wdl(MATE - 3), (1000, 0, 0));
        assert_eq!(wdl(-MATE + 2), (0, 0, 1000));
        assert!(wdl(300).0 > 900);
    }
}
