//! Playing at a chosen strength: `UCI_LimitStrength` and `UCI_Elo`.
//!
//! The weakening does not depend on the clock, so that a level calibrated
//! at one time control holds at another:
//!
//! - A node budget per move, [`node_budget`], that grows exponentially
//!   with the rating between the calibrated [`LEVELS`]. The search obeys it as a hard node limit beside any
//!   limit of `go` (the clock still ends the search first when it is
//!   shorter, so the engine never loses on time). A weak setting sees less
//!   deep and misses the deeper tactics.
//! - The root is searched with [`LINES`] lines of MultiPV (fewer when there
//!   are fewer legal moves), and the move is drawn among the lines of the
//!   last completed iteration by [`pick`]: a softmax over each line's score
//!   gap to the best, with a temperature ([`temperature`]) that is higher
//!   at low ratings, and never a line that loses more than [`margin`] to
//!   the best. So a weak setting prefers plausible moves that lose a little,
//!   not a random legal move, and does not hang its queen when the best
//!   move keeps the balance. A mate found is played; so is the tables' best
//!   move when the root is in the Syzygy tables, and the only legal move is
//!   played after the first iteration.
//! - The draw is made with a generator seeded per search (the position's
//!   key and the number of searches since `ucinewgame`), so that the same
//!   game gives the same moves and tests are reproducible.
//! - One thread searches, whatever `Threads` says: the node budget is then
//!   exact and the search, for a given table and histories, reproducible.
//!
//! Every `go` is weakened while the option is on, except `go infinite`,
//! which is analysis. A `go ponder` search is weakened as the search it
//! stands for, so that `ponderhit` plays the move the weakened search would
//! have played. `forsyth analyse`, `forsyth epd`, `bench` and data
//! generation never are (they do not set [`super::SearchOptions::strength`]).
//!
//! Every figure of [`LEVELS`] is fitted by the calibration games against
//! Stockfish 15.1's `UCI_Elo` (`tests/tools/elo_calibrate.py`), and
//! [`MAX_ELO`] is the highest level that has been calibrated.

use super::MATE_BOUND;
use crate::engine::rng::Rng;

/// A calibrated level: the rating, and the node budget, softmax
/// temperature and margin that play at it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Level {
    pub elo: u32,
    /// Nodes searched per move.
    pub nodes: f64,
    /// The softmax temperature, in the search's score units (a pawn is
    /// about 100): a line this much worse than the best is chosen e (2.7)
    /// times less often.
    pub temperature: f64,
    /// The largest loss to the best line that may be chosen, in the
    /// search's score units.
    pub margin: f64,
}

/// The levels fitted by the calibration games against Stockfish 15.1's
/// `UCI_Elo` (tests/tools/elo_calibrate.py, 10 s + 0.1 s); between two,
/// each figure is interpolated geometrically (linearly in its logarithm),
/// so the budget grows and the noise shrinks smoothly and monotonically.
/// From 1350 to 1800 the budget doubles every 110 points and the noise
/// halves every 300. Above 1800 the noise falls faster, to almost none at
/// 2200: a first fit that went on at the same rates scored 36.7% at 2200
/// (30 games), the choice among four lines costing more than the budget
/// gave. These levels, 100 games each: 1400 51.5% (+10 ± 65), 1800 57.0%
/// (+49 ± 68), 2200 45.5% (-31 ± 59). 2200's budget is about what a
/// full-strength search spends per move at 10 s + 0.1 s, so there the
/// clock often ends the search first; 2600 is out of full strength's reach.
pub const LEVELS: [Level; 3] = [
    Level {
        elo: 1350,
        nodes: 2000.0,
        temperature: 100.0,
        margin: 300.0,
    },
    Level {
        elo: 1800,
        nodes: 34_081.0,
        temperature: 35.355_339_059,
        margin: 106.066_017_178,
    },
    Level {
        elo: 2200,
        nodes: 600_000.0,
        temperature: 4.0,
        margin: 12.0,
    },
];

/// The lowest `UCI_Elo`: Stockfish 15.1's minimum, so that its scale can
/// be the ruler.
pub const MIN_ELO: u32 = LEVELS[0].elo;

