//! The search: iterative deepening alpha-beta on a pool of threads sharing
//! one transposition table (Lazy SMP).
//!
//! Whoever starts a search receives its results as typed events through a
//! [`Reporter`]: the UCI front end prints them; `bench` and tests collect them.
//!
//! # Modules
//!
//! - [`pool`]: long-lived search threads fed over crossbeam channels; the
//!   main thread manages time and picks the move to play.
//! - [`worker`]: one thread's search (iterative deepening, the principal
//!   variation search, quiescence).
//! - [`tt`]: the lock-free transposition table.
//! - [`movepick`], [`history`]: staged move ordering and its statistics.
//! - [`see`]: static exchange evaluation.
//! - [`time`]: how long to think about a move.
//! - [`params`]: every tunable constant of the search and the time manager,
//!   each with its range, SPSA step and reason (tuned by `tests/tools/spsa.py`).
//! - [`strength`]: playing at a chosen rating (`UCI_LimitStrength`,
//!   `UCI_Elo`): a node budget and a choice among the best root lines.
//! - [`collect`]: the latest report of each MultiPV line and the move
//!   played, kept for callers that read a search's result at its end.
//! - [`mod@line`]: what a reported line may show: cut where the rules end the
//!   game (the game's history counted), an exact mate only with its line.
//! - [`mod@bench`]: the fixed node-count benchmark that commits quote.
//!
//! # The search
//!
//! Iterative deepening, with aspiration windows from depth 4 (a half-width
//! of 25 that widens by half on each failure). Principal variation search,
//! negamax, fail-soft. Quiescence searches captures and promotions and drops
//! captures that lose material by static exchange. Draws by repetition
//! (against the game history given by `position ... moves` and within the
//! search, also at the horizon), by the fifty-move rule and by insufficient
//! material.
//!
//! A node of the main search (`Worker::negamax`, the steps numbered in
//! comments there):
//!
//! 1. Horizon: drop into quiescence (a repetition is still a draw there).
//! 2. Stop checks, draws, ply limit, mate-distance pruning.
//! 3. Transposition table: cut off on a deep enough bound.
//! 4. Tablebases: after a capture or pawn move, cut off on the bound the
//!    tables prove (see [`crate::engine::tablebase`]).
//! 5. Internal iterative reduction (no hash move: one ply shallower); the
//!    static evaluation, corrected by the correction histories of the
//!    pawns, the pieces and the last moves ([`history`]), and whether it
//!    improves on two plies ago.
//! 6. Reverse futility pruning (a larger correction asks a larger margin).
//! 7. Null-move pruning, verified by a reduced search from depth 12
//!    (zugzwang).
//! 8. Singular extension from depth 8: when the table holds a lower or exact
//!    bound for the hash move at most 3 plies shallower, not a mate score and
//!    not 0 (a draw found below: no move is forced there, and in locked
//!    fortresses searched very deep the singular searches of draws made each
//!    iteration cost more than the last), the other moves are searched at
//!    half depth against the hash score minus 2 per ply. If all fail, the
//!    hash move is searched a ply deeper (two plies when they fail by 20
//!    more, at most 6 times on a path, not at PV nodes); if the reduced
//!    search reaches that bound and it is at least beta, the node is cut
//!    (multi-cut); if only the hash score beats beta, the hash move is
//!    searched a ply less deep.
//! 9. The move loop: static-exchange pruning of quiet moves and captures;
//!    late-move and futility pruning of quiet moves that do not give check
//!    (the static evaluation cannot see the mate a check may threaten);
//!    check extension; late-move reductions from `ln(depth) ln(moves)`,
//!    adjusted by history; PVS (the first move with the full window, the
//!    others with a null window and a re-search when they beat alpha).
//! 10. Mate or stalemate when no move was legal; history updates; the
//!     correction histories learn the error of the corrected evaluation
//!     (not in check, a quiet best move, a bound that says which way it
//!     erred);
//!     the result stored in the table (with the raw evaluation).
//!
//! Move ordering ([`movepick`]) is staged: the hash move before anything is
//! generated, captures and promotions that do not lose material by static
//! exchange (ordered by victim, capture history, attacker), killers, the
//! counter move, quiet
//! moves by butterfly and 1- and 2-ply continuation history with gravity
//! updates (quiet checks first), and last the captures that lose material.
//!
//! The transposition table ([`tt`]) is exactly `Hash` MiB of 64-byte
//! buckets of four entries, lock-free (an entry is stored as `key ^ data`
//! and `data`, so a torn entry is never trusted), with ages and
//! depth-and-age replacement; mate scores are stored relative to the node;
//! the bucket of a child, and its correction-history entries, are
//! prefetched as soon as the move to it is made (in quiescence too).
//!
//! Lazy SMP: helper threads search the same position, share the table and
//! keep their own histories; the move of the thread with the deepest
//! completed iteration is played (the best score among equals).
//!
//! The main thread reports each finished iteration's lines (and, after 3
//! seconds, the bounds of failed aspiration searches). The move played is
//! the chosen thread's first root move, which may be a line never reported:
//! a move that became best in the iteration the stop cut short, a helper's
//! line, or a one-move line whose reply comes from the table. Then it is
//! reported once more, just before the best move
//! ([`Reporter::final_line`]), with the depth its score is from and the
//! bound of that score, so that the last line always begins with the move
//! played; with MultiPV the thread's other lines follow it, best first,
//! so that no move begins two lines.
//!
//! Every line reported, and the ponder move, stops where the rules end the
//! game, the positions of the game before the root counted ([`mod@line`]): a
//! tournament manager replays each line on the game's board and warns of
//! a line that goes on after a threefold repetition, the fifty-move rule,
//! mate or stalemate. A mate score is reported exact only with a line that
//! ends in that mate after exactly its plies, and as a bound otherwise.
//!
//! With Syzygy tables loaded, the root moves are first restricted to those
//! that keep the tables' result (see [`crate::engine::tablebase`]).
//!
//! Every constant is in [`params`] with the reason it exists. A change to
//! the search is measured by games before it lands (CONTRIBUTING.md) and
//! its commit message quotes the new `bench` node count.

