//! The search threads: long-lived workers that receive jobs over channels.
//!
//! Worker 0 is the main thread: it manages time, reports, waits for `stop`
//! or `ponderhit` after an infinite or ponder search, stops the helpers,
//! picks the best thread's move and reports it. Helpers search the same
//! position and share only the transposition table (Lazy SMP).

use super::collect::{Collector, Keep};
use super::line;
use super::tt::TranspositionTable;
use super::worker::{PaddedCounter, Shared, ThreadResult, Worker};
use super::{Iteration, Job, Reporter, SearchResult};
use crate::engine::chess::Move;
use crate::engine::tablebase::{RootRanking, Tablebases, Wdl};
use crossbeam_channel::{Receiver, Sender, unbounded};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

enum Message {
    Search(
        Arc<Shared>,
        Option<Sender<ThreadResult>>,
        Vec<Receiver<ThreadResult>>,
    ),
    ClearHistory,
    Quit,
}

struct Handle {
    tx: Sender<Message>,
    join: Option<JoinHandle<()>>,
}

/// Deep recursion with positions on the stack needs more than the default.
const STACK_BYTES: usize = 64 << 20;

pub struct SearchPool {
    tt: Arc<TranspositionTable>,
    workers: Vec<Handle>,
    stop: Arc<AtomicBool>,
    pondering: Arc<AtomicBool>,
    /// Set by the main worker just before it reports the best move: from
    /// then on the search no longer counts as running, though `finished`
    /// may come a moment later.
    answered: Arc<AtomicBool>,
    /// Signalled by the main worker when a search has ended.
    finished_rx: Receiver<()>,
    finished_tx: Sender<()>,
    searching: bool,
    /// Syzygy tables, loaded by the UCI thread; read-only while searching.
    tb: Option<Arc<Tablebases>>,
}

impl SearchPool {
    pub fn new(hash_mb: usize, threads: usize) -> Result<SearchPool, String> {
        let (finished_tx, finished_rx) = unbounded();
        let mut pool = SearchPool {
            tt: Arc::new(TranspositionTable::new(hash_mb)?),
            workers: Vec::new(),
            stop: Arc::new(AtomicBool::new(false)),
            pondering: Arc::new(AtomicBool::new(false)),
            answered: Arc::new(AtomicBool::new(false)),
            finished_rx,
            finished_tx,
            searching: false,
            tb: None,
        };
        pool.set_threads(threads)?;
        Ok(pool)
    }

    pub fn threads(&self) -> usize {
        self.workers.len()
    }

    /// Whether a search is running. One that has reported its best move
    /// does not count: a GUI may send `setoption` the moment it reads
    /// `bestmove`, before the main worker has signalled `finished` (the
    /// callers that then touch the table wait for that signal first).
    pub fn is_searching(&mut self) -> bool {
        if self.searching && self.finished_rx.try_recv().is_ok() {
            self.searching = false;
        }
        self.searching && !self.answered.load(Ordering::SeqCst)
    }

    pub fn tt(&self) -> &TranspositionTable {
        &self.tt
    }

    /// Changes the number of threads (waits for a running search first).
    pub fn set_threads(&mut self, threads: usize) -> Result<(), String> {
        self.stop();
        self.wait();
        let threads = threads.max(1);
        while self.workers.len() > threads {
            if let Some(mut h) = self.workers.pop() {
                let _ = h.tx.send(Message::Quit);
                if let Some(j) = h.join.take() {
                    let _ = j.join();
                }
            }
        }
        while self.workers.len() < threads {
            let id = self.workers.len();
            let (tx, rx) = unbounded::<Message>();
            let finished = self.finished_tx.clone();
            let join = std::thread::Builder::new()
                .name(format!("search-{id}"))
                .stack_size(STACK_BYTES)
                .spawn(move || worker_loop(id, rx, finished))
                .map_err(|e| format!("cannot start search thread {id}: {e}"))?;
            self.workers.push(Handle {
                tx,
                join: Some(join),
            });
        }
        Ok(())
    }

    /// Replaces the hash table; on failure the old one is kept as it is.
    /// Both tables are in memory for a moment (the new one is zeroed when
    /// allocated), so the new one must fit beside the old one: to grow a
    /// table that leaves no room for that, set a small size first.
    pub fn resize_hash(&mut self, mb: usize) -> Result<(), String> {
        self.stop();
        self.wait();
        let tt = TranspositionTable::new(mb)?;
        self.tt = Arc::new(tt);
        Ok(())
    }