/// The highest `UCI_Elo`, and its default: the highest level calibrated
/// by games (tests/tools/elo_calibrate.py).
pub const MAX_ELO: u32 = LEVELS[LEVELS.len() - 1].elo;

/// Root lines searched to choose among (MultiPV of the weakened search).
pub const LINES: usize = 4;

/// A playing strength for one search: the rating and the seed of its draw.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Strength {
    /// Clamped to `MIN_ELO..=MAX_ELO` where it is used.
    pub elo: u32,
    pub seed: u64,
}

/// A figure of [`Level`] at `elo` (clamped to the calibrated range),
/// interpolated geometrically between the two levels around it.
fn interpolate(elo: u32, figure: fn(&Level) -> f64) -> f64 {
    let elo = elo.clamp(MIN_ELO, MAX_ELO);
    let i = LEVELS.windows(2).position(|w| elo <= w[1].elo).unwrap_or(0);
    let (lo, hi) = (&LEVELS[i], &LEVELS[i + 1]);
    let t = f64::from(elo - lo.elo) / f64::from(hi.elo - lo.elo);
    figure(lo) * (figure(hi) / figure(lo)).powf(t)
}

/// Nodes to search per move at `elo`.
pub fn node_budget(elo: u32) -> u64 {
    interpolate(elo, |l| l.nodes).round() as u64
}

/// The softmax temperature at `elo`, in score units.
pub fn temperature(elo: u32) -> f64 {
    interpolate(elo, |l| l.temperature)
}

/// The largest loss to the best line that may be chosen at `elo`.
pub fn margin(elo: u32) -> i32 {
    interpolate(elo, |l| l.margin).round() as i32
}

/// The index of the line to play among lines with these `scores`, best
/// first (as MultiPV orders them). The best line when it is a mate (given
/// or taken: no other line can be better); otherwise drawn with weight
/// `exp(-gap / temperature)` among the lines at most [`margin`] worse than
/// the best, by a generator seeded with `seed`.
pub fn pick(scores: &[i32], elo: u32, seed: u64) -> usize {
    let Some(&best) = scores.first() else {
        return 0;
    };
    if best.abs() >= MATE_BOUND {
        return 0;
    }
    let t = temperature(elo);
    let m = i64::from(margin(elo));
    let weights: Vec<f64> = scores
        .iter()
        .map(|&s| {
            let gap = i64::from(best) - i64::from(s);
            if (0..=m).contains(&gap) {
                (-(gap as f64) / t).exp()
            } else {
                0.0
            }
        })
        .collect();
    let total: f64 = weights.iter().sum();
    let mut x = Rng::new(seed).unit() * total;
    for (i, w) in weights.iter().enumerate() {
        if x < *w {
            return i;
        }
        x -= w;
    }
    // Rounding left x at the very top: the last line with a weight.
    weights.iter().rposition(|&w| w > 0.0).unwrap_or(0)
}

impl Strength {
    pub fn node_budget(&self) -> u64 {
        node_budget(self.elo)
    }

