//! Keeping the latest report of each MultiPV line of a search, and the
//! move it plays: the one collector behind [`super::SearchPool::search`],
//! `forsyth analyse`, `forsyth annotate` and the EPD suite runner.

use super::{Iteration, Reporter, ScoreBound};
use crate::engine::chess::Move;
use std::sync::Mutex;

/// One MultiPV line as last reported.
#[derive(Clone, Debug, PartialEq)]
pub struct LatestLine {
    /// `None` when the search stopped before any move was scored.
    pub score: Option<i32>,
    pub bound: ScoreBound,
    pub depth: u32,
    pub seldepth: u32,
    /// The search's node count when the line was reported.
    pub nodes: u64,
    pub time_ms: u64,
    pub pv: Vec<Move>,
}

/// What a [`Collector`] has kept.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Latest {
    /// By MultiPV index (line 1 first); `None` for a line not reported.
    pub lines: Vec<Option<LatestLine>>,
    /// The most nodes any report counted.
    pub nodes: u64,
    /// The hash table's fill of the last line kept.
    pub hashfull: u32,
    /// The move played and the one to ponder (`None`: no legal move).
    pub best: Option<Move>,
    pub ponder: Option<Move>,
}

impl Latest {
    /// Line `multipv` (1 for the best), if reported.
    pub fn line(&self, multipv: usize) -> Option<&LatestLine> {
        self.lines.get(multipv.checked_sub(1)?)?.as_ref()
    }
}

/// Which reports a [`Collector`] keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Keep {
    /// Lines without a score (a search stopped before any move was
    /// scored); else the last scored report of the line stands.
    pub unscored: bool,
    /// The final lines ([`Reporter::final_line`]) as well as iterations.
    pub final_lines: bool,
}

impl Keep {
    /// Every report, as it comes.
    pub const ALL: Keep = Keep {
        unscored: true,
        final_lines: true,
    };
}

/// A [`Reporter`] that keeps the latest line of each MultiPV index and the
/// best move; read it with [`Collector::latest`] once the search is over.
pub struct Collector {
    keep: Keep,
    state: Mutex<Latest>,
}

impl Default for Collector {
    fn default() -> Collector {
        Collector::new(Keep::ALL)
    }
}

impl Collector {
    pub fn new(keep: Keep) -> Collector {
        Collector {
            keep,
            state: Mutex::new(Latest::default()),
        }
    }

    /// A copy of what has been kept so far.
    pub fn latest(&self) -> Latest {
        match self.state.lock() {
            Ok(s) => s.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }

    fn keep(&self, it: &Iteration) {
        let Ok(mut s) = self.state.lock() else {
            return;
        };
        s.nodes = s.nodes.max(it.nodes);
        if it.score.is_none() && !self.keep.unscored {
            return;
        }
        let i = it.multipv.saturating_sub(1);
        if s.lines.len() <= i {
            s.lines.resize(i + 1, None);
        }
        s.lines[i] = Some(LatestLine {
            score: it.score,
            bound: it.bound,
            depth: it.depth,
            seldepth: it.seldepth,
            nodes: it.nodes,
            time_ms: it.time_ms,
            pv: it.pv.to_vec(),
        });
        s.hashfull = it.hashfull;
    }
}

impl Reporter for Collector {
    fn iteration(&self, it: &Iteration) {
        self.keep(it);
    }

    fn final_line(&self, it: &Iteration) {
        if self.keep.final_lines {
            self.keep(it);
        }
    }

    fn best_move(&self, best: Option<Move>, ponder: Option<Move>) {
        if let Ok(mut s) = self.state.lock() {
            s.best = best;
            s.ponder = ponder;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::chess::Position;

    fn report(c: &Collector, multipv: usize, score: Option<i32>, nodes: u64, pv: &[Move]) {
        c.iteration(&Iteration {
            depth: 3,
            seldepth: 5,
            multipv,
            score,
            bound: ScoreBound::Exact,
            nodes,
            time_ms: 1,
            hashfull: 7,
            tbhits: 0,
            tb_wdl: None,
            pv,
        });
    }

    #[test]
    fn the_latest_line_of_each_index_is_kept() {
        let pos = Position::startpos();
        let e4 = pos.parse_uci_move("e2e4").unwrap();
        let d4 = pos.parse_uci_move("d2d4").unwrap();
        let all = Collector::default();
        report(&all, 2, Some(10), 50, &[d4]);
        report(&all, 1, Some(30), 100, &[e4]);
        report(&all, 1, None, 120, &[d4]);
        all.best_move(Some(d4), None);
        let l = all.latest();
        assert_eq!(l.lines.len(), 2);
        assert_eq!(l.line(1).unwrap().score, None);
        assert_eq!(l.line(2).unwrap().pv, [d4]);
        assert!(l.line(0).is_none() && l.line(3).is_none());
        assert_eq!((l.nodes, l.hashfull, l.best), (120, 7, Some(d4)));
        // Scored lines only: the unscored report leaves the last score,
        // though its nodes count.
        let scored = Collector::new(Keep {
            unscored: false,
            final_lines: false,
        });
        report(&scored, 1, Some(30), 100, &[e4]);
        report(&scored, 1, None, 120, &[d4]);
        let l = scored.latest();
        assert_eq!(
            (l.line(1).unwrap().score, l.line(1).unwrap().nodes),
            (Some(30), 100)
        );
        assert_eq!(l.nodes, 120);
    }
}
