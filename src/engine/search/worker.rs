//! One search thread: iterative deepening, principal variation search and
//! quiescence search.

use super::history::{ContIndex, CorrIndex, Histories, PieceTo, history_bonus, history_malus};
use super::line::{self, Shown};
use super::movepick::MovePicker;
use super::params::Params;
use super::see::see_ge;
use super::time::{TimeManager, soft_factor};
use super::tt::{Bound, TranspositionTable};
use super::{
    INFINITE, Iteration, Job, MATE, MATE_BOUND, MAX_PLY, Reporter, ScoreBound, TB_WIN, tb_score,
};
use crate::engine::chess::{Move, Position};
use crate::engine::nnue::{Network, NnueStack};
use crate::engine::tablebase::{RootRanking, Tablebases, Wdl};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Whether a stored score with this bound settles a node searched with
/// the window (alpha, beta).
#[inline]
fn bound_cuts(bound: Bound, score: i32, alpha: i32, beta: i32) -> bool {
    match bound {
        Bound::Exact => true,
        Bound::Lower => score >= beta,
        Bound::Upper => score <= alpha,
        Bound::None => false,
    }
}

/// A node counter on its own cache line, so threads do not share lines.
#[repr(align(64))]
#[derive(Default)]
pub struct PaddedCounter(pub AtomicU64);

/// State shared by the threads of one search.
pub struct Shared {
    pub job: Job,
    pub tt: Arc<TranspositionTable>,
    pub stop: Arc<AtomicBool>,
    /// True while pondering: no time limit applies until `ponderhit`.
    pub pondering: Arc<AtomicBool>,
    /// Set once the best move is being reported (see `SearchPool::is_searching`).
    pub answered: Arc<AtomicBool>,
    pub nodes: Vec<PaddedCounter>,
    pub reporter: Arc<dyn Reporter>,
    pub start: Instant,
    pub tb: Option<Arc<Tablebases>>,
    /// The root moves ranked by the tables, when the root is in them; only
    /// the best ranked are searched.
    pub tb_root: Option<RootRanking>,
    /// Probe positions with at most this many pieces in the tree (0: none).
    pub tb_pieces: u32,
    pub tbhits: AtomicU64,
    /// The PV of the last `multipv 1` line the main thread reported (as
    /// shown: cut where the game ends): the line of the move played is
    /// reported again at the end when it is another (see
    /// [`Reporter::final_line`]).
    pub reported: Mutex<Vec<Move>>,
    /// The node count of that line: when more were searched after it (the
    /// search stopped inside an iteration), it is reported again with the
    /// total, so that the last `info` line's figures are the search's.
    pub reported_nodes: AtomicU64,
    /// The evaluation network of this search.
    pub net: Arc<Network>,
}

impl Shared {
    pub fn total_nodes(&self) -> u64 {
        self.nodes.iter().map(|c| c.0.load(Ordering::Relaxed)).sum()
    }

    /// How a line from the root is reported (see [`mod@line`]): cut where the
    /// game ends, and an exact mate score a bound unless the line shows
    /// the mate.
    pub fn shown(&self, pv: &[Move], score: Option<i32>, bound: ScoreBound) -> Shown {
        line::shown(&self.job.root, &self.job.history, pv, score, bound)
    }
}

#[derive(Clone, Debug)]
pub struct RootMove {
    pub mv: Move,
    /// Score in the current iteration; -INFINITE until the move is searched
    /// to completion and raises alpha.
    pub score: i32,
    pub prev_score: i32,
    pub pv: Vec<Move>,
    pub seldepth: usize,
    /// Whether `final_score` is exact or only a bound: a root score at or
    /// above beta is a lower bound, one at or below alpha an upper bound
    /// (as Stockfish marks them).
    pub bound: ScoreBound,
    /// The tables' result for this move, when the root is in them.
    pub tb_wdl: Option<Wdl>,
    /// Nodes this thread has searched below this move, over all
    /// iterations so far (the time manager's measure of how sure the
    /// search is of its best move).
    pub nodes: u64,
}

impl RootMove {
    /// The latest complete score: this iteration's, or the last one's if
    /// the search stopped before this move was finished.
    pub fn final_score(&self) -> i32 {
        if self.score == -INFINITE {
            self.prev_score
        } else {
            self.score
        }
    }

    /// The tables' result as this move's score, when the root is in them
    /// and the search has found no mate.
    fn tables_score(&self) -> Option<i32> {
        let wdl = self.tb_wdl?;
        let s = self.final_score();
        (s == -INFINITE || s.abs() < MATE_BOUND).then(|| tb_score(wdl, 0))
    }

    /// The score reported for this move: in the tables the score says the
    /// result, unless a mate was found; `None` when the move has no score
    /// at all (the search stopped before it was searched).
    pub fn reported_score(&self) -> Option<i32> {
        self.tables_score()
            .or_else(|| (self.final_score() != -INFINITE).then(|| self.final_score()))
    }

    /// The bound of [`RootMove::reported_score`] (the tables' result is
    /// exact; no score is no bound either).
    pub fn reported_bound(&self) -> ScoreBound {
        if self.tables_score().is_some() || self.final_score() == -INFINITE {
            ScoreBound::Exact
        } else {
            self.bound
        }
    }
}

/// What a thread found, for choosing the best thread at the end.
#[derive(Clone, Debug)]
pub struct ThreadResult {
    /// The last iteration completed.
    pub depth: i32,
    /// The last iteration begun: one more than `depth` when the search
    /// stopped inside an iteration.
    pub iteration: i32,
    pub root_moves: Vec<RootMove>,
    /// With a strength limit, the lines of the last completed iteration,
    /// best first, to choose the move among (empty otherwise, and when no
    /// iteration was completed).
    pub lines: Vec<RootMove>,
}