    /// [`pick`] with this strength's rating and seed.
    pub fn pick(&self, scores: &[i32]) -> usize {
        pick(scores, self.elo, self.seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::search::MATE;

    #[test]
    fn the_budget_grows_smoothly_and_monotonically() {
        assert_eq!(node_budget(MIN_ELO), 2000);
        assert_eq!(node_budget(MIN_ELO + 110), 4000);
        assert_eq!(node_budget(MIN_ELO + 330), 16_000);
        assert_eq!(node_budget(1800), 34_081);
        assert_eq!(node_budget(2000), 142_999);
        assert_eq!(node_budget(MAX_ELO), 600_000);
        // Out of range: the ends.
        assert_eq!(node_budget(0), node_budget(MIN_ELO));
        assert_eq!(node_budget(99_999), node_budget(MAX_ELO));
        let mut last = 0;
        for elo in MIN_ELO..=MAX_ELO {
            let n = node_budget(elo);
            assert!(n > last, "{elo}: {n} after {last}");
            // Smooth: no step of one point adds more than 1%.
            assert!(
                last == 0 || n * 100 <= last * 101,
                "{elo}: {n} after {last}"
            );
            last = n;
        }
    }

    #[test]
    fn the_noise_shrinks_with_the_rating() {
        assert_eq!(margin(MIN_ELO), 300);
        assert_eq!(margin(MIN_ELO + 300), 150);
        assert_eq!(margin(1800), 106);
        assert_eq!(margin(MAX_ELO), 12);
        assert!((temperature(MIN_ELO) - 100.0).abs() < 1e-9);
        assert!((temperature(MIN_ELO + 300) - 50.0).abs() < 1e-6);
        assert!((temperature(MAX_ELO) - 4.0).abs() < 1e-9);
        for elo in MIN_ELO..MAX_ELO {
            assert!(temperature(elo + 1) < temperature(elo), "{elo}");
            assert!(margin(elo + 1) <= margin(elo), "{elo}");
        }
    }

    /// Lines of 0, -50, -150 and -250 at 1350 (temperature 100): weights
    /// 1, 0.607, 0.223 and 0.082 of 1.912, so line 1 for a draw below 0.523
    /// of the total, 2 below 0.840, 3 below 0.957, else 4. Seeds 3, 1, 23
    /// and 44 draw 0.114, 0.567, 0.910 and 0.982.
    #[test]
    fn the_softmax_pick_with_fixed_scores_and_seeds() {
        let scores = [0, -50, -150, -250];
        let draws: Vec<u32> = [3, 1, 23, 44]
            .map(|s| (Rng::new(s).unit() * 1000.0) as u32)
            .to_vec();
        assert_eq!(draws, [113, 566, 909, 981]);
        assert_eq!(
            [3, 1, 23, 44].map(|s| pick(&scores, MIN_ELO, s)),
            [0, 1, 2, 3]
        );
        // Reproducible: the same seed, the same pick.
        assert_eq!(pick(&scores, MIN_ELO, 3), pick(&scores, MIN_ELO, 3));
        // Over many seeds, the shares of the softmax.
        let mut counts = [0usize; 4];
        for seed in 0..10_000 {
            counts[pick(&scores, MIN_ELO, seed)] += 1;
        }
        let shares: Vec<f64> = counts.iter().map(|&c| c as f64 / 10_000.0).collect();
        for (share, want) in shares.iter().zip([0.523, 0.317, 0.117, 0.043]) {
            assert!((share - want).abs() < 0.02, "{shares:?}");
        }
    }

    #[test]
    fn no_line_beyond_the_margin_and_mates_are_played() {
        // A hanging queen (900 worse) is never chosen at the lowest level.
        for seed in 0..1000 {
            assert_eq!(pick(&[0, -900], MIN_ELO, seed), 0);
            assert_ne!(pick(&[10, 5, -950, -1000], MIN_ELO, seed), 2);
            // A line 301 worse is out at 1350; 107 worse is out at 1800.
            assert_eq!(pick(&[0, -301], MIN_ELO, seed), 0);
            assert_eq!(pick(&[0, -107], 1800, seed), 0);
            assert_eq!(pick(&[0, -13], MAX_ELO, seed), 0);
            // Mate found: played; mated whatever: the longest defence.
            assert_eq!(pick(&[MATE - 5, 900, 800], MIN_ELO, seed), 0);
            assert_eq!(pick(&[-MATE + 8, -MATE + 4], MIN_ELO, seed), 0);
            // One line: that one.
            assert_eq!(pick(&[-40], MIN_ELO, seed), 0);
        }
        assert_eq!(pick(&[], MIN_ELO, 7), 0);
        // Equal lines are equally likely.
        let firsts = (0..1000)
            .filter(|&s| pick(&[5, 5], MIN_ELO, s) == 0)
            .count();
        assert!((450..=550).contains(&firsts), "{firsts}");
    }

    #[test]
    fn higher_ratings_choose_the_best_line_more_often() {
        let scores = [0, -10, -20, -40];
        let best_share = |elo| (0..5000).filter(|&s| pick(&scores, elo, s) == 0).count();
        let shares: Vec<usize> = [1350, 1500, 1650, 1800, 2000, 2200]
            .map(best_share)
            .to_vec();
        assert!(shares.windows(2).all(|w| w[0] < w[1]), "{shares:?}");
    }
}
