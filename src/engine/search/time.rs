//! Time management: how long to think about a move.
//!
//! Two limits come out of the clock: a soft one (do not start another
//! iteration after it, since the next one usually takes longer than all
//! before it together) and a hard one (abort the search). The hard limit
//! never exceeds the time left on the clock minus the move overhead.
//!
//! With `left = time - Move Overhead`, `mtg = movestogo` (clamped to
//! 1..50; `tm_moves_to_go`, 25, in sudden death) and the increment `inc`,
//! and the factors of [`Params`] (`tm_inc_pct` 75, `tm_hard_pct` 300,
//! `tm_soft_pct` 60 by default):
//!
//! ```text
//! base = left / mtg + 3/4 inc * min(left, 20 inc) / (20 inc)
//! hard = min(3 base, left / 2)          (0.8 left when mtg = 1)
//! soft = 0.6 base                       (at most hard)
//! ```
//!
//! The caps (half the clock, 0.8 of it before the control) and the twenty
//! increments are not tunable: they are what keeps the engine on the clock.
//!
//! After each iteration the soft limit is scaled by [`soft_factor`], the
//! product of three factors (each engine above us has some of them):
//!
//! - stability: a best move that has just changed gets more time (1.8
//!   times), one that the last iterations agreed on less (down to 0.8);
//! - nodes: when most of the nodes went to the best move the others were
//!   refuted quickly, and the search is sure of it: `(1.5 - f) * 1.35`
//!   for a share `f` of nodes under the best move (0.68 at f = 1);
//! - score: a score that fell since the last iteration asks for a longer
//!   look (8% more per 10 cp, up to 1.5 times); one that rose, a little
//!   less (at least 0.85).
//!
//! The hard limit stays as it is, so the clock is as safe as before. A
//! `movetime` is not scaled: the user asked for that time.
//!
//! The increment counts in full only while the clock holds twenty of them.
//! Without that rule, at 1 s + 10 ms, the clock settles a few tens of
//! milliseconds above the overhead late in the game, and a single pause of
//! a loaded machine loses on time (it did, once in 500 games, before the
//! rule); over a game the rule holds back only about 70 ms.
//!
//! The arithmetic is done in `u128` and saturates, so no clock a client
//! sends can overflow it (`go wtime` near 2^64 once wrapped into a far too
//! short limit). `movetime` is used exactly, less the overhead. Depth 1
//! always completes, so the move played has been searched. Pondering
//! suspends the limits, and `ponderhit` restarts the clock
//! ([`TimeManager::restart`]).

use super::MATE_BOUND;
use super::params::Params;
use std::time::{Duration, Instant};

/// The clock part of `go`, in milliseconds.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    pub time: Option<u64>,
    pub inc: u64,
    pub movestogo: Option<u32>,
    pub movetime: Option<u64>,
}

#[derive(Clone, Debug)]
pub struct TimeManager {
    start: Instant,
    soft: Option<Duration>,
    hard: Option<Duration>,
    /// A `movetime`: the soft limit is not scaled.
    fixed: bool,
}