impl ThreadResult {
    /// The depth of the line of `root_moves[i]`: the iteration its score
    /// is from (an unfinished one when it was scored there; the first when
    /// it was never scored).
    pub fn line_depth(&self, i: usize) -> u32 {
        let scored_now = self
            .root_moves
            .get(i)
            .is_some_and(|rm| rm.score != -INFINITE);
        let depth = if scored_now {
            self.iteration
        } else {
            self.depth
        };
        depth.max(1) as u32
    }
}

pub struct Worker {
    pub id: usize,
    pub hist: Box<Histories>,
    nodes: u64,
    seldepth: usize,
    keys: Vec<u64>,
    /// Index in `keys` of the root position's key.
    root_index: usize,
    pv: Box<[[Move; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    root_moves: Vec<RootMove>,
    /// The MultiPV line being searched (root moves before it are excluded).
    pv_idx: usize,
    stopped: bool,
    completed_depth: i32,
    /// The iteration being searched.
    iteration: i32,
    time: Option<TimeManager>,
    /// The smaller of `go nodes` and the strength's node budget.
    node_limit: Option<u64>,
    /// See [`ThreadResult::lines`].
    lines: Vec<RootMove>,
    was_pondering: bool,
    shared: Option<Arc<Shared>>,
    params: Params,
    /// Late-move reductions by depth and move number.
    lmr: Box<[[i32; 64]; 64]>,
    /// Static evaluation by ply (-INFINITE in check).
    evals: [i32; MAX_PLY + 2],
    /// No null move right after a null move.
    null_allowed: bool,
    /// While verifying a null-move cutoff, no null moves above this ply.
    nmp_min_ply: usize,
    /// Keys below this index cannot repeat (they precede a null move).
    rep_floor: usize,
    /// The move played at each ply, as (piece, to); `None` for a null move.
    moved: [Option<PieceTo>; MAX_PLY + 2],
    /// The move left out at each ply by a singular-extension search.
    excluded: [Move; MAX_PLY + 2],
    /// Double extensions on the path to each ply (they are limited).
    doubles: [i32; MAX_PLY + 2],
    /// The network's accumulators along the current line.
    nnue: NnueStack,
}

impl Worker {
    pub fn new(id: usize) -> Worker {
        Worker {
            id,
            hist: Histories::new(),
            nodes: 0,
            seldepth: 0,
            keys: Vec::new(),
            root_index: 0,
            pv: Box::new([[Move::NULL; MAX_PLY + 1]; MAX_PLY + 1]),
            pv_len: [0; MAX_PLY + 1],
            root_moves: Vec::new(),
            pv_idx: 0,
            stopped: false,
            completed_depth: 0,
            iteration: 0,
            time: None,
            node_limit: None,
            lines: Vec::new(),
            was_pondering: false,
            shared: None,
            params: Params::default(),
            lmr: Box::new([[0; 64]; 64]),
            evals: [0; MAX_PLY + 2],
            null_allowed: true,
            nmp_min_ply: 0,
            rep_floor: 0,
            moved: [None; MAX_PLY + 2],
            excluded: [Move::NULL; MAX_PLY + 2],
            doubles: [0; MAX_PLY + 2],
            nnue: NnueStack::new(Arc::new(Network::zeroed()), MAX_PLY + 2),
        }
        .with_tables()
    }

    fn with_tables(mut self) -> Worker {
        self.build_lmr();
        self
    }

    /// The late-move reductions by depth and move number, from the params.
    /// Hundredths as f64 are the same doubles as the literals they stand
    /// for (0.75, 2.25): the division is correctly rounded.
    fn build_lmr(&mut self) {
        let base = f64::from(self.params.lmr_base) / 100.0;
        let divisor = f64::from(self.params.lmr_divisor) / 100.0;
        for d in 1..64 {
            for m in 1..64 {
                let r = base + (d as f64).ln() * (m as f64).ln() / divisor;
                self.lmr[d][m] = r as i32;
            }
        }
    }

    /// Takes this job's constants; the reductions are rebuilt only when
    /// theirs change (a tuning build changes them between games).
    fn take_params(&mut self, params: &Params) {
        if self.params == *params {
            return;
        }
        let lmr_changed = (self.params.lmr_base, self.params.lmr_divisor)
            != (params.lmr_base, params.lmr_divisor);
        self.params.clone_from(params);
        if lmr_changed {
            self.build_lmr();
        }
    }

    fn shared(&self) -> &Shared {
        match &self.shared {
            Some(s) => s,
            None => unreachable!("a worker searches only with a job"),
        }
    }

    fn is_main(&self) -> bool {
        self.id == 0
    }

    /// Searches the job's root until the limits or the stop flag end it.
    pub fn run(&mut self, shared: Arc<Shared>) -> ThreadResult {
        let job = &shared.job;
        self.nodes = 0;
        self.stopped = false;
        self.completed_depth = 0;
        self.iteration = 0;
        self.keys.clear();
        self.keys.extend_from_slice(&job.history);
        self.root_index = self.keys.len();
        self.rep_floor = 0;
        self.null_allowed = true;
        self.nmp_min_ply = 0;
        self.keys.push(job.root.key());
        self.was_pondering = job.limits.ponder;
        let budget = job.options.strength.map(|s| s.node_budget());
        self.node_limit = match (job.limits.nodes, budget) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.lines.clear();
        self.take_params(&job.options.params);
        self.time = Some(TimeManager::new(
            shared.start,
            &job.limits.clock,
            job.options.move_overhead_ms,
            &self.params,
        ));
        let root = job.root.clone();
        self.nnue.reset(Arc::clone(&shared.net), &root);
        // In the tables, only the moves that keep the best result are
        // searched (they were ranked among the `searchmoves` already).
        let candidates: Vec<(Move, Option<Wdl>)> = match &shared.tb_root {
            Some(ranking) => ranking.best_moves().map(|r| (r.mv, Some(r.wdl))).collect(),
            None => root
                .legal_moves()
                .into_iter()
                .filter(|m| job.limits.searchmoves.is_empty() || job.limits.searchmoves.contains(m))
                .map(|mv| (mv, None))
                .collect(),
        };
        self.root_moves = candidates
            .into_iter()
            .map(|(mv, tb_wdl)| RootMove {
                mv,
                score: -INFINITE,
                prev_score: -INFINITE,
                pv: vec![mv],
                seldepth: 0,
                bound: ScoreBound::Exact,
                tb_wdl,
                nodes: 0,
            })
            .collect();
        self.shared = Some(shared);
        if !self.root_moves.is_empty() {
            self.iterative_deepening(&root);
        }
        self.publish_nodes();
        self.shared = None;
        ThreadResult {
            depth: self.completed_depth,
            iteration: self.iteration,
            root_moves: std::mem::take(&mut self.root_moves),
            lines: std::mem::take(&mut self.lines),
        }
    }

    fn publish_nodes(&self) {
        if let Some(s) = &self.shared {
            s.nodes[self.id].0.store(self.nodes, Ordering::Relaxed);
        }
    }

    fn iterative_deepening(&mut self, root: &Position) {
        let limits = self.shared().job.limits.clone();
        let strength = self.shared().job.options.strength;
        // The lines reported; with a strength limit more are searched, to
        // choose the move among.
        let reported = self
            .shared()
            .job
            .options
            .multipv
            .clamp(1, self.root_moves.len());
        let multipv = match strength {
            Some(s) => reported.max(s.lines()).min(self.root_moves.len()),
            None => reported,
        };
        // Clamped as u32: `go depth 4294967295` is the deepest search, not
        // depth -1.
        let max_depth = limits
            .depth
            .map_or(MAX_PLY - 1, |d| (d as usize).clamp(1, MAX_PLY - 1))
            as i32;

        // The time manager's view of the iterations: how many in a row
        // kept the best move, and the last one's best move and score.
        let mut stable = 0;
        let mut last_best: Option<(Move, i32)> = None;
        for depth in 1..=max_depth {
            self.iteration = depth;
            for rm in &mut self.root_moves {
                rm.prev_score = rm.score;
                rm.score = -INFINITE;
            }
            for pv_idx in 0..multipv {
                self.pv_idx = pv_idx;
                self.seldepth = 0;
                self.aspiration(root, depth, pv_idx);
                if self.stopped {
                    break;
                }
                // A later line may have come out better than an earlier one.
                self.root_moves[..=pv_idx].sort_by_key(|rm| std::cmp::Reverse(rm.score));
            }
            if self.stopped {
                break;
            }
            if self.is_main() {
                for pv_idx in 0..reported {
                    self.report_line(depth, pv_idx, ScoreBound::Exact);
                }
            }
            self.completed_depth = depth;
            if strength.is_some() {
                self.lines.clear();
                self.lines.extend_from_slice(&self.root_moves[..multipv]);
                // The only move: played at once.
                if self.root_moves.len() == 1 {
                    break;
                }
            }

            if self.is_main() {
                let best = self.root_moves[0].score;
                // A proven mate within the asked distance ends `go mate`.
                if let Some(n) = limits.mate
                    && best >= MATE_BOUND
                    && (MATE - best) as u64 <= 2 * n as u64
                {
                    break;
                }
                let (best_move, best_nodes) = (self.root_moves[0].mv, self.root_moves[0].nodes);
                match last_best {
                    Some((m, _)) if m == best_move => stable += 1,
                    _ => stable = 0,
                }
                let factor = soft_factor(
                    &self.params,
                    stable,
                    best_nodes as f64 / self.nodes.max(1) as f64,
                    last_best.map(|(_, s)| s),
                    best,
                );
                last_best = Some((best_move, best));
                if let Some(tm) = &self.time
                    && !self.shared().pondering.load(Ordering::Relaxed)
                    && tm.soft_exceeded(factor)
                {
                    break;
                }
                if let Some(soft) = limits.soft_nodes {
                    let s = self.shared();
                    let total =
                        s.total_nodes() - s.nodes[self.id].0.load(Ordering::Relaxed) + self.nodes;
                    if total >= soft {
                        break;
                    }
                }
            }
        }
    }

    /// Searches one MultiPV line at `depth` in a window around the last
    /// score, widening it on each failure until the score falls inside.
    fn aspiration(&mut self, root: &Position, depth: i32, pv_idx: usize) {
        let prev = self.root_moves[pv_idx].prev_score;
        let mut delta = self.params.asp_delta;
        let (mut alpha, mut beta) = if depth >= self.params.asp_min_depth && prev.abs() < MATE_BOUND
        {
            (prev - delta, prev + delta)
        } else {
            (-INFINITE, INFINITE)
        };
        loop {
            self.negamax::<true>(root, alpha, beta, depth, 0);
            // Stable: among moves that did not raise alpha, the order of
            // the previous iteration stands.
            self.root_moves[pv_idx..].sort_by_key(|rm| std::cmp::Reverse(rm.score));
            if self.stopped {
                return;
            }
            let score = self.root_moves[pv_idx].score;
            let bound = if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITE);
                ScoreBound::Upper
            } else if score >= beta {
                beta = (score + delta).min(INFINITE);
                ScoreBound::Lower
            } else {
                return;
            };
            if self.is_main()
                && pv_idx < self.shared().job.options.multipv
                && self.shared().start.elapsed().as_millis() as u64
                    >= self.shared().job.options.currmove_after_ms
            {
                self.report_line(depth, pv_idx, bound);
            }
            // At least one more: the window must widen.
            delta += (delta * self.params.asp_widen_pct / 100).max(1);
        }
    }

