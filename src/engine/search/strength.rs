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
//! - The root is searched with [`lines`] lines of MultiPV (4 up to 2400,
//!   then fewer, to one at the top level; fewer when there are fewer legal
//!   moves), and the move is drawn among the lines of the
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
    /// Root lines searched to choose among (the weakened search's
    /// MultiPV): 1 is the full-strength search, under the node budget.
    pub lines: f64,
}

/// The levels fitted by the calibration games against Stockfish 15.1's
/// `UCI_Elo` (tests/tools/elo_calibrate.py, 10 s + 0.1 s); between two,
/// each figure is interpolated geometrically (linearly in its logarithm),
/// so the budget grows and the noise shrinks smoothly and monotonically.
/// Fitted for the network: the hand-written evaluation's table, at whose
/// levels the network played 70 to 160 points too strong, was shifted by
/// those amounts; 2200 then scored 35% and was moved 40% of the way back
/// to its old figures.
/// Up to 2200 the budget ends a search before a 10 s + 0.1 s clock does
/// (full strength spends about 600,000 nodes on the first move); 2400's
/// is mostly cut by the clock, and above it the lines fall to one, so that
/// 2600 is the full-strength search on one thread. Games: 1400 44.0%
/// (-42 ± 62), 1800 44.0% (-42 ± 60), 2200 48.5% (-10 ± 66), 2400 53.5%
/// (+24 ± 53), 100 each; 2600 48.3% (-12 ± 69) in 60. 2800 was not played: full
/// strength is about 2600 on this scale.
pub const LEVELS: [Level; 5] = [
    Level {
        elo: 1350,
        nodes: 1200.0,
        temperature: 100.0,
        margin: 300.0,
        lines: 4.0,
    },
    Level {
        elo: 1800,
        nodes: 15_000.0,
        temperature: 48.0,
        margin: 144.0,
        lines: 4.0,
    },
    Level {
        elo: 2200,
        nodes: 300_000.0,
        temperature: 6.5,
        margin: 20.0,
        lines: 4.0,
    },
    Level {
        elo: 2400,
        nodes: 1_400_000.0,
        temperature: 2.0,
        margin: 6.0,
        lines: 4.0,
    },
    Level {
        elo: 2600,
        nodes: 9_000_000.0,
        temperature: 1.0,
        margin: 3.0,
        lines: 1.0,
    },
];

/// The lowest `UCI_Elo`: Stockfish 15.1's minimum, so that its scale can
/// be the ruler.
pub const MIN_ELO: u32 = LEVELS[0].elo;

/// The highest `UCI_Elo`, and its default: the highest level calibrated
/// by games (tests/tools/elo_calibrate.py).
pub const MAX_ELO: u32 = LEVELS[LEVELS.len() - 1].elo;

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

/// Root lines searched at `elo` to choose the move among (fewer when there
/// are fewer legal moves): 4 up to 2400, then fewer, down to the one line
/// of a full-strength search at the top level.
pub fn lines(elo: u32) -> usize {
    interpolate(elo, |l| l.lines).round() as usize
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

    pub fn lines(&self) -> usize {
        lines(self.elo)
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
        assert_eq!(node_budget(MIN_ELO), 1200);
        // Halfway between two levels, the geometric mean of their budgets.
        assert_eq!(node_budget(1575), 4243);
        assert_eq!(node_budget(1800), 15_000);
        assert_eq!(node_budget(2000), 67_082);
        assert_eq!(node_budget(2200), 300_000);
        assert_eq!(node_budget(2400), 1_400_000);
        assert_eq!(node_budget(MAX_ELO), 9_000_000);
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
        assert_eq!(margin(1575), 208);
        assert_eq!(margin(1800), 144);
        assert_eq!(margin(2200), 20);
        assert_eq!(margin(2400), 6);
        assert_eq!(margin(MAX_ELO), 3);
        assert!((temperature(MIN_ELO) - 100.0).abs() < 1e-9);
        assert!((temperature(1575) - 4800f64.sqrt()).abs() < 1e-6);
        assert!((temperature(2200) - 6.5).abs() < 1e-9);
        assert!((temperature(MAX_ELO) - 1.0).abs() < 1e-9);
        for elo in MIN_ELO..MAX_ELO {
            assert!(temperature(elo + 1) < temperature(elo), "{elo}");
            assert!(margin(elo + 1) <= margin(elo), "{elo}");
        }
    }

    /// Four lines up to 2400, then one fewer at a time, down to the single
    /// line of the full-strength search at the top.
    #[test]
    fn the_lines_searched_fall_to_one_at_the_top() {
        assert_eq!(lines(MIN_ELO), 4);
        assert_eq!(lines(2400), 4);
        assert_eq!(lines(2419), 4);
        assert_eq!(lines(2420), 3);
        assert_eq!(lines(2467), 3);
        assert_eq!(lines(2468), 2);
        assert_eq!(lines(2541), 2);
        assert_eq!(lines(2542), 1);
        assert_eq!(lines(MAX_ELO), 1);
        assert_eq!(MAX_ELO, 2600);
        for elo in MIN_ELO..MAX_ELO {
            assert!(lines(elo + 1) <= lines(elo), "{elo}");
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
            // A line 301 worse is out at 1350; 145 worse is out at 1800.
            assert_eq!(pick(&[0, -301], MIN_ELO, seed), 0);
            assert_eq!(pick(&[0, -145], 1800, seed), 0);
            assert_eq!(pick(&[0, -7], 2400, seed), 0);
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
        let shares: Vec<usize> = [1350, 1500, 1650, 1800, 2000, 2200, 2400]
            .map(best_share)
            .to_vec();
        assert!(shares.windows(2).all(|w| w[0] < w[1]), "{shares:?}");
    }
}