    /// The tables later searches use (`None`: none). A running search keeps
    /// the ones it started with.
    pub fn set_tablebases(&mut self, tb: Option<Arc<Tablebases>>) {
        self.tb = tb;
    }

    /// Empties the hash table and every thread's histories (`ucinewgame`).
    pub fn clear(&mut self) {
        self.stop();
        self.wait();
        self.tt.clear(self.workers.len());
        for w in &self.workers {
            let _ = w.tx.send(Message::ClearHistory);
        }
    }

    /// Starts a search and returns at once; results go to `reporter`.
    pub fn start(&mut self, job: Job, reporter: Arc<dyn Reporter>) {
        self.stop();
        self.wait();
        self.stop.store(false, Ordering::SeqCst);
        self.pondering.store(job.limits.ponder, Ordering::SeqCst);
        self.answered.store(false, Ordering::SeqCst);
        self.tt.new_search();
        let (tb_root, tb_pieces) = tablebase_setup(self.tb.as_deref(), &job);
        let tbhits = tb_root.as_ref().map_or(0, |r| r.moves.len() as u64);
        let shared = Arc::new(Shared {
            job,
            tt: Arc::clone(&self.tt),
            stop: Arc::clone(&self.stop),
            pondering: Arc::clone(&self.pondering),
            answered: Arc::clone(&self.answered),
            nodes: (0..self.workers.len())
                .map(|_| PaddedCounter::default())
                .collect(),
            reporter,
            start: Instant::now(),
            tb: self.tb.clone(),
            tb_root,
            tb_pieces,
            tbhits: AtomicU64::new(tbhits),
            reported: Mutex::new(Vec::new()),
            reported_nodes: AtomicU64::new(0),
            net: crate::engine::nnue::active(),
        });
        // A weakened search runs on the main thread alone (see
        // `strength`): its node budget is then exact, its move reproducible.
        let threads = if shared.job.options.strength.is_some() {
            1
        } else {
            self.workers.len()
        };
        // Each helper gets a channel to hand its result to the main worker.
        let mut receivers = Vec::new();
        let mut senders = Vec::new();
        for _ in 1..threads {
            let (tx, rx) = unbounded();
            senders.push(tx);
            receivers.push(rx);
        }
        self.searching = true;
        for (i, w) in self.workers[..threads].iter().enumerate().rev() {
            let msg = if i == 0 {
                Message::Search(Arc::clone(&shared), None, std::mem::take(&mut receivers))
            } else {
                Message::Search(Arc::clone(&shared), senders.pop(), Vec::new())
            };
            let _ = w.tx.send(msg);
        }
    }

    /// Asks the search to end now (it still reports its best move).
    pub fn stop(&self) {
        self.pondering.store(false, Ordering::SeqCst);
        self.stop.store(true, Ordering::SeqCst);
    }

    /// The opponent played the expected move: the ponder search becomes a
    /// normal timed search.
    pub fn ponderhit(&self) {
        self.pondering.store(false, Ordering::SeqCst);
    }

    /// Blocks until the running search (if any) has reported its best move.
    pub fn wait(&mut self) {
        if self.searching {
            let _ = self.finished_rx.recv();
            self.searching = false;
        }
    }

    /// Waits at most `timeout` for the running search to end; true once it
    /// has (or when none runs), its best move reported.
    pub fn wait_timeout(&mut self, timeout: Duration) -> bool {
        if self.searching && self.finished_rx.recv_timeout(timeout).is_ok() {
            self.searching = false;
        }
        !self.searching
    }

    /// Searches and waits for the result, reporting nothing: the last
    /// scored iteration of the first line, and the move played. Final
    /// lines are kept out: the result stays the last iteration's, as data
    /// generation has always labelled its positions (the same seed gives
    /// the same data).
    pub fn search(&mut self, job: Job) -> SearchResult {
        let collector = Arc::new(Collector::new(Keep {
            unscored: false,
            final_lines: false,
        }));
        self.start(job, collector.clone());
        self.wait();
        let latest = collector.latest();
        let mut result = SearchResult {
            best: latest.best,
            ponder: latest.ponder,
            ..SearchResult::default()
        };
        if let Some(line) = latest.line(1) {
            result.score = line.score.unwrap_or_default();
            result.depth = line.depth;
            result.nodes = line.nodes;
            result.pv = line.pv.clone();
        }
        result
    }
}