    fn report_line(&self, depth: i32, pv_idx: usize, bound: ScoreBound) {
        let s = self.shared();
        let rm = &self.root_moves[pv_idx];
        let nodes = s.total_nodes() - s.nodes[self.id].0.load(Ordering::Relaxed) + self.nodes;
        let score = rm.reported_score();
        // Cut where the game ends, the mate claimed only with its line.
        let shown = s.shown(&rm.pv, score, bound);
        let pv = &rm.pv[..shown.len];
        if pv_idx == 0
            && let Ok(mut reported) = s.reported.lock()
        {
            reported.clear();
            reported.extend_from_slice(pv);
            s.reported_nodes.store(nodes, Ordering::Relaxed);
        }
        s.reporter.iteration(&Iteration {
            depth: depth as u32,
            seldepth: rm.seldepth.max(1) as u32,
            multipv: pv_idx + 1,
            score,
            bound: shown.bound,
            nodes,
            time_ms: s.start.elapsed().as_millis() as u64,
            hashfull: s.tt.hashfull(),
            tbhits: s.tbhits.load(Ordering::Relaxed),
            tb_wdl: rm.tb_wdl,
            pv,
        });
    }

    /// The static evaluation of `pos`, the position at `ply`.
    #[inline]
    fn evaluate(&mut self, pos: &Position, ply: usize) -> i32 {
        self.nnue.evaluate(ply, pos)
    }