impl TimeManager {
    /// Limits for this move; `None` limits mean think until told otherwise.
    pub fn new(start: Instant, clock: &Clock, overhead_ms: u64, params: &Params) -> TimeManager {
        let mut soft = None;
        let mut hard = None;
        if let Some(mt) = clock.movetime {
            let t = mt.saturating_sub(overhead_ms).max(1);
            soft = Some(t);
            hard = Some(t);
        }
        if let Some(time) = clock.time {
            let left = time.saturating_sub(overhead_ms);
            let mtg = clock
                .movestogo
                .map_or(params.tm_moves_to_go as u64, |m| (m as u64).clamp(1, 50));
            // In u128: clocks and increments up to u64::MAX (ms) must not
            // wrap into a short limit.
            let (left, inc) = (u128::from(left), u128::from(clock.inc));
            // The increment is spent in full only while the clock holds
            // twenty of them; below that, less and less. Otherwise the
            // clock settles a few tens of milliseconds above the overhead,
            // and one hiccup of a loaded machine loses on time.
            let reserve = inc * 20;
            let pct = |p: i32| u128::from(p as u32);
            let inc_part = (inc * pct(params.tm_inc_pct) / 100 * left.min(reserve))
                .checked_div(reserve)
                .unwrap_or(0);
            let base = left / u128::from(mtg) + inc_part;
            // With one move to the control, most of the clock may go;
            // otherwise never more than a fraction, to keep a reserve.
            let cap = if mtg == 1 { left * 8 / 10 } else { left / 2 };
            // Both at most `left`, so they fit in u64 again.
            let h = (base * pct(params.tm_hard_pct) / 100).min(cap).min(left) as u64;
            let s = (base * pct(params.tm_soft_pct) / 100).min(u128::from(h)) as u64;
            soft = Some(soft.map_or(s, |x: u64| x.min(s)));
            hard = Some(hard.map_or(h, |x: u64| x.min(h)));
        }
        TimeManager {
            start,
            soft: soft.map(Duration::from_millis),
            hard: hard.map(Duration::from_millis),
            fixed: clock.movetime.is_some(),
        }
    }