impl Drop for SearchPool {
    fn drop(&mut self) {
        self.stop();
        self.wait();
        for w in &self.workers {
            let _ = w.tx.send(Message::Quit);
        }
        for w in &mut self.workers {
            if let Some(j) = w.join.take() {
                let _ = j.join();
            }
        }
    }
}

/// Ranks the root moves by the tables when the root is in them, and says up
/// to how many pieces the search probes inside the tree: none once DTZ has
/// ranked the root (the ranking already keeps the result, and equal WDL
/// scores inside the tree would hide the way to mate), nor when WDL ranked
/// it and there is no win to keep.
fn tablebase_setup(tb: Option<&Tablebases>, job: &Job) -> (Option<RootRanking>, u32) {
    let Some(tb) = tb else {
        return (None, 0);
    };
    let opts = job.options.syzygy;
    let pieces = tb.max_pieces().min(opts.probe_limit) as u32;
    if job.root.occupied().count() > pieces {
        return (None, pieces);
    }
    let moves: Vec<Move> = job
        .root
        .legal_moves()
        .into_iter()
        .filter(|m| job.limits.searchmoves.is_empty() || job.limits.searchmoves.contains(m))
        .collect();
    match tb.rank_root(&job.root, &moves, opts.rule50) {
        Some(r) => {
            let winning = r.moves.first().is_some_and(|m| m.wdl == Wdl::Win);
            let pieces = if r.by_dtz || !winning { 0 } else { pieces };
            (Some(r), pieces)
        }
        None => (None, pieces),
    }
}

fn worker_loop(id: usize, rx: Receiver<Message>, finished: Sender<()>) {
    let mut worker = Worker::new(id);
    while let Ok(msg) = rx.recv() {
        match msg {
            Message::Quit => break,
            Message::ClearHistory => worker.hist.clear(),
            Message::Search(shared, to_main, from_helpers) => {
                let result = worker.run(Arc::clone(&shared));
                match to_main {
                    Some(tx) => {
                        let _ = tx.send(result);
                    }
                    None => {
                        finish_main(&shared, result, &from_helpers);
                        let _ = finished.send(());
                    }
                }
            }
        }
    }
}

/// The main thread's end of a search: wait for permission to answer,
/// stop and collect the helpers, choose the best move and report it.
fn finish_main(shared: &Shared, main: ThreadResult, helpers: &[Receiver<ThreadResult>]) {
    // In infinite mode the answer waits for stop; while pondering, for
    // stop or ponderhit (both end pondering), also when a node limit has
    // already ended the search.
    while shared.pondering.load(Ordering::SeqCst)
        || (shared.job.limits.infinite && !shared.stop.load(Ordering::SeqCst))
    {
        std::thread::sleep(Duration::from_millis(1));
    }
    shared.stop.store(true, Ordering::SeqCst);
    let mut results = vec![main];
    for rx in helpers {
        if let Ok(r) = rx.recv() {
            results.push(r);
        }
    }
    let weakened = weakened_choice(shared, &results[0]);
    let best = weakened.as_ref().unwrap_or_else(|| pick_best(&results));
    let best_move = best.root_moves.first().map(|rm| rm.mv);
    let ponder = best
        .root_moves
        .first()
        .and_then(|rm| rm.pv.get(1).copied())
        .or_else(|| {
            // No reply in the line: ask the table what follows the best move.
            let m = best_move?;
            let mut pos = shared.job.root.clone();
            pos.play(m);
            let hit = shared.tt.probe(pos.key(), 1)?;
            pos.is_legal(hit.mv).then_some(hit.mv)
        })
        // None when the best move ends the game (a threefold repetition,
        // say, which the table's entry for that position knows nothing of).
        .filter(|&p| {
            best_move.is_some_and(|m| {
                line::playable(&shared.job.root, &shared.job.history, &[m, p]).0 == 2
            })
        });
    report_final_lines(shared, best, ponder);
    // The helpers are done: the search is over before the GUI can know.
    shared.answered.store(true, Ordering::SeqCst);
    shared.reporter.best_move(best_move, ponder);
}