    /// The move played `n` plies before the node at `ply` (`None` before
    /// the root, or for a null move).
    #[inline]
    fn moved_back(&self, ply: usize, n: usize) -> Option<PieceTo> {
        ply.checked_sub(n).and_then(|p| self.moved[p])
    }

    /// The moves that index the continuation correction at `ply`: the last
    /// one, and those two and four plies before the node.
    #[inline]
    fn corr_index(&self, ply: usize) -> CorrIndex {
        [1, 2, 4].map(|n| self.moved_back(ply, n))
    }

    /// Hints the CPU to fetch what the node of `child` at `ply` reads
    /// first: its table bucket and its correction entries.
    #[inline(always)]
    fn prefetch_child(&self, child: &Position, ply: usize) {
        self.shared().tt.prefetch(child.key());
        self.hist.prefetch_correction(child, &self.corr_index(ply));
    }

    /// Polls the stop flag, the clock and the node limit.
    #[inline]
    fn check_stop(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        let node_limit = self.node_limit;
        if self.nodes & 1023 != 0 && node_limit.is_none() {
            return false;
        }
        let shared = match &self.shared {
            Some(s) => Arc::clone(s),
            None => return false,
        };
        if let Some(limit) = node_limit {
            // Exact for one thread; other threads' counts lag by < 1024 nodes.
            let others = if shared.nodes.len() > 1 {
                shared.total_nodes() - shared.nodes[self.id].0.load(Ordering::Relaxed)
            } else {
                0
            };
            if self.nodes + others >= limit {
                shared.stop.store(true, Ordering::Relaxed);
            }
        }
        if self.nodes & 1023 == 0 {
            self.publish_nodes();
            if self.is_main() {
                let pondering = shared.pondering.load(Ordering::Relaxed);
                if let Some(tm) = &mut self.time {
                    if self.was_pondering && !pondering {
                        tm.restart();
                        self.was_pondering = false;
                    }
                    // Depth 1 always completes (it takes microseconds), so
                    // the move played has been searched.
                    if !pondering && tm.hard_exceeded() && self.completed_depth > 0 {
                        shared.stop.store(true, Ordering::Relaxed);
                    }
                }
            }
        }
        if shared.stop.load(Ordering::Relaxed) {
            self.stopped = true;
        }
        self.stopped
    }

    /// Draw by the fifty-move rule, insufficient material or repetition:
    /// once inside the search tree, or twice counting the game before it.
    fn is_draw(&self, pos: &Position) -> bool {
        if pos.halfmove_clock() >= 100 && !(pos.in_check() && pos.count_legal() == 0) {
            return true;
        }
        if pos.insufficient_material() {
            return true;
        }
        let n = self.keys.len();
        let key = pos.key();
        let reach = (pos.halfmove_clock() as usize).min(n - 1);
        let mut seen_before_root = false;
        let mut back = 4;
        while back <= reach && n - 1 - back >= self.rep_floor {
            let i = n - 1 - back;
            if self.keys[i] == key {
                if i > self.root_index || seen_before_root {
                    return true;
                }
                seen_before_root = true;
            }
            back += 2;
        }
        false
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        self.pv[ply][ply] = m;
        for i in ply + 1..child_len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len;
    }