pub mod bench;
pub mod collect;
pub mod history;
pub mod line;
pub mod movepick;
pub mod params;
pub mod pool;
pub mod see;
pub mod strength;
pub mod time;
pub mod tt;
pub mod worker;

use crate::engine::chess::{Move, Position};
use crate::engine::tablebase::Wdl;
pub use collect::{Collector, Keep, Latest, LatestLine};
pub use pool::SearchPool;
pub use time::Clock;

pub use crate::engine::score::{INFINITE, MATE, MATE_BOUND, MAX_PLY, TB_WIN, mate_in};

/// The score of a tablebase result `ply` plies from the root. Cursed wins
/// and blessed losses are draws here: the caller applies the fifty-move
/// rule first when it counts.
pub fn tb_score(wdl: Wdl, ply: usize) -> i32 {
    match wdl {
        Wdl::Win => TB_WIN - ply as i32,
        Wdl::Loss => -TB_WIN + ply as i32,
        Wdl::CursedWin | Wdl::Draw | Wdl::BlessedLoss => 0,
    }
}

/// What `go` asks for, beyond the clock.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub clock: Clock,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// A soft node limit under `nodes` (the hard one): no iteration starts
    /// once this many nodes are searched, so the one that passes it is
    /// finished unless `nodes` cuts it (datagen's `--soft-nodes`).
    pub soft_nodes: Option<u64>,
    /// Stop once a mate in this many moves is proven.
    pub mate: Option<u32>,
    pub infinite: bool,
    pub ponder: bool,
    /// Search only these root moves (empty: all).
    pub searchmoves: Vec<Move>,
}

/// One limit on a search, as the tools that search position after
/// position take it (`analyse`, `annotate`, `epd`).
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

/// Settings that persist between searches (UCI options).
#[derive(Clone, Debug)]
pub struct SearchOptions {
    pub multipv: usize,
    pub move_overhead_ms: u64,
    /// Report `currmove` lines after this long.
    pub currmove_after_ms: u64,
    pub syzygy: SyzygyOptions,
    /// Play at this strength (`UCI_LimitStrength`): one thread, several
    /// root lines, the move drawn among them, and the node budget of the
    /// rating as a node limit beside [`Limits::nodes`] (see [`strength`]);
    /// `None` for full strength.
    pub strength: Option<strength::Strength>,
    /// The search's constants: the defaults, except in a tuning build
    /// (`--features tune`), whose UCI options set them.
    pub params: params::Params,
}

/// How the search uses the tablebases (the tables are the pool's).
#[derive(Copy, Clone, Debug)]
pub struct SyzygyOptions {
    /// Probe inside the tree only at this depth or more (`SyzygyProbeDepth`).
    pub probe_depth: i32,
    /// Probe only positions with at most this many pieces (`SyzygyProbeLimit`).
    pub probe_limit: usize,
    /// Count a win that the fifty-move rule frustrates as a draw
    /// (`Syzygy50MoveRule`).
    pub rule50: bool,
}