/// Reports the line of the move about to be played (the best thread's
/// first root move, with the ponder move second) unless it is the last
/// `multipv 1` line reported and no node was searched since, so that the
/// GUI's last PV is what is played and its node count the search's.
/// With MultiPV the thread's other lines follow (those with a score): the
/// move played may begin another line reported before, and a GUI shows
/// the last line of each number. They follow best first by the score
/// printed: a search stopped inside an iteration has scored some of them
/// there and left the others with the last iteration's score, so the
/// thread's order of its root moves is not the order of their scores.
/// (The first line stays the move played, as README promises, whatever
/// its score: with a strength limit it is not the best.)
/// Each line is shown as [`mod@line`] says: cut where the game ends, a
/// mate exact only with its line.
fn report_final_lines(shared: &Shared, best: &ThreadResult, ponder: Option<Move>) {
    let Some(first) = best.root_moves.first() else {
        return;
    };
    let mut played = first.pv.clone();
    if played.len() == 1 {
        // The ponder move came from the hash table.
        played.extend(ponder);
    }
    let first_shown = shared.shown(&played, first.reported_score(), first.reported_bound());
    played.truncate(first_shown.len);
    let nodes = shared.total_nodes();
    let same = match shared.reported.lock() {
        Ok(r) => *r == played,
        Err(p) => *p.into_inner() == played,
    };
    if same && shared.reported_nodes.load(Ordering::Relaxed) == nodes {
        return;
    }
    let multipv = shared.job.options.multipv.clamp(1, best.root_moves.len());
    let time_ms = shared.start.elapsed().as_millis() as u64;
    let hashfull = shared.tt.hashfull();
    let tbhits = shared.tbhits.load(Ordering::Relaxed);
    // Indices into the root moves, the move played first; stable, so that
    // equal scores keep the thread's order, and unscored lines come last.
    let mut order: Vec<usize> = (0..multipv).collect();
    order[1..].sort_by_key(|&i| std::cmp::Reverse(best.root_moves[i].reported_score()));
    for (line, &i) in order.iter().enumerate() {
        let rm = &best.root_moves[i];
        let score = rm.reported_score();
        if line > 0 && score.is_none() {
            continue;
        }
        let (pv, shown) = if i == 0 {
            (&played[..], first_shown)
        } else {
            let shown = shared.shown(&rm.pv, score, rm.reported_bound());
            (&rm.pv[..shown.len], shown)
        };
        shared.reporter.final_line(&Iteration {
            depth: best.line_depth(i),
            seldepth: rm.seldepth.max(1) as u32,
            multipv: line + 1,
            score,
            bound: shown.bound,
            nodes,
            time_ms,
            hashfull,
            tbhits,
            tb_wdl: rm.tb_wdl,
            pv,
        });
    }
}

/// With a strength limit, the main thread's result with the lines of its
/// last completed iteration as root moves, the one chosen first (then the
/// others, best first): what is played and reported. `None` at full
/// strength, before any iteration was completed, and when the tables rank
/// the root (their best moves are played as at full strength).
fn weakened_choice(shared: &Shared, main: &ThreadResult) -> Option<ThreadResult> {
    let strength = shared.job.options.strength?;
    if main.lines.is_empty() || shared.tb_root.is_some() {
        return None;
    }
    let scores: Vec<i32> = main.lines.iter().map(|rm| rm.final_score()).collect();
    let chosen = strength.pick(&scores);
    let mut lines = main.lines.clone();
    let first = lines.remove(chosen);
    lines.insert(0, first);
    Some(ThreadResult {
        depth: main.depth,
        // The lines' scores are all from the completed iteration.
        iteration: main.depth,
        root_moves: lines,
        lines: Vec::new(),
    })
}