    /// Counts time from now (at `ponderhit`, when our clock starts).
    pub fn restart(&mut self) {
        self.start = Instant::now();
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Past the soft limit scaled by `factor` ([`soft_factor`]; a
    /// `movetime` is never scaled).
    pub fn soft_exceeded(&self, factor: f64) -> bool {
        let factor = if self.fixed { 1.0 } else { factor };
        self.soft
            .is_some_and(|s| self.elapsed().as_secs_f64() >= s.as_secs_f64() * factor)
    }

    pub fn hard_exceeded(&self) -> bool {
        self.hard.is_some_and(|h| self.elapsed() >= h)
    }

    pub fn soft_limit(&self) -> Option<Duration> {
        self.soft
    }

    pub fn hard_limit(&self) -> Option<Duration> {
        self.hard
    }
}

/// The factor of the soft limit after an iteration (module doc): `stable`
/// iterations in a row kept the best move, `node_share` of the nodes went
/// to it, and its score went from `last` (the previous iteration's best
/// score, if any) to `score`.
pub fn soft_factor(
    params: &Params,
    stable: u32,
    node_share: f64,
    last: Option<i32>,
    score: i32,
) -> f64 {
    let p = |v: i32| f64::from(v) / 100.0;
    let steps = i32::try_from(stable).unwrap_or(i32::MAX);
    let stability = params
        .tm_stable_max
        .saturating_sub(params.tm_stable_step.saturating_mul(steps))
        .max(params.tm_stable_min);
    let nodes = (p(params.tm_node_base) - node_share.clamp(0.0, 1.0)) * p(params.tm_node_scale);
    // Mate scores say nothing of a position getting worse by degrees.
    let score = match last {
        Some(last) if last.abs() < MATE_BOUND && score.abs() < MATE_BOUND => {
            let fell = f64::from(last - score) / 10.0;
            (1.0 + fell * p(params.tm_score_drop)).clamp(0.85, p(params.tm_score_max).max(0.85))
        }
        _ => 1.0,
    };
    p(stability) * nodes.max(0.1) * score
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(clock: Clock, overhead: u64) -> (u64, u64) {
        let tm = TimeManager::new(Instant::now(), &clock, overhead, &Params::default());
        (
            tm.soft_limit().unwrap().as_millis() as u64,
            tm.hard_limit().unwrap().as_millis() as u64,
        )
    }

    #[test]
    fn movetime_is_exact_less_overhead() {
        let c = Clock {
            movetime: Some(1000),
            ..Clock::default()
        };
        assert_eq!(limits(c, 10), (990, 990));
    }

    #[test]
    fn sudden_death_budget() {
        let c = Clock {
            time: Some(10_000),
            inc: 100,
            ..Clock::default()
        };
        // left 9990; base 399 + 75 = 474; hard 1422; soft 284.
        assert_eq!(limits(c, 10), (284, 1422));
    }

    #[test]
    fn never_more_than_the_clock() {
        let c = Clock {
            time: Some(50),
            inc: 1000,
            ..Clock::default()
        };
        let (soft, hard) = limits(c, 10);
        assert!(hard <= 20 && soft <= hard);
        let c = Clock {
            time: Some(5),
            inc: 0,
            ..Clock::default()
        };
        assert_eq!(limits(c, 10), (0, 0));
    }

    /// The largest clock values `go` accepts give the largest limits, not
    /// wrapped small ones (or a panic in debug builds).
    #[test]
    fn huge_clocks_do_not_overflow() {
        for movestogo in [None, Some(1), Some(40)] {
            let c = Clock {
                time: Some(u64::MAX),
                inc: u64::MAX,
                movestogo,
                ..Clock::default()
            };
            let (soft, hard) = limits(c, 20);
            let left = u64::MAX - 20;
            assert!(hard >= left / 10 && hard <= left, "{movestogo:?}: {hard}");
            assert!(soft > left / 100 && soft <= hard, "{movestogo:?}: {soft}");
        }
        let c = Clock {
            time: Some(1000),
            inc: u64::MAX,
            ..Clock::default()
        };
        // left 990; the increment counts 3/4 inc * 990 / (20 inc) = 37;
        // base 39 + 37 = 76; hard 228.
        assert_eq!(limits(c, 10).1, 228);
    }

    #[test]
    fn a_low_clock_does_not_spend_the_increment() {
        // 1 s + 10 ms late in a game: 120 ms left, 20 ms overhead. left 100;
        // the increment counts 7 * 100 / 200 = 3; base 4 + 3 = 7.
        let c = Clock {
            time: Some(120),
            inc: 10,
            ..Clock::default()
        };
        assert_eq!(limits(c, 20), (4, 21));
        // With a comfortable clock the increment counts in full.
        let c = Clock {
            time: Some(1020),
            inc: 10,
            ..Clock::default()
        };
        // left 1000; base 40 + 7 = 47; hard 141; soft 28.
        assert_eq!(limits(c, 20), (28, 141));
    }

    #[test]
    fn last_move_before_control() {
        let c = Clock {
            time: Some(1000),
            movestogo: Some(1),
            ..Clock::default()
        };
        // left 990; base 990; cap 792.
        assert_eq!(limits(c, 10), (594, 792));
    }

    #[test]
    fn the_soft_limit_follows_the_search() {
        let p = Params::default();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        // A new best move with half the nodes: 1.8 * (1.5 - 0.5) * 1.35.
        assert!(close(soft_factor(&p, 0, 0.5, None, 30), 2.43));
        // Five iterations agreed, every node on it, and the score fell 20
        // cp: 0.8 * 0.675 * 1.16.
        assert!(close(
            soft_factor(&p, 5, 1.0, Some(50), 30),
            0.8 * 0.675 * 1.16
        ));
        // Stability bottoms out at 0.8, a rising score at 0.85, a falling
        // one tops out at 1.5.
        assert!(close(
            soft_factor(&p, 40, 1.0, Some(-70), 30),
            0.8 * 0.675 * 0.85
        ));
        assert!(close(
            soft_factor(&p, 40, 1.0, Some(300), 30),
            0.8 * 0.675 * 1.5
        ));
        // Mate scores leave the score factor at 1.
        assert!(close(
            soft_factor(&p, 40, 1.0, Some(MATE_BOUND), 30),
            0.8 * 0.675
        ));
        assert!(close(
            soft_factor(&p, u32::MAX, 2.0, Some(0), 0),
            0.8 * 0.675
        ));
    }

    #[test]
    fn movetime_is_never_scaled() {
        let c = Clock {
            movetime: Some(60_000),
            ..Clock::default()
        };
        let tm = TimeManager::new(Instant::now(), &c, 0, &Params::default());
        assert!(!tm.soft_exceeded(0.0));
        let c = Clock {
            time: Some(60_000),
            ..Clock::default()
        };
        let tm = TimeManager::new(Instant::now(), &c, 0, &Params::default());
        assert!(tm.soft_exceeded(0.0));
        assert!(!tm.soft_exceeded(1.0));
    }
}