impl Default for SyzygyOptions {
    fn default() -> Self {
        SyzygyOptions {
            probe_depth: 1,
            probe_limit: 7,
            rule50: true,
        }
    }
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            multipv: 1,
            move_overhead_ms: 20,
            currmove_after_ms: 3000,
            syzygy: SyzygyOptions::default(),
            strength: None,
            params: params::Params::default(),
        }
    }
}

/// A position to search: the root and the keys of the positions that led
/// to it (oldest first, the root's own key not included), for repetitions.
#[derive(Clone, Debug)]
pub struct Job {
    pub root: Position,
    pub history: Vec<u64>,
    pub limits: Limits,
    pub options: SearchOptions,
}

/// Whether a reported score is exact or only a bound.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ScoreBound {
    Exact,
    Lower,
    Upper,
}

/// One completed (or, for bounds, interrupted) principal variation; or,
/// reported by [`Reporter::final_line`], a line of the thread whose move is
/// played.
#[derive(Clone, Debug)]
pub struct Iteration<'a> {
    /// The iteration the line comes from (for a final line, an unfinished
    /// one when its score is from that iteration).
    pub depth: u32,
    pub seldepth: u32,
    /// 1-based index of this line among the MultiPV lines.
    pub multipv: usize,
    /// `None` only in [`Reporter::final_line`], when the search stopped
    /// before any move was scored (`go nodes 1`, a `stop` at once): the
    /// move played was not searched, and `bound` means nothing.
    pub score: Option<i32>,
    /// An exact mate score comes with the line that ends in that mate;
    /// without it, the score is a bound (see [`mod@line`]).
    pub bound: ScoreBound,
    pub nodes: u64,
    pub time_ms: u64,
    pub hashfull: u32,
    /// Tablebase probes so far (root moves ranked, positions probed).
    pub tbhits: u64,
    /// The tables' result for this line's first move when the root is in
    /// them (the fifty-move rule applied when it counts).
    pub tb_wdl: Option<Wdl>,
    /// The line, cut after the first move after which the rules end the
    /// game (see [`mod@line`]).
    pub pv: &'a [Move],
}

/// Receives what a search finds.
pub trait Reporter: Send + Sync {
    fn iteration(&self, it: &Iteration);
    /// Just before [`Reporter::best_move`], when the line of the move
    /// played is not the last `multipv 1` line reported: that line, so that
    /// the last one reported begins with the move played and has the ponder
    /// move second, then with MultiPV the other lines of the same thread,
    /// best first, so that no move begins two of the lines last reported
    /// and they read in order as after a whole iteration. That happens
    /// when a move became best in an iteration that did not finish, when
    /// another thread's move is played, and when the ponder move comes from
    /// the hash table. Reported as an iteration unless a reporter says
    /// otherwise.
    fn final_line(&self, it: &Iteration) {
        self.iteration(it);
    }
    /// The root move now being searched (sent only after a while).
    fn current_move(&self, _depth: u32, _mv: Move, _number: usize) {}
    /// The end of the search: `None` when the root has no legal move.
    fn best_move(&self, best: Option<Move>, ponder: Option<Move>);
}

/// A reporter that ignores everything (bench, data generation).
pub struct Silent;

impl Reporter for Silent {
    fn iteration(&self, _it: &Iteration) {}
    fn best_move(&self, _best: Option<Move>, _ponder: Option<Move>) {}
}

/// The outcome of a search, for callers that wait for it.
#[derive(Clone, Debug, Default)]
pub struct SearchResult {
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub score: i32,
    pub depth: u32,
    pub nodes: u64,
    pub pv: Vec<Move>,
}

/// Hints the CPU to fetch the cache line that holds `r`, which the search
/// reads a little later (the table's bucket and the correction entries of
/// a node, as soon as the move to it is made).
#[inline(always)]
pub(crate) fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    // A prefetch never faults, and `r` is a live reference.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch(r as *const T as *const i8, _MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}

/// Nodes per second for `nodes` searched in `ms` milliseconds (at least
/// one). In u128 and saturating: `nodes * 1000` overflows u64 past 1.8e16
/// nodes, which long runs of fast machines with many threads approach.
pub fn nps(nodes: u64, ms: u64) -> u64 {
    let per_s = u128::from(nodes) * 1000 / u128::from(ms.max(1));
    u64::try_from(per_s).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nps_never_overflows() {
        assert_eq!(nps(2_124, 1_242), 1_710);
        assert_eq!(nps(1_000, 0), 1_000_000);
        assert_eq!(nps(u64::MAX, 1_000), u64::MAX);
        assert_eq!(nps(u64::MAX / 10, 3_600_000), u64::MAX / 36_000);
        assert_eq!(nps(u64::MAX, 1), u64::MAX);
    }
}
