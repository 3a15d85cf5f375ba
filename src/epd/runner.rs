//! Running a test suite: search each position and check the move against
//! `bm` (any of them), `am` (none of them) and `dm` (a mate found in at
//! most that many moves).
//!
//! The runner only searches and judges; printing progress, results and
//! JSON is the command line's business (`src/cli/epd.rs`).

use super::Epd;
use crate::chess::{Move, Position};
use crate::search::{Clock, Iteration, Job, Limits, Reporter, SearchOptions, SearchPool, mate_in};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long to search each position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Budget {
    MoveTime(u64),
    Depth(u32),
    Nodes(u64),
}

impl Budget {
    /// The search limits of this budget.
    pub fn limits(self) -> Limits {
        let mut limits = Limits::default();
        match self {
            Budget::MoveTime(ms) => {
                limits.clock = Clock {
                    movetime: Some(ms),
                    ..Clock::default()
                }
            }
            Budget::Depth(d) => limits.depth = Some(d),
            Budget::Nodes(n) => limits.nodes = Some(n),
        }
        limits
    }
}

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
/// right answer.
struct Watch {
    expect: Expectation,
    state: Mutex<WatchState>,
}

#[derive(Default)]
struct WatchState {
    right_since_ms: Option<u64>,
    score: Option<i32>,
    depth: u32,
    nodes: u64,
    pv: Vec<Move>,
    best: Option<Move>,
}

impl Reporter for Watch {
    fn iteration(&self, it: &Iteration) {
        if it.multipv != 1 {
            return;
        }
        let Ok(mut s) = self.state.lock() else {
            return;
        };
        // A move with no score proves no mate (0 is none either).
        let score = it.score.unwrap_or(0);
        let right = it.pv.first().is_some_and(|&m| self.expect.met(m, score));
        s.right_since_ms = match (right, s.right_since_ms) {
            (true, Some(t)) => Some(t),
            (true, None) => Some(it.time_ms),
            (false, _) => None,
        };
        s.score = it.score;
        s.depth = it.depth;
        s.nodes = it.nodes;
        s.pv = it.pv.to_vec();
    }

    fn best_move(&self, best: Option<Move>, _ponder: Option<Move>) {
        if let Ok(mut s) = self.state.lock() {
            s.best = best;
        }
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
            state: Mutex::new(WatchState::default()),
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
        let s = match watch.state.lock() {
            Ok(s) => s,
            Err(p) => p.into_inner(),
        };
        let solved = s.best.is_some_and(|m| expect.met(m, s.score.unwrap_or(0)));
        // The last line reported begins with the move played (the search
        // reports the line played at the end); were it another, only the
        // end would count.
        let settled = s.right_since_ms.filter(|_| s.pv.first() == s.best.as_ref());
        Some(Outcome {
            played: s.best,
            solved,
            time_to_solution: solved
                .then(|| Duration::from_millis(settled.unwrap_or(time.as_millis() as u64))),
            time,
            score: s.score,
            depth: s.depth,
            nodes: s.nodes,
            pv: s.pv.clone(),
        })
    }
}
