//! Running a test suite: search each position and check the move against
//! `bm` (any of them), `am` (none of them) and `dm` (a mate found in at
//! most that many moves).
//!
//! The runner only searches and judges; printing progress, results and
//! JSON is the command line's business (`src/tools/cli/epd.rs`).

use crate::engine::chess::epd::Epd;
use crate::engine::chess::{Move, Position};
use crate::engine::search::{
    Budget, Collector, Iteration, Job, Reporter, SearchOptions, SearchPool, mate_in,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What a position asks for. A move is right when it is one of `bm` (if
/// any are given), none of `am`, and, with `dm`, comes with a proven mate
/// in at most `dm` moves.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Expectation {
    pub bm: Vec<Move>,
    pub am: Vec<Move>,
    pub dm: Option<i64>,
}

impl Expectation {
    /// `None` when the record has no `bm`, `am` or `dm` to check.
    pub fn of(epd: &Epd) -> Option<Expectation> {
        let e = Expectation {
            bm: epd.moves("bm"),
            am: epd.moves("am"),
            dm: epd.int("dm"),
        };
        (!e.bm.is_empty() || !e.am.is_empty() || e.dm.is_some()).then_some(e)
    }

    /// Whether playing `mv` with this search score answers the position.
    pub fn met(&self, mv: Move, score: i32) -> bool {
        (self.bm.is_empty() || self.bm.contains(&mv))
            && !self.am.contains(&mv)
            && self
                .dm
                .is_none_or(|dm| mate_in(score).is_some_and(|m| m > 0 && i64::from(m) <= dm))
    }

    /// `bm Qg6`, `am Rd6`, `dm 3`, as the suite lists them.
    pub fn describe(&self, pos: &Position) -> String {
        let mut parts = Vec::new();
        for (name, moves) in [("bm", &self.bm), ("am", &self.am)] {
            if !moves.is_empty() {
                let sans: Vec<String> = moves.iter().map(|&m| pos.san(m)).collect();
                parts.push(format!("{name} {}", sans.join(" ")));
            }
        }
        if let Some(dm) = self.dm {
            parts.push(format!("dm {dm}"));
        }
        parts.join("; ")
    }
}

/// The result of one position.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The move played at the end of the search (`None`: no legal move).
    pub played: Option<Move>,
    pub solved: bool,
    /// Since when the search has stayed on a right answer (only if solved).
    pub time_to_solution: Option<Duration>,
    pub time: Duration,
    /// `None` when the search stopped before any move was scored.
    pub score: Option<i32>,
    pub depth: u32,
    pub nodes: u64,
    pub pv: Vec<Move>,
}

/// Watches the iterations of one search for the moment it settles on a
/// right answer; the lines and the move played are kept by the search's
/// [`Collector`].
struct Watch {
    expect: Expectation,
    /// Since when (in the search's milliseconds) the first line has begun
    /// with a right answer.
    right_since_ms: Mutex<Option<u64>>,
    collector: Collector,
}

impl Reporter for Watch {
    fn iteration(&self, it: &Iteration) {
        if it.multipv == 1
            && let Ok(mut since) = self.right_since_ms.lock()
        {
            // A move with no score proves no mate (0 is none either).
            let score = it.score.unwrap_or(0);
            let right = it.pv.first().is_some_and(|&m| self.expect.met(m, score));
            *since = match (right, *since) {
                (true, Some(t)) => Some(t),
                (true, None) => Some(it.time_ms),
                (false, _) => None,
            };
        }
        self.collector.iteration(it);
    }

    fn best_move(&self, best: Option<Move>, ponder: Option<Move>) {
        self.collector.best_move(best, ponder);
    }
}

pub struct Runner {
    pool: SearchPool,
    budget: Budget,
}

impl Runner {
    pub fn new(budget: Budget, threads: usize, hash_mb: usize) -> Result<Runner, String> {
        Ok(Runner {
            pool: SearchPool::new(hash_mb, threads)?,
            budget,
        })
    }

    /// Searches one position with a fresh table; `None` if `interrupt` was
    /// raised before the search ended (its result would not be comparable).
    pub fn run(
        &mut self,
        epd: &Epd,
        expect: &Expectation,
        interrupt: &AtomicBool,
    ) -> Option<Outcome> {
        // Each position on its own, as a GUI's `ucinewgame` would have it.
        self.pool.clear();
        let watch = Arc::new(Watch {
            expect: expect.clone(),
            right_since_ms: Mutex::new(None),
            collector: Collector::default(),
        });
        let job = Job {
            root: epd.position.clone(),
            history: Vec::new(),
            limits: self.budget.limits(),
            options: SearchOptions {
                // Nothing stands between us and the search: no overhead.
                move_overhead_ms: 0,
                ..SearchOptions::default()
            },
        };
        let start = Instant::now();
        self.pool.start(job, watch.clone());
        while self.pool.is_searching() {
            if interrupt.load(Ordering::SeqCst) {
                self.pool.stop();
                self.pool.wait();
                return None;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let time = start.elapsed();
        let latest = watch.collector.latest();
        let right_since_ms = match watch.right_since_ms.lock() {
            Ok(s) => *s,
            Err(p) => *p.into_inner(),
        };
        let best = latest.best;
        let (score, depth, nodes, pv) = match latest.line(1) {
            Some(l) => (l.score, l.depth, l.nodes, l.pv.clone()),
            None => (None, 0, 0, Vec::new()),
        };
        let solved = best.is_some_and(|m| expect.met(m, score.unwrap_or(0)));
        // The last line reported begins with the move played (the search
        // reports the line played at the end); were it another, only the
        // end would count.
        let settled = right_since_ms.filter(|_| pv.first() == best.as_ref());
        Some(Outcome {
            played: best,
            solved,
            time_to_solution: solved
                .then(|| Duration::from_millis(settled.unwrap_or(time.as_millis() as u64))),
            time,
            score,
            depth,
            nodes,
            pv,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::search::MATE;

    fn epd(line: &str) -> Epd {
        Epd::parse(line).unwrap()
    }

    #[test]
    fn expectations_check_bm_am_and_dm() {
        let e = epd("6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8; am Kh2; dm 1;");
        let x = Expectation::of(&e).unwrap();
        let pos = &e.position;
        let ra8 = pos.parse_san("Ra8").unwrap();
        let kh2 = pos.parse_san("Kh2").unwrap();
        assert!(x.met(ra8, MATE - 1));
        assert!(!x.met(ra8, 500), "dm needs the mate to be found");
        assert!(!x.met(kh2, MATE - 1));
        assert_eq!(x.describe(pos), "bm Ra8#; am Kh2; dm 1");
        // am alone: anything but the listed move.
        let a = Expectation::of(&epd("6k1/5ppp/8/8/8/8/8/R5K1 w - - am Kh2;")).unwrap();
        assert!(a.met(ra8, 0) && !a.met(kh2, 0));
        // Nothing to check: not a test position.
        assert!(Expectation::of(&epd("6k1/5ppp/8/8/8/8/8/R5K1 w - - id \"x\";")).is_none());
    }
}