    /// The principal variation search. Steps:
    /// 1. Horizon: drop into quiescence.
    /// 2. Stop checks, draws, ply limit, mate distance pruning.
    /// 3. Transposition table: cut off on a deep enough bound.
    /// 4. Tablebases: after a capture or pawn move, cut off on the bound
    ///    the tables prove.
    /// 5. Internal iterative reduction; static evaluation, and whether it
    ///    improves on two plies ago.
    /// 6. Reverse futility pruning.
    /// 7. Null-move pruning (verified at high depth).
    /// 8. Singular extension of the hash move, multi-cut, negative
    ///    extension (a search with the hash move left out).
    /// 9. The move loop: SEE pruning, late-move and futility pruning of quiet moves,
    ///    check extension, late-move reductions, PVS (first move with a full
    ///    window, the rest with a null window and a re-search when they
    ///    beat alpha).
    /// 10. Mate and stalemate; history updates; store the result.
    fn negamax<const PV: bool>(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        mut beta: i32,
        depth: i32,
        ply: usize,
    ) -> i32 {
        let root = ply == 0;
        self.pv_len[ply] = ply;

        // Step 1. Horizon (a draw by repetition is still a draw there).
        if depth <= 0 {
            if !root && self.is_draw(pos) {
                return 0;
            }
            return self.qsearch::<PV>(pos, alpha, beta, ply);
        }

        // Step 2. Bookkeeping and early exits. Once stopped, nothing more
        // is counted (a re-search may still be entered on the way out), so
        // that a node limit is never exceeded.
        if self.stopped {
            return 0;
        }
        self.nodes += 1;
        if self.check_stop() {
            return 0;
        }
        if PV {
            self.seldepth = self.seldepth.max(ply + 1);
        }
        let in_check = pos.in_check();
        if !root {
            if self.is_draw(pos) {
                return 0;
            }
            if ply >= MAX_PLY {
                return if in_check { 0 } else { self.evaluate(pos, ply) };
            }
            // Mate distance pruning: no line from here beats a shorter mate.
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }

        // Step 3. Transposition table.
        // A search with a move left out asks another question than the
        // table's entry answers: it neither reads nor writes the table.
        let key = pos.key();
        let excluded = self.excluded[ply];
        let singular_search = !excluded.is_null();
        let tt = if singular_search {
            None
        } else {
            self.shared().tt.probe(key, ply)
        };
        let tt_move = tt.map_or(Move::NULL, |h| h.mv);
        if let Some(h) = tt
            && !PV
            && h.depth >= depth
            && bound_cuts(h.bound, h.score, alpha, beta)
        {
            return h.score;
        }

        // Step 4. Tablebases. A capture or pawn move has just reset the
        // clock, so the WDL tables give the exact result here: a win is a
        // lower bound (the search may still find a mate), a loss an upper
        // one. Stored deeper than searched, as nothing below can change it.
        // A PV node that is not cut off is searched within those bounds.
        let mut tb_floor = -INFINITE;
        let mut tb_cap = INFINITE;
        if !root
            && !singular_search
            && pos.halfmove_clock() == 0
            && let Some((score, bound)) = self.probe_tablebase(pos, depth, ply)
        {
            if bound_cuts(bound, score, alpha, beta) {
                let tb_depth = (depth + 6).min(MAX_PLY as i32 - 1);
                self.shared()
                    .tt
                    .store(key, ply, Move::NULL, score, -MATE, tb_depth, bound, PV);
                return score;
            }
            if PV {
                match bound {
                    Bound::Lower => tb_floor = score,
                    _ => tb_cap = score,
                }
            }
        }

        // Internal iterative reduction.
        let depth =
            if !root && !singular_search && tt_move.is_null() && depth >= self.params.iir_min_depth
            {
                depth - 1
            } else {
                depth
            };

        // Step 5. Static evaluation. The table's score is a better guess
        // when its bound points the right way.
        let raw_eval = if in_check {
            -INFINITE
        } else {
            match tt {
                Some(h) if h.eval.abs() < MATE_BOUND && h.bound != Bound::None => h.eval,
                _ => self.evaluate(pos, ply),
            }
        };
        // Corrected by the correction histories (history.rs); the table
        // keeps the raw evaluation.
        let cc = self.corr_index(ply);
        let correction = if in_check {
            0
        } else {
            self.hist.correction(&self.params, pos, &cc)
        };
        let static_eval = if in_check {
            -INFINITE
        } else {
            Histories::corrected(raw_eval, correction)
        };
        let mut eval = static_eval;
        if let Some(h) = tt
            && !in_check
            && h.score.abs() < MATE_BOUND
            && match h.bound {
                Bound::Lower => h.score > eval,
                Bound::Upper => h.score < eval,
                Bound::Exact => true,
                Bound::None => false,
            }
        {
            eval = h.score;
        }
        self.evals[ply] = static_eval;
        // Improving: our position got better since our last move, so
        // pruning should be more careful. Near the root there is no earlier
        // evaluation to compare with: assume it is.
        let improving = !in_check && (ply < 2 || static_eval > self.evals[ply - 2]);
        let p = &self.params;

        if !PV && !in_check && !root && !singular_search {
            // Step 6. Reverse futility pruning.
            if depth <= p.rfp_max_depth
                && eval
                    - p.rfp_margin * (depth - i32::from(improving))
                    - correction.abs() * p.rfp_corr_pct / 100
                    >= beta
                && eval < MATE_BOUND
            {
                return eval;
            }

            // Step 7. Null-move pruning.
            let has_pieces = (pos.color(pos.side_to_move())
                & !pos.kind(crate::engine::chess::PieceType::Pawn)
                & !pos.kind(crate::engine::chess::PieceType::King))
            .any();
            if depth >= p.nmp_min_depth
                && eval >= beta
                && has_pieces
                && ply >= self.nmp_min_ply
                && self.null_allowed
            {
                let r = p.nmp_base
                    + depth / p.nmp_depth_divisor
                    + ((eval - beta) / p.nmp_eval_divisor).min(p.nmp_eval_max);
                let mut child = pos.clone();
                child.play_null();
                self.nnue.push_null(ply + 1);
                self.moved[ply] = None;
                self.keys.push(child.key());
                let saved_floor = self.rep_floor;
                self.rep_floor = self.keys.len() - 1;
                self.null_allowed = false;
                let score = -self.negamax::<false>(&child, -beta, -beta + 1, depth - r, ply + 1);
                self.null_allowed = true;
                self.rep_floor = saved_floor;
                self.keys.pop();
                if self.stopped {
                    return 0;
                }
                if score >= beta {
                    // Never trust a mate found after passing.
                    let score = if score >= MATE_BOUND { beta } else { score };
                    if depth < self.params.nmp_verify_depth || self.nmp_min_ply > 0 {
                        return score;
                    }
                    // Verify without null moves for this side near the root
                    // of the null-move subtree (zugzwang).
                    self.nmp_min_ply = ply + 3 * (depth - r) as usize / 4;
                    let v = self.negamax::<false>(pos, beta - 1, beta, depth - r, ply);
                    self.nmp_min_ply = 0;
                    if v >= beta {
                        return score;
                    }
                }
            }
        }

        // Step 8. Singular extension: when every move but the hash move
        // fails well below the hash score, the hash move is forced and is
        // searched a ply deeper (two when clearly so, a limited number of
        // times on a path). When even without it the node beats beta,
        // several moves do: cut (multi-cut). When the hash score alone
        // beats beta, the hash move is searched a ply less deep.
        // A hash score of exactly 0 is a draw found below (repetition, the
        // fifty-move rule, a fortress): no move is forced there, and in a
        // locked position searched very deep, singular searches of draws
        // made each iteration cost more than the last (a fortress at depth
        // 100: 22M nodes with them, 121k without).
        let mut tt_extension = 0;
        if let Some(h) = tt {
            let p = &self.params;
            if !root
                && depth >= p.se_min_depth
                && !tt_move.is_null()
                && h.depth >= depth - p.se_tt_depth_margin
                && matches!(h.bound, Bound::Lower | Bound::Exact)
                && h.score.abs() < MATE_BOUND
                && h.score != 0
            {
                let s_beta = h.score - p.se_margin * depth;
                let s_depth = (depth - 1) / 2;
                let (double_margin, max_doubles) = (p.se_double_margin, p.se_max_doubles);
                self.excluded[ply] = tt_move;
                let v = self.negamax::<false>(pos, s_beta - 1, s_beta, s_depth, ply);
                self.excluded[ply] = Move::NULL;
                if self.stopped {
                    return 0;
                }
                if v < s_beta {
                    tt_extension =
                        if !PV && v < s_beta - double_margin && self.doubles[ply] < max_doubles {
                            2
                        } else {
                            1
                        };
                } else if s_beta >= beta {
                    return s_beta;
                } else if h.score >= beta {
                    tt_extension = -1;
                }
            }
        }

        // Step 9. The move loop.
        let alpha_orig = alpha;
        let mut best = tb_floor;
        alpha = alpha.max(tb_floor);
        let mut best_move = Move::NULL;
        let mut moves_searched = 0;
        let mut quiets_tried: arrayvec::ArrayVec<Move, 64> = arrayvec::ArrayVec::new();
        let mut noisy_tried: arrayvec::ArrayVec<Move, 32> = arrayvec::ArrayVec::new();
        let conts: ContIndex = [self.moved_back(ply, 1), self.moved_back(ply, 2)];
        let counter = self.hist.counter_move(conts[0]);
        let mut picker = MovePicker::new(
            pos,
            tt_move,
            self.hist.killers[ply],
            counter,
            conts,
            &self.params,
        );
        let mut root_idx = self.pv_idx;
        let mut check_info = None;

        loop {
            let m = if root {
                if root_idx >= self.root_moves.len() {
                    break;
                }
                root_idx += 1;
                self.root_moves[root_idx - 1].mv
            } else {
                match picker.next(pos, &self.hist) {
                    Some(m) => m,
                    None => break,
                }
            };
            if root && self.is_main() {
                let s = self.shared();
                if s.start.elapsed().as_millis() as u64 >= s.job.options.currmove_after_ms {
                    s.reporter
                        .current_move(depth as u32, m, moves_searched + 1 + self.pv_idx);
                }
            }
            if m == excluded {
                continue;
            }
            let is_quiet = !pos.is_capture(m) && m.promo().is_none();

            // Shallow pruning, once a move has saved us from mate.
            if !root && best > -MATE_BOUND && depth <= self.params.see_max_depth {
                let p = &self.params;
                // Moves that lose material by static exchange.
                let threshold = if is_quiet {
                    -p.see_quiet_margin * depth
                } else {
                    -p.see_noisy_margin * depth * depth
                };
                if !see_ge(pos, m, threshold) {
                    continue;
                }
            }
            if !root && is_quiet && !in_check && best > -MATE_BOUND {
                let p = &self.params;
                // Late-move pruning: late quiet moves rarely matter here.
                let lmp_limit = (p.lmp_base + depth * depth) / (2 - i32::from(improving));
                let late = depth <= p.lmp_max_depth && moves_searched as i32 >= lmp_limit;
                // Futility pruning: this move cannot raise the evaluation
                // enough to matter.
                let futile =
                    depth <= p.fp_max_depth && eval + p.fp_base + p.fp_margin * depth <= alpha;
                // A check is never pruned here: the static evaluation knows
                // nothing of the mate it may threaten. The picker puts
                // direct checks first among the quiets, so the first quiet
                // that does not check ends the quiets.
                if (late || futile)
                    && !pos.gives_check_with(m, check_info.get_or_insert_with(|| pos.check_info()))
                {
                    picker.skip_quiets();
                    continue;
                }
            }

            let hist_score = if is_quiet {
                self.hist.quiet(pos, m, &conts)
            } else {
                0
            };
            let nodes_before = self.nodes;
            let mut child = pos.clone();
            self.moved[ply] = PieceTo::of(pos, m);
            self.nnue.push(ply + 1, pos, m);
            child.play(m);
            self.prefetch_child(&child, ply + 1);
            self.keys.push(child.key());
            let gives_check = child.in_check();
            // Check extension: look one ply further when the move gives
            // check; the hash move by what the singular search said.
            let extension = if m == tt_move && tt_extension != 0 {
                tt_extension
            } else {
                i32::from(gives_check)
            };
            let new_depth = depth - 1 + extension;
            self.doubles[ply + 1] = self.doubles[ply] + i32::from(extension == 2);

            let mut score;
            if moves_searched == 0 {
                score = -self.negamax::<PV>(&child, -beta, -alpha, new_depth, ply + 1);
            } else {
                // Late-move reductions: later quiet moves are searched less
                // deep first, and fully only if they surprise.
                let mut r = 0;
                if depth >= self.params.lmr_min_depth
                    && moves_searched > usize::from(PV)
                    && is_quiet
                {
                    r = self.lmr[depth.min(63) as usize][moves_searched.min(63)];
                    r -= i32::from(PV);
                    r += i32::from(!improving);
                    r -= i32::from(gives_check);
                    // Moves with a good history are reduced less.
                    r -= hist_score / self.params.lmr_history_divisor;
                    // An evaluation the searches often corrected is less sure.
                    r -= correction.abs() / self.params.lmr_corr_divisor;
                    r = r.clamp(0, new_depth - 1);
                }
                score = -self.negamax::<false>(&child, -alpha - 1, -alpha, new_depth - r, ply + 1);
                if r > 0 && score > alpha {
                    score = -self.negamax::<false>(&child, -alpha - 1, -alpha, new_depth, ply + 1);
                }
                if PV && score > alpha && score < beta {
                    score = -self.negamax::<true>(&child, -beta, -alpha, new_depth, ply + 1);
                }
            }
            self.keys.pop();
            if root {
                self.root_moves[root_idx - 1].nodes += self.nodes - nodes_before;
            }
            if self.stopped {
                return 0;
            }
            moves_searched += 1;

            if root {
                let rm_idx = root_idx - 1;
                if moves_searched == 1 || score > alpha {
                    let mut line = vec![m];
                    line.extend_from_slice(
                        &self.pv[ply + 1][ply + 1..self.pv_len[ply + 1].max(ply + 1)],
                    );
                    let rm = &mut self.root_moves[rm_idx];
                    rm.score = score;
                    rm.bound = if score >= beta {
                        ScoreBound::Lower
                    } else if score <= alpha {
                        ScoreBound::Upper
                    } else {
                        ScoreBound::Exact
                    };
                    rm.pv = line;
                    rm.seldepth = self.seldepth;
                }
            }

            if score > best {
                best = score;
                if score > alpha {
                    best_move = m;
                    alpha = score;
                    if PV {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        let bonus = history_bonus(&self.params, depth);
                        let malus = history_malus(&self.params, depth);
                        self.hist.update_cutoff(
                            pos,
                            ply,
                            m,
                            is_quiet,
                            &quiets_tried,
                            &noisy_tried,
                            &conts,
                            bonus,
                            malus,
                        );
                        break;
                    }
                }
            }
            if m != best_move {
                if is_quiet {
                    let _ = quiets_tried.try_push(m);
                } else {
                    let _ = noisy_tried.try_push(m);
                }
            }
        }

        // Step 10. No legal move: mate or stalemate (or only the excluded
        // move, which says nothing).
        if moves_searched == 0 {
            return if singular_search {
                alpha
            } else if in_check {
                -MATE + ply as i32
            } else {
                0
            };
        }
        if singular_search {
            return best;
        }
        let best = best.min(tb_cap);
        let bound = if best >= beta {
            Bound::Lower
        } else if alpha > alpha_orig {
            Bound::Exact
        } else {
            Bound::Upper
        };
        // What the search found teaches the correction histories, when it is
        // about the position's quiet value: not in check, no capture or
        // promotion as the best move, no mate or tablebase score, and a
        // bound that says which way the evaluation was wrong.
        if !in_check
            && (best_move.is_null() || (!pos.is_capture(best_move) && best_move.promo().is_none()))
            && best.abs() < TB_WIN - MAX_PLY as i32
            && !(bound == Bound::Lower && best <= static_eval)
            && !(bound == Bound::Upper && best >= static_eval)
        {
            self.hist
                .update_correction(pos, &cc, depth, static_eval, best);
        }
        self.shared().tt.store(
            key,
            ply,
            best_move,
            best,
            raw_eval.max(-MATE),
            depth,
            bound,
            PV,
        );
        best
    }