/// The deepest completed search wins; among equals, the better score.
fn pick_best(results: &[ThreadResult]) -> &ThreadResult {
    let mut best = &results[0];
    for r in &results[1..] {
        let (Some(a), Some(b)) = (r.root_moves.first(), best.root_moves.first()) else {
            continue;
        };
        if r.depth > best.depth || (r.depth == best.depth && a.final_score() > b.final_score()) {
            best = r;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::chess::Position;
    use crate::engine::search::tt;
    use crate::engine::search::worker::RootMove;
    use crate::engine::search::{INFINITE, Limits, ScoreBound, SearchOptions};

    /// One line reported: multipv, depth, score, bound, pv in UCI.
    type Reported = (usize, u32, Option<i32>, ScoreBound, String);

    /// Every line reported.
    #[derive(Default)]
    struct Lines(Mutex<Vec<Reported>>);

    impl Reporter for Lines {
        fn iteration(&self, it: &Iteration) {
            let pv: Vec<String> = it.pv.iter().map(|m| m.uci(false).to_string()).collect();
            self.0
                .lock()
                .unwrap()
                .push((it.multipv, it.depth, it.score, it.bound, pv.join(" ")));
        }
        fn best_move(&self, _best: Option<Move>, _ponder: Option<Move>) {}
    }

    fn shared(multipv: usize, reported: &[Move], lines: Arc<Lines>) -> Shared {
        let options = SearchOptions {
            multipv,
            ..SearchOptions::default()
        };
        shared_for(Position::startpos(), Vec::new(), options, reported, lines)
    }

    /// The shared state of a search of `root` after the positions of
    /// `history`, reporting to `reporter`.
    fn shared_for(
        root: Position,
        history: Vec<u64>,
        options: SearchOptions,
        reported: &[Move],
        reporter: Arc<dyn Reporter>,
    ) -> Shared {
        Shared {
            job: Job {
                root,
                history,
                limits: Limits::default(),
                options,
            },
            tt: Arc::new(TranspositionTable::new(1).unwrap()),
            stop: Arc::new(AtomicBool::new(false)),
            pondering: Arc::new(AtomicBool::new(false)),
            answered: Arc::new(AtomicBool::new(false)),
            nodes: vec![PaddedCounter::default()],
            reporter,
            start: Instant::now(),
            tb: None,
            tb_root: None,
            tb_pieces: 0,
            tbhits: AtomicU64::new(0),
            reported: Mutex::new(reported.to_vec()),
            reported_nodes: AtomicU64::new(0),
            net: crate::engine::nnue::active(),
        }
    }

    /// A root move with its line (UCI, from the start position), the score
    /// of this iteration and of the last, and its bound.
    fn root_move(line: &str, score: i32, prev_score: i32, bound: ScoreBound) -> RootMove {
        let mut pos = Position::startpos();
        let pv: Vec<Move> = line
            .split_whitespace()
            .map(|t| {
                let m = pos.parse_uci_move(t).unwrap();
                pos.play(m);
                m
            })
            .collect();
        RootMove {
            mv: pv[0],
            score,
            prev_score,
            pv,
            seldepth: 9,
            bound,
            tb_wdl: None,
            nodes: 0,
        }
    }

    /// Stopped in iteration 8 of a MultiPV 3 search after its first line
    /// (e2e4, a lower bound there): the last `multipv 1` line reported was
    /// d2d4's, so e2e4's is reported, then the thread's other lines,
    /// iteration 7's, so that no move begins two of the lines a GUI shows
    /// (a2a3, never scored, is no line). Nothing is reported when the line
    /// played is the last reported.
    #[test]
    fn the_final_lines_are_the_played_threads() {
        let result = ThreadResult {
            depth: 7,
            iteration: 8,
            root_moves: vec![
                root_move("e2e4 e7e5 g1f3", 40, 20, ScoreBound::Lower),
                root_move("d2d4 d7d5", -INFINITE, 30, ScoreBound::Exact),
                root_move("c2c4", -INFINITE, 10, ScoreBound::Exact),
                root_move("a2a3", -INFINITE, -INFINITE, ScoreBound::Exact),
            ],
            lines: Vec::new(),
        };
        let d2d4 = result.root_moves[1].pv.clone();
        let lines = Arc::new(Lines::default());
        report_final_lines(&shared(3, &d2d4, lines.clone()), &result, None);
        let got = lines.0.lock().unwrap().clone();
        assert_eq!(
            got,
            [
                (1, 8, Some(40), ScoreBound::Lower, "e2e4 e7e5 g1f3".into()),
                (2, 7, Some(30), ScoreBound::Exact, "d2d4 d7d5".into()),
                (3, 7, Some(10), ScoreBound::Exact, "c2c4".into()),
            ]
        );

        // MultiPV 1, a one-move line and a ponder move from the table.
        let e2e4 = result.root_moves[0].pv.clone();
        let e7e5 = e2e4[1];
        let mut one = result.clone();
        one.root_moves[0].pv.truncate(1);
        let lines = Arc::new(Lines::default());
        report_final_lines(&shared(1, &e2e4[..1], lines.clone()), &one, Some(e7e5));
        let got = lines.0.lock().unwrap().clone();
        assert_eq!(
            got,
            [(1, 8, Some(40), ScoreBound::Lower, "e2e4 e7e5".into())]
        );

        // The line played is the one last reported: nothing more.
        let lines = Arc::new(Lines::default());
        report_final_lines(&shared(3, &e2e4, lines.clone()), &result, Some(e7e5));
        assert!(lines.0.lock().unwrap().is_empty());
        // Unless nodes were searched after it: then again, with the total.
        let lines = Arc::new(Lines::default());
        let sh = shared(1, &e2e4, lines.clone());
        sh.nodes[0].0.store(7465, Ordering::Relaxed);
        sh.reported_nodes.store(5000, Ordering::Relaxed);
        report_final_lines(&sh, &result, Some(e7e5));
        assert_eq!(
            lines.0.lock().unwrap().clone(),
            [(1, 8, Some(40), ScoreBound::Lower, "e2e4 e7e5 g1f3".into())]
        );

        // Nothing scored yet (stopped in iteration 1): the first move, no
        // score, and no other line.
        let mut none = result.clone();
        none.depth = 0;
        none.iteration = 1;
        for rm in &mut none.root_moves {
            rm.score = -INFINITE;
            rm.prev_score = -INFINITE;
            rm.pv.truncate(1);
        }
        let lines = Arc::new(Lines::default());
        report_final_lines(&shared(3, &[], lines.clone()), &none, None);
        let got = lines.0.lock().unwrap().clone();
        assert_eq!(got, [(1, 1, None, ScoreBound::Exact, "e2e4".into())]);
    }

    /// Stopped in iteration 8 of a MultiPV 3 search inside its third line,
    /// after the second came out at 15 (from 30): c2c4, not reached, still
    /// has iteration 7's 20, so it is printed before d2d4, best first, and
    /// each line keeps the depth of its score. The line played stays
    /// first even below another line's score.
    #[test]
    fn the_other_final_lines_come_best_first() {
        let result = ThreadResult {
            depth: 7,
            iteration: 8,
            root_moves: vec![
                root_move("e2e4 e7e5", 40, 35, ScoreBound::Exact),
                root_move("d2d4 d7d5", 15, 30, ScoreBound::Exact),
                root_move("c2c4 e7e5", -INFINITE, 20, ScoreBound::Exact),
                root_move("a2a3", -INFINITE, -INFINITE, ScoreBound::Exact),
            ],
            lines: Vec::new(),
        };
        let lines = Arc::new(Lines::default());
        report_final_lines(&shared(3, &[], lines.clone()), &result, None);
        assert_eq!(
            lines.0.lock().unwrap().clone(),
            [
                (1, 8, Some(40), ScoreBound::Exact, "e2e4 e7e5".into()),
                (2, 7, Some(20), ScoreBound::Exact, "c2c4 e7e5".into()),
                (3, 8, Some(15), ScoreBound::Exact, "d2d4 d7d5".into()),
            ]
        );

        // The move played first even when another line scores more.
        let mut low = result.clone();
        low.root_moves[0].score = 10;
        let lines = Arc::new(Lines::default());
        report_final_lines(&shared(2, &[], lines.clone()), &low, None);
        assert_eq!(
            lines.0.lock().unwrap().clone(),
            [
                (1, 8, Some(10), ScoreBound::Exact, "e2e4 e7e5".into()),
                (2, 8, Some(15), ScoreBound::Exact, "d2d4 d7d5".into()),
            ]
        );
    }

    /// The case a 240-game soak against Ethereal 12 drew 14 fastchess
    /// warnings for ("PV continues after threefold repetition"): the
    /// position after 1. Nf3 occurred twice in the game, and White's
    /// knight, back from h4, brings it about a third time. The search's
    /// line is that one move (the repetition scores 0 and ends it), and the
    /// table holds a move for the position after it from when that was
    /// searched before: it is no ponder move, and the line printed again
    /// before the best move is the one move. Without the history the same
    /// table move is the ponder move, and the line's second move.
    #[test]
    fn no_ponder_move_after_a_threefold_repetition() {
        let mut root = Position::startpos();
        let mut history = Vec::new();
        for text in "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3h4 f6g8".split(' ') {
            let m = root.parse_uci_move(text).unwrap();
            history.push(root.key());
            root.play(m);
        }
        let h4f3 = root.parse_uci_move("h4f3").unwrap();
        let mut after = root.clone();
        after.play(h4f3);
        let d7d5 = after.parse_uci_move("d7d5").unwrap();
        let result = ThreadResult {
            depth: 9,
            iteration: 10,
            root_moves: vec![RootMove {
                mv: h4f3,
                score: -INFINITE,
                prev_score: 0,
                pv: vec![h4f3],
                seldepth: 9,
                bound: ScoreBound::Exact,
                tb_wdl: None,
                nodes: 0,
            }],
            lines: Vec::new(),
        };
        let uci = |pv: &[Move]| {
            pv.iter()
                .map(|m| m.uci(false).to_string())
                .collect::<Vec<_>>()
        };
        for (history, pv, ponder) in [
            (history.clone(), vec!["h4f3"], None),
            (Vec::new(), vec!["h4f3", "d7d5"], Some(d7d5)),
        ] {
            let collector = Arc::new(Collector::default());
            let sh = shared_for(
                root.clone(),
                history,
                SearchOptions::default(),
                &[h4f3],
                collector.clone(),
            );
            sh.nodes[0].0.store(5000, Ordering::Relaxed);
            sh.tt
                .store(after.key(), 0, d7d5, 0, 0, 8, tt::Bound::Exact, true);
            finish_main(&sh, result.clone(), &[]);
            let latest = collector.latest();
            let last = latest.line(1).unwrap();
            assert_eq!(uci(&last.pv), pv);
            assert_eq!((last.score, last.depth, last.nodes), (Some(0), 9, 5000));
            assert_eq!((latest.best, latest.ponder), (Some(h4f3), ponder));
        }
    }

    /// With a strength limit the move is drawn among the lines of the last
    /// completed iteration (depth 6 here; iteration 7 was cut short, its
    /// scores are not used): at 1350, seed 1 draws 0.567 of the total
    /// weight of lines 0, -50 and -150 (the fourth, 900 worse, is out), so
    /// the second line is played and reported first, the others after it
    /// best first, with their depth-6 scores. The first line is played
    /// when a mate is found, and nothing changes at full strength or
    /// before an iteration was completed.
    #[test]
    fn the_weakened_choice_is_played_and_reported() {
        use crate::engine::search::{MATE, strength::Strength};
        let lines = vec![
            root_move("e2e4 e7e5 g1f3", 40, 20, ScoreBound::Exact),
            root_move("d2d4 d7d5", -10, 30, ScoreBound::Exact),
            root_move("c2c4 e7e5", -110, 10, ScoreBound::Exact),
            root_move("a2a3 e7e5", -860, 10, ScoreBound::Exact),
        ];
        let main = ThreadResult {
            depth: 6,
            iteration: 7,
            root_moves: lines.iter().rev().cloned().collect(),
            lines: lines.clone(),
        };
        let reported = Arc::new(Lines::default());
        let mut sh = shared(3, &lines[0].pv, reported.clone());
        assert!(weakened_choice(&sh, &main).is_none());
        sh.job.options.strength = Some(Strength { elo: 1350, seed: 1 });
        let chosen = weakened_choice(&sh, &main).unwrap();
        let order: Vec<Move> = chosen.root_moves.iter().map(|rm| rm.mv).collect();
        assert_eq!(order, [lines[1].mv, lines[0].mv, lines[2].mv, lines[3].mv]);
        report_final_lines(&sh, &chosen, None);
        assert_eq!(
            reported.0.lock().unwrap().clone(),
            [
                (1, 6, Some(-10), ScoreBound::Exact, "d2d4 d7d5".into()),
                (2, 6, Some(40), ScoreBound::Exact, "e2e4 e7e5 g1f3".into()),
                (3, 6, Some(-110), ScoreBound::Exact, "c2c4 e7e5".into()),
            ]
        );

        let mut mate = main.clone();
        mate.lines[0].score = MATE - 3;
        let chosen = weakened_choice(&sh, &mate).unwrap();
        assert_eq!(chosen.root_moves[0].mv, lines[0].mv);

        let mut none = main.clone();
        none.lines.clear();
        assert!(weakened_choice(&sh, &none).is_none());
    }
}