    /// The tables' result for the tablebase step, as a score and the bound
    /// it proves, when probing is on and the position qualifies.
    fn probe_tablebase(&self, pos: &Position, depth: i32, ply: usize) -> Option<(i32, Bound)> {
        let s = self.shared();
        let tb = s.tb.as_deref()?;
        let opts = s.job.options.syzygy;
        if depth < opts.probe_depth || pos.occupied().count() > s.tb_pieces {
            return None;
        }
        let wdl = tb.probe_wdl(pos)?.under_rule50(opts.rule50);
        s.tbhits.fetch_add(1, Ordering::Relaxed);
        let bound = match wdl {
            Wdl::Win => Bound::Lower,
            Wdl::Loss => Bound::Upper,
            _ => Bound::Exact,
        };
        Some((tb_score(wdl, ply), bound))
    }

    /// Captures and promotions only (all evasions in check), until quiet.
    fn qsearch<const PV: bool>(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        if self.stopped {
            return 0;
        }
        self.nodes += 1;
        if self.check_stop() {
            return 0;
        }
        if PV {
            self.seldepth = self.seldepth.max(ply + 1);
            self.pv_len[ply.min(MAX_PLY)] = ply.min(MAX_PLY);
        }
        if pos.halfmove_clock() >= 100 || pos.insufficient_material() {
            return 0;
        }
        let in_check = pos.in_check();
        if ply >= MAX_PLY {
            return if in_check { 0 } else { self.evaluate(pos, ply) };
        }

        let key = pos.key();
        let tt = self.shared().tt.probe(key, ply);
        let tt_move = tt.map_or(Move::NULL, |h| h.mv);
        if let Some(h) = tt
            && !PV
            && bound_cuts(h.bound, h.score, alpha, beta)
        {
            return h.score;
        }

        // Stand pat: the side to move can usually do at least as well as now.
        let mut best = -INFINITE;
        // The table keeps the raw evaluation; stand pat on the corrected one.
        let (raw_eval, eval) = if in_check {
            (-INFINITE, -INFINITE)
        } else {
            let raw = self.evaluate(pos, ply);
            let cc = self.corr_index(ply);
            let correction = self.hist.correction(&self.params, pos, &cc);
            (raw, Histories::corrected(raw, correction))
        };
        if !in_check {
            best = eval;
            if best >= beta {
                return best;
            }
            alpha = alpha.max(best);
        }

        let alpha_orig = alpha;
        let mut best_move = Move::NULL;
        let mut picker = MovePicker::new_qsearch(pos, tt_move, &self.params);
        let mut moves_searched = 0;
        while let Some(m) = picker.next(pos, &self.hist) {
            let mut child = pos.clone();
            // For the continuation correction of the nodes below.
            self.moved[ply] = PieceTo::of(pos, m);
            self.nnue.push(ply + 1, pos, m);
            child.play(m);
            self.prefetch_child(&child, ply + 1);
            self.keys.push(child.key());
            let score = -self.qsearch::<PV>(&child, -beta, -alpha, ply + 1);
            self.keys.pop();
            if self.stopped {
                return 0;
            }
            moves_searched += 1;
            if score > best {
                best = score;
                if score > alpha {
                    best_move = m;
                    alpha = score;
                    if PV {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        if in_check && moves_searched == 0 {
            return -MATE + ply as i32;
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if alpha > alpha_orig {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.shared().tt.store(
            key,
            ply,
            best_move,
            best,
            raw_eval.max(-MATE),
            0,
            bound,
            false,
        );
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::search::{Limits, SearchOptions, Silent};

    /// A worker set up as `run` sets it up, so that the search can be
    /// entered at any ply.
    fn worker_for(pos: &Position) -> Worker {
        let shared = Arc::new(Shared {
            job: Job {
                root: pos.clone(),
                history: Vec::new(),
                limits: Limits::default(),
                options: SearchOptions::default(),
            },
            tt: Arc::new(TranspositionTable::new(1).unwrap()),
            stop: Arc::new(AtomicBool::new(false)),
            pondering: Arc::new(AtomicBool::new(false)),
            answered: Arc::new(AtomicBool::new(false)),
            nodes: vec![PaddedCounter::default()],
            reporter: Arc::new(Silent),
            start: Instant::now(),
            tb: None,
            tb_root: None,
            tb_pieces: 0,
            tbhits: AtomicU64::new(0),
            reported: Mutex::new(Vec::new()),
            reported_nodes: AtomicU64::new(0),
            net: crate::engine::nnue::active(),
        });
        let mut w = Worker::new(0);
        w.nnue.reset(crate::engine::nnue::active(), pos);
        w.keys.push(pos.key());
        w.shared = Some(shared);
        w
    }

    /// Every array indexed by ply (PV, PV lengths, evaluations, moves
    /// played, killers) holds the deepest ply the search can reach: the
    /// search entered just short of MAX_PLY with depth to spare runs into
    /// the limit on every line, in the main search and in quiescence, in
    /// check and out of it, and returns a score.
    #[test]
    fn the_search_stops_at_the_ply_limit() {
        for fen in [
            // Quiet, many moves.
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            // Captures everywhere (long quiescence lines).
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            // In check.
            "rnb1kbnr/pppp1ppp/8/4p3/5PPq/8/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            // Checks and promotions.
            "8/P5k1/8/8/8/8/5q2/K7 w - - 0 1",
        ] {
            let pos = Position::from_fen(fen).unwrap().0;
            for ply in MAX_PLY - 4..=MAX_PLY {
                for depth in [0, 1, 3, 6] {
                    let mut w = worker_for(&pos);
                    let pv = w.negamax::<true>(&pos, -INFINITE, INFINITE, depth, ply);
                    let non_pv = w.negamax::<false>(&pos, -1, 0, depth, ply);
                    let q = w.qsearch::<true>(&pos, -INFINITE, INFINITE, ply);
                    for score in [pv, non_pv, q] {
                        assert!(score.abs() < INFINITE, "{fen} ply {ply} depth {depth}");
                    }
                    assert!(w.seldepth <= MAX_PLY + 1, "{fen} ply {ply}");
                    assert!(w.pv_len.iter().all(|&l| l <= MAX_PLY), "{fen} ply {ply}");
                }
            }
        }
    }
}
