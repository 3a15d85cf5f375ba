//! The search through the library API: mates found at their exact
//! distance, draws by stalemate, repetition and the fifty-move rule,
//! MultiPV, node and depth limits, the transposition table never handing
//! out an illegal move, several threads, and `searchmoves`.
//!
//! Every position with a known score was checked with Stockfish 15.1
//! (`go depth 20` or deeper; for the mates of three moves or more, every
//! root move searched alone with `searchmoves`, to know which first moves
//! reach the same mate); the comment above each gives what it reported.
//! Searches are bounded by depth or nodes, never by time, so that results
//! do not depend on the machine's speed.

use forsyth::engine::chess::{Move, Position};
use forsyth::engine::search::{
    Iteration, Job, Limits, MATE, Reporter, ScoreBound, SearchOptions, SearchPool, SearchResult,
    mate_in,
};
use std::sync::{Arc, Mutex};
use std::time::Duration;

// ---------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------

const STARTPOS: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
/// Italian game after 1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6: quiet and level.
const ITALIAN: &str = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";
/// Queen's Gambit Declined: quiet and level.
const QGD: &str = "rnbqkb1r/ppp2ppp/4pn2/3p4/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 2 4";

fn position(fen: &str) -> Position {
    match Position::from_fen(fen) {
        Ok((pos, _)) => pos,
        Err(e) => panic!("bad test FEN {fen}: {e}"),
    }
}

fn uci_move(pos: &Position, text: &str) -> Move {
    pos.parse_uci_move(text)
        .unwrap_or_else(|e| panic!("{text} in {}: {e}", pos.fen()))
}

fn job(root: &Position, limits: Limits) -> Job {
    Job {
        root: root.clone(),
        history: Vec::new(),
        limits,
        options: SearchOptions::default(),
    }
}

fn depth_limit(depth: u32) -> Limits {
    Limits {
        depth: Some(depth),
        ..Limits::default()
    }
}

fn pool(threads: usize) -> SearchPool {
    SearchPool::new(16, threads).expect("a 16 MB table")
}

/// Searches `root` to `depth` with a fresh one-thread pool.
fn search_depth(root: &Position, depth: u32) -> SearchResult {
    pool(1).search(job(root, depth_limit(depth)))
}

/// Plays `line` from `root`, asserting that each move is legal and is one
/// of the moves the generator lists; returns the final position.
fn play_line(root: &Position, line: &[Move], what: &str) -> Position {
    let mut pos = root.clone();
    for (i, &m) in line.iter().enumerate() {
        assert!(
            pos.is_legal(m) && pos.legal_moves().contains(&m),
            "{what}: move {i} ({m:?}) of {line:?} is illegal in {}",
            pos.fen()
        );
        pos.play(m);
    }
    pos
}

fn is_checkmate(pos: &Position) -> bool {
    pos.in_check() && pos.count_legal() == 0
}

/// Checks the best move, the ponder move and the PV of a finished search.
fn assert_result_legal(root: &Position, r: &SearchResult, what: &str) {
    let best = r
        .best
        .unwrap_or_else(|| panic!("{what}: no best move in {}", root.fen()));
    play_line(root, &[best], what);
    if let Some(p) = r.ponder {
        play_line(root, &[best, p], what);
    }
    play_line(root, &r.pv, what);
}

/// One `iteration` report.
#[derive(Clone, Debug)]
struct Line {
    depth: u32,
    multipv: usize,
    /// `None` only for a final line of a search stopped before any move
    /// was scored.
    score: Option<i32>,
    bound: ScoreBound,
    nodes: u64,
    pv: Vec<Move>,
}

#[derive(Clone, Debug)]
enum Event {
    Line(Line),
    Best(Option<Move>, Option<Move>),
}

/// A reporter that keeps every event in order.
#[derive(Default)]
struct Recorder {
    events: Mutex<Vec<Event>>,
}

impl Reporter for Recorder {
    fn iteration(&self, it: &Iteration) {
        self.events.lock().unwrap().push(Event::Line(Line {
            depth: it.depth,
            multipv: it.multipv,
            score: it.score,
            bound: it.bound,
            nodes: it.nodes,
            pv: it.pv.to_vec(),
        }));
    }

    fn best_move(&self, best: Option<Move>, ponder: Option<Move>) {
        self.events.lock().unwrap().push(Event::Best(best, ponder));
    }
}

impl Recorder {
    fn lines(&self) -> Vec<Line> {
        let events = self.events.lock().unwrap();
        events
            .iter()
            .filter_map(|e| match e {
                Event::Line(l) => Some(l.clone()),
                Event::Best(..) => None,
            })
            .collect()
    }

    fn bests(&self) -> Vec<(Option<Move>, Option<Move>)> {
        let events = self.events.lock().unwrap();
        events
            .iter()
            .filter_map(|e| match e {
                Event::Best(b, p) => Some((*b, *p)),
                Event::Line(_) => None,
            })
            .collect()
    }

    /// Whether anything was reported after the best move.
    fn anything_after_best(&self) -> bool {
        let events = self.events.lock().unwrap();
        match events.iter().position(|e| matches!(e, Event::Best(..))) {
            Some(i) => i + 1 < events.len(),
            None => false,
        }
    }
}

/// Starts `job` on `pool` with a recorder and waits for the end.
fn record(pool: &mut SearchPool, job: Job) -> Arc<Recorder> {
    let rec = Arc::new(Recorder::default());
    pool.start(job, rec.clone());
    pool.wait();
    rec
}

// ---------------------------------------------------------------------
// 1. Mates at their exact distance
// ---------------------------------------------------------------------

/// The UCI text of a move on the board turned top to bottom.
fn mirror_uci(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '1'..='8' => (b'9' - c as u8 + b'0') as char,
            _ => c,
        })
        .collect()
}

/// Searches `fen` to depth 2|n|+2 and checks that the score is mate in `n`
/// moves (negative: the side to move is mated), that the best move is one
/// of `first` (UCI; king-takes-rook for castling), and that the PV is
/// legal. The same is checked on the mirrored position, colours swapped.
/// Mates that begin with checks losing material by static exchange (queen
/// or rook sacrifices) show up deeper: near the leaves the search prunes
/// such checks, as it must to be strong, so the mate needs more depth than
/// its length. These searches still take well under a second.
const SACRIFICE_DEPTH: u32 = 24;
/// Rook and knight against a bare king: the mates are quiet king and
/// knight moves, which the search prunes near the leaves while the static
/// score is far above beta. With the values learned from run2 (smaller
/// endgame values of rook and knight, a low phase) the shortest mate is
/// found at depth 16 (mate in 4 at depths 12 and 14), in its mirror at
/// depth 20 (move order differs), not at 8 as before; a few milliseconds.
const QUIET_MATE_DEPTH: u32 = 20;

fn assert_mate(fen: &str, n: i32, first: &[&str]) {
    assert_mate_at(fen, n, first, 2 * n.unsigned_abs() + 2);
}

fn assert_mate_at(fen: &str, n: i32, first: &[&str], depth: u32) {
    let root = position(fen);
    let mirror = root.mirrored();
    let mirrored_first: Vec<String> = first.iter().map(|m| mirror_uci(m)).collect();
    for (pos, moves) in [
        (
            root,
            first.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        ),
        (mirror, mirrored_first),
    ] {
        let r = search_depth(&pos, depth);
        let fen = pos.fen();
        assert_eq!(
            mate_in(r.score),
            Some(n),
            "{fen}: score {} at depth {depth} is not mate in {n} (pv {:?})",
            r.score,
            r.pv
        );
        let allowed: Vec<Move> = moves.iter().map(|m| uci_move(&pos, m)).collect();
        let best = r.best.unwrap_or_else(|| panic!("{fen}: no best move"));
        assert!(
            allowed.contains(&best),
            "{fen}: best move {best:?} is not one of {allowed:?} (pv {:?})",
            r.pv
        );
        assert_eq!(r.pv.first(), Some(&best), "{fen}: the PV starts elsewhere");
        assert_result_legal(&pos, &r, &fen);
    }
}

// Stockfish: #+1 1. Ra8#, every other move not mate.
#[test]
fn mate_in_1_back_rank() {
    assert_mate("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", 1, &["a1a8"]);
}

// Scholar's mate. Stockfish: #+1 4. Qxf7#, alone.
#[test]
fn mate_in_1_scholars_mate() {
    assert_mate(
        "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        1,
        &["h5f7"],
    );
}

// Stockfish: #+1 1. Nf7#, alone.
#[test]
fn mate_in_1_smothered() {
    assert_mate("6rk/6pp/8/6N1/8/8/8/6K1 w - - 0 1", 1, &["g5f7"]);
}

// Only the knight promotion mates: f8=Q does not even check. Stockfish:
// #+1 1. f8=N#, then 0 for f8=Q and the king moves.
#[test]
fn mate_in_1_under_promotion_to_knight() {
    assert_mate("6nb/5Ppk/6pp/8/8/8/8/K7 w - - 0 1", 1, &["f7f8n"]);
}

// Chess960: king f1, rook g1; castling puts the rook on f1 with mate.
// Stockfish (UCI_Chess960): #+1 1. O-O# (f1g1), the rest lose.
#[test]
fn mate_in_1_chess960_castling() {
    let fen = "4rkr1/4p1p1/8/8/8/8/8/5KR1 w G - 0 1";
    let pos = position(fen);
    let castle = uci_move(&pos, "f1g1");
    assert!(castle.is_castling(), "f1g1 should read as castling here");
    assert_mate(fen, 1, &["f1g1"]);
    // The X-FEN spelling of the same right.
    assert_mate("4rkr1/4p1p1/8/8/8/8/8/5KR1 w K - 0 1", 1, &["f1g1"]);
}

// Légal's mate. Stockfish: #+2 1. Nf6+ gxf6 2. Bxf7#, the rest lose.
#[test]
fn mate_in_2_legal() {
    assert_mate(
        "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1",
        2,
        &["d5f6"],
    );
}

// Back rank: the front rook goes first. Stockfish: #+2 1. Re8+ Rxe8
// 2. Rxe8#; next best +639.
#[test]
fn mate_in_2_back_rank_doubled_rooks() {
    assert_mate("r5k1/5ppp/8/8/8/8/4RPPP/4R1K1 w - - 0 1", 2, &["e2e8"]);
}

// Back rank with a queen sacrifice. Stockfish: #+2 1. Qxe8+ Rxe8
// 2. Rxe8#; next best +893.
#[test]
fn mate_in_2_back_rank_queen_sacrifice() {
    assert_mate("r3r1k1/5ppp/8/8/8/8/4QPPP/3RR1K1 w - - 0 1", 2, &["e2e8"]);
}

// Smothered mate with a queen sacrifice. Stockfish: #+3 1. Nh6+ Kh8
// 2. Qg8+ Rxg8 3. Nf7#; the other discovered checks mate in 5.
#[test]
fn mate_in_3_smothered_queen_sacrifice() {
    assert_mate_at(
        "r5k1/5Npp/8/8/8/1Q6/8/6K1 w - - 0 1",
        3,
        &["f7h6"],
        SACRIFICE_DEPTH,
    );
}

// A quiet first move. Stockfish: #+3 1. Kg6 Kf8 2. Nc6 Ke8 3. Rd8#;
// every other move mates in 4 or more.
#[test]
fn mate_in_3_quiet_king_move() {
    assert_mate_at(
        "1N2k3/3R4/7K/8/8/8/8/8 w - - 0 1",
        3,
        &["h6g6"],
        QUIET_MATE_DEPTH,
    );
}

// Win At Chess 57: 1. Rf8+ Qxf8 (or Kxf8) and mate. Stockfish (every
// root move searched alone): #+3 only for Rf8+, the rest -468 or worse.
#[test]
fn mate_in_3_rook_sacrifice() {
    assert_mate(
        "r3q1kr/ppp5/3p2pQ/8/3PP1b1/5R2/PPP3P1/5RK1 w - - 0 1",
        3,
        &["f3f8"],
    );
}

// Philidor's legacy. Stockfish: #+4 1. Nf7+ Kg8 2. Nh6+ Kh8 3. Qg8+ Rxg8
// 4. Nf7#; every other move #+7 or longer.
#[test]
fn mate_in_4_philidors_legacy() {
    assert_mate_at(
        "r6k/6pp/8/6N1/8/1Q6/8/6K1 w - - 0 1",
        4,
        &["g5f7"],
        SACRIFICE_DEPTH,
    );
}

// Win At Chess 35: 1. Rxh7+ Kxh7 2. Qh5+ and mate. Stockfish (each root
// move alone): #+4 only for Rxh7+, next best +165.
#[test]
fn mate_in_4_rook_sacrifice() {
    assert_mate(
        "r3r2k/2R3pp/pp1q1p2/8/3P3R/7P/PP3PP1/3Q2K1 w - - 0 1",
        4,
        &["h4h7"],
    );
}

// Win At Chess 9, Black to move: 1... Bh2+ 2. Kh1 Bg3+ 3. Kg1 Rh1+
// 4. Kxh1 Qh4+ 5. Kg1 Qh2#. Bh2+ Kh1 Bd6+ Kg1 is only a perpetual.
// Stockfish (each root move alone): #+5 only for Bh2+, next best -183.
#[test]
fn mate_in_5_bishop_check_and_rook_sacrifice() {
    assert_mate_at(
        "3q1rk1/p4pp1/2pb3p/3p4/6Pr/1PNQ4/P1PB1PP1/4RRK1 b - - 0 1",
        5,
        &["d6h2"],
        SACRIFICE_DEPTH,
    );
}

// Win At Chess 285: 1. Qxg7+ Kxg7 and mate. Stockfish (each root move
// alone): #+5 only for Qxg7+, every other move loses (-700).
#[test]
fn mate_in_5_queen_sacrifice() {
    assert_mate_at(
        "2rr3k/1b2bppP/p2p1n2/R7/3P4/1qB2P2/1P4Q1/1K5R w - - 0 1",
        5,
        &["g2g7"],
        SACRIFICE_DEPTH,
    );
}

// Quiet moves only, so a deeper search (late-move pruning shows a longer
// mate until depth 20 here, and in the colour-flipped position until
// depth 23 since singular extensions reshaped the tree). Stockfish (each root move alone, up to depth 45 or
// 8 s): #+5 for Qb7, Qh6, Qh5, Qe4, Qf3, Ke2, Kd2, Ra6 and Ra5; #+6 or
// longer for the rest.
#[test]
fn mate_in_5_queen_and_rook() {
    assert_mate_at(
        "8/8/3k4/8/8/8/8/R3K2Q w - - 0 90",
        5,
        &[
            "h1b7", "h1h6", "h1h5", "h1e4", "h1f3", "e1e2", "e1d2", "a1a6", "a1a5",
        ],
        SACRIFICE_DEPTH,
    );
}

// The side to move is mated. Stockfish: #-1 1... Kg8 2. Ra8# (the only
// legal move).
#[test]
fn mated_in_1() {
    assert_mate("7k/R7/6K1/8/8/8/8/8 b - - 0 1", -1, &["h8g8"]);
}

// Stockfish: #-2 1... Kh2 2. Bf4+ Kh1 3. Rc1# (the only legal move).
#[test]
fn mated_in_2() {
    // This once needed depth 12 in the mirrored position: 2... Rc8# is a
    // quiet check, and futility pruning cut it away at depth 1, leaving
    // the slower 2... Be6+. Checks are no longer pruned that way.
    assert_mate("8/2R5/8/6B1/8/5K1k/8/8 b - - 0 1", -2, &["h3h2"]);
}

// The longest defence is unique. Stockfish: #-3 1... Ka1; Kb1 and Ka3 are
// mated in 2.
#[test]
fn mated_in_3_longest_defence() {
    assert_mate_at(
        "7N/8/8/8/8/2K5/k1R5/8 b - - 0 1",
        -3,
        &["a2a1"],
        QUIET_MATE_DEPTH,
    );
}

/// The PV of a mate score is the whole mate: 2n-1 plies ending in checkmate.
#[test]
fn mate_pv_ends_in_checkmate() {
    for (fen, n) in [
        ("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", 1),
        ("6nb/5Ppk/6pp/8/8/8/8/K7 w - - 0 1", 1),
        (
            "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1",
            2,
        ),
        ("r3q1kr/ppp5/3p2pQ/8/3PP1b1/5R2/PPP3P1/5RK1 w - - 0 1", 3),
        ("r5k1/5ppp/8/8/8/8/4RPPP/4R1K1 w - - 0 1", 2),
    ] {
        let root = position(fen);
        let r = search_depth(&root, 2 * n + 2);
        assert_eq!(r.score, MATE - (2 * n as i32 - 1), "{fen}: {:?}", r.pv);
        assert_eq!(r.pv.len(), 2 * n as usize - 1, "{fen}: pv {:?}", r.pv);
        let end = play_line(&root, &r.pv, fen);
        assert!(is_checkmate(&end), "{fen}: pv {:?} does not mate", r.pv);
    }
}

/// Lazy SMP finds the same exact mate.
#[test]
fn mate_with_several_threads() {
    let root = position("r6k/6pp/8/6N1/8/1Q6/8/6K1 w - - 0 1");
    let r = pool(4).search(job(&root, depth_limit(SACRIFICE_DEPTH)));
    assert_eq!(mate_in(r.score), Some(4), "pv {:?}", r.pv);
    assert_eq!(r.best, Some(uci_move(&root, "g5f7")));
    assert_result_legal(&root, &r, "4 threads");
}

// ---------------------------------------------------------------------
// 2. Draws: stalemate, perpetual check, repetition
// ---------------------------------------------------------------------

// White, with a queen against a queen and two rooks and facing mate,
// checks forever: 1. Qh5+ Kg8 2. Qe8+ Kh7. Stockfish: 0 for Qh5+, the
// rest are mated.
#[test]
fn perpetual_check_two_rooks_down_is_a_draw() {
    let root = position("4Q3/6pk/8/8/8/8/1qrr1PPP/6K1 w - - 0 1");
    for depth in [8, 10] {
        let r = search_depth(&root, depth);
        assert_eq!(r.score, 0, "depth {depth}: pv {:?}", r.pv);
        assert_eq!(r.best, Some(uci_move(&root, "e8h5")), "depth {depth}");
        assert_result_legal(&root, &r, "perpetual");
    }
}

// White's king has no move and Black threatens Qg2#: 1. Qg8+ Kxg8 (or
// Rxg8) is stalemate. Stockfish: 0 for Qg8+, every other move is mated.
#[test]
fn stalemate_trick_is_a_draw() {
    let root = position("r6k/6pp/8/8/2Q5/7p/5q1P/7K w - - 0 1");
    let r = search_depth(&root, 8);
    assert_eq!(r.score, 0, "pv {:?}", r.pv);
    assert_eq!(r.best, Some(uci_move(&root, "c4g8")));
    assert_result_legal(&root, &r, "stalemate trick");
}

#[test]
fn stalemated_root_has_no_best_move() {
    for fen in [
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
        "k7/2Q5/1K6/8/8/8/8/8 b - - 0 1",
    ] {
        let root = position(fen);
        assert_eq!(root.count_legal(), 0);
        let mut p = pool(2);
        let rec = record(&mut p, job(&root, depth_limit(5)));
        assert_eq!(rec.bests(), vec![(None, None)], "{fen}");
    }
}

#[test]
fn checkmated_root_has_no_best_move() {
    // Fool's mate.
    let root = position("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    assert!(is_checkmate(&root));
    let r = search_depth(&root, 5);
    assert_eq!(r.best, None);
    assert_eq!(r.ponder, None);
}

/// A queen and king shuffle from `START`: 1. Qd2 Kh7 2. Qd1 Kg8 3. Qd2 Kh7
/// 4. Qd1. The keys of the positions, the start first.
const SHUFFLE_START: &str = "6k1/5pp1/7p/8/8/8/5PPP/3Q2K1 w - - 0 40";
const SHUFFLE: [&str; 7] = ["d1d2", "g8h7", "d2d1", "h7g8", "d1d2", "g8h7", "d2d1"];

fn shuffled() -> (Position, Vec<u64>) {
    let mut pos = position(SHUFFLE_START);
    let mut keys = Vec::new();
    for m in SHUFFLE {
        keys.push(pos.key());
        let mv = uci_move(&pos, m);
        pos.play(mv);
    }
    (pos, keys)
}

/// Searches the shuffled position with its history and checks that Kg8,
/// which repeats the start position for the third time, scores 0.
fn assert_repetition_draw(depth: u32) {
    let (root, history) = shuffled();
    assert_eq!(history.len(), 7);
    let kg8 = uci_move(&root, "h7g8");
    let mut after = root.clone();
    after.play(kg8);
    assert_eq!(after.key(), history[0]);
    assert_eq!(after.key(), history[4]);

    let r = pool(1).search(Job {
        root: root.clone(),
        history,
        limits: depth_limit(depth),
        options: SearchOptions::default(),
    });
    assert_eq!(r.score, 0, "depth {depth}: pv {:?}", r.pv);
    assert_eq!(r.best, Some(kg8), "depth {depth}");
    assert_result_legal(&root, &r, "repetition");
}

// Black, a queen down, can play Kg8 and repeat the start position for the
// third time: a draw.
#[test]
fn threefold_repetition_from_game_history_is_a_draw() {
    for depth in [2, 6, 9] {
        assert_repetition_draw(depth);
    }
}

// The same at depth 1, where the position after Kg8 is a leaf.
#[test]
fn threefold_repetition_at_the_horizon_is_a_draw() {
    assert_repetition_draw(1);
}

// Without the history, or with only one earlier occurrence of the position
// Kg8 leads to, Black is simply a queen down.
#[test]
fn no_repetition_without_enough_history() {
    let (root, history) = shuffled();
    for hist in [Vec::new(), history[3..].to_vec()] {
        let n = hist.len();
        let r = pool(1).search(Job {
            root: root.clone(),
            history: hist,
            limits: depth_limit(6),
            options: SearchOptions::default(),
        });
        assert!(
            r.score < -500,
            "{n} keys of history: score {} (pv {:?})",
            r.score,
            r.pv
        );
        assert_result_legal(&root, &r, "no repetition");
    }
}

// ---------------------------------------------------------------------
// 3. MultiPV
// ---------------------------------------------------------------------

/// The exact lines of the last depth, by MultiPV index.
fn last_depth_lines(lines: &[Line]) -> (u32, Vec<Line>) {
    let depth = lines.iter().map(|l| l.depth).max().unwrap_or(0);
    let mut last: Vec<Line> = Vec::new();
    for l in lines
        .iter()
        .filter(|l| l.depth == depth && l.bound == ScoreBound::Exact)
    {
        last.retain(|x| x.multipv != l.multipv);
        last.push(l.clone());
    }
    last.sort_by_key(|l| l.multipv);
    (depth, last)
}

#[test]
fn multipv_four_lines() {
    for fen in [STARTPOS, KIWIPETE, ITALIAN] {
        let root = position(fen);
        let mut p = pool(1);
        let mut j = job(&root, depth_limit(6));
        j.options.multipv = 4;
        let rec = record(&mut p, j);
        let lines = rec.lines();
        for l in &lines {
            assert!((1..=4).contains(&l.multipv), "{fen}: {l:?}");
            assert!(!l.pv.is_empty(), "{fen}: empty pv {l:?}");
            play_line(&root, &l.pv, fen);
        }
        let (depth, last) = last_depth_lines(&lines);
        assert_eq!(depth, 6, "{fen}");
        let idx: Vec<usize> = last.iter().map(|l| l.multipv).collect();
        assert_eq!(idx, vec![1, 2, 3, 4], "{fen}");
        let mut firsts: Vec<Move> = last.iter().map(|l| l.pv[0]).collect();
        firsts.sort_by_key(|m| m.bits());
        firsts.dedup();
        assert_eq!(firsts.len(), 4, "{fen}: first moves repeat: {last:?}");
        for w in last.windows(2) {
            assert!(
                w[0].score.unwrap() >= w[1].score.unwrap(),
                "{fen}: line {} scores {:?} above line {} at {:?}",
                w[1].multipv,
                w[1].score,
                w[0].multipv,
                w[0].score
            );
        }
        // Every depth reports all four lines.
        for d in 1..=6 {
            let at: Vec<usize> = lines
                .iter()
                .filter(|l| l.depth == d && l.bound == ScoreBound::Exact)
                .map(|l| l.multipv)
                .collect();
            assert_eq!(at, vec![1, 2, 3, 4], "{fen}: depth {d}");
        }
        let bests = rec.bests();
        assert_eq!(bests.len(), 1, "{fen}");
        assert_eq!(bests[0].0, Some(last[0].pv[0]), "{fen}: best is not line 1");
    }
}

/// More lines asked for than there are legal moves: one line per move.
#[test]
fn multipv_beyond_the_legal_moves() {
    // The white king in the corner has three moves; bare kings are a draw.
    let root = position("7k/8/8/8/8/8/8/K7 w - - 0 1");
    let mut p = pool(1);
    let mut j = job(&root, depth_limit(4));
    j.options.multipv = 4;
    let rec = record(&mut p, j);
    let (depth, last) = last_depth_lines(&rec.lines());
    assert_eq!(depth, 4);
    assert_eq!(last.len(), 3, "{last:?}");
    let mut firsts: Vec<Move> = last.iter().map(|l| l.pv[0]).collect();
    firsts.sort_by_key(|m| m.bits());
    firsts.dedup();
    assert_eq!(firsts.len(), 3);
    assert!(last.iter().all(|l| l.score == Some(0)), "{last:?}");
}

// ---------------------------------------------------------------------
// 4. go nodes, go depth
// ---------------------------------------------------------------------

#[test]
fn node_limit_is_respected() {
    for fen in [STARTPOS, KIWIPETE] {
        let root = position(fen);
        for n in [1u64, 100, 10_000, 100_000] {
            let mut p = pool(1);
            let j = job(
                &root,
                Limits {
                    nodes: Some(n),
                    ..Limits::default()
                },
            );
            let rec = record(&mut p, j);
            let bests = rec.bests();
            assert_eq!(bests.len(), 1, "{fen} nodes {n}");
            let best = bests[0]
                .0
                .unwrap_or_else(|| panic!("{fen} nodes {n}: no move"));
            play_line(&root, &[best], "node limit");
            let lines = rec.lines();
            let max_nodes = lines.iter().map(|l| l.nodes).max().unwrap_or(0);
            assert!(
                max_nodes <= n + 64,
                "{fen}: reported {max_nodes} nodes with a limit of {n}"
            );
            for l in &lines {
                play_line(&root, &l.pv, "node limit pv");
            }
            if n >= 100_000 {
                assert!(!lines.is_empty(), "{fen} nodes {n}: nothing reported");
            }
            // The last line has the search's node count, also when the
            // limit ended it inside an iteration (one thread: exact).
            if let Some(last) = lines.last() {
                assert_eq!(last.nodes, n, "{fen} nodes {n}: the last line");
            }
        }
    }
}

/// The last `multipv 1` line reported begins with the move played and has
/// the ponder move second, wherever a node limit cuts the search (issue
/// 29): between iterations, inside one (a move that became best there is
/// reported again with that iteration's depth, its score a bound when it
/// is one), before any move was scored (the line has no score), and with
/// MultiPV 3 (no move begins two of the lines last reported). Each limit
/// from 1 to 60 nodes and then every 37th to 3,000, one thread: the same
/// every run.
#[test]
fn the_last_line_reported_is_the_move_played() {
    let mut deeper = 0;
    let mut bounds = 0;
    for fen in [STARTPOS, KIWIPETE, ITALIAN] {
        let root = position(fen);
        for multipv in [1, 3] {
            let mut p = pool(1);
            for n in (1..=60).chain((61..3000).step_by(37)) {
                let mut j = job(
                    &root,
                    Limits {
                        nodes: Some(n),
                        ..Limits::default()
                    },
                );
                j.options.multipv = multipv;
                p.clear();
                let rec = record(&mut p, j);
                let what = format!("{fen} multipv {multipv} nodes {n}");
                let bests = rec.bests();
                assert_eq!(bests.len(), 1, "{what}");
                let (best, ponder) = bests[0];
                let lines = rec.lines();
                // The last line of each number (what a GUI shows) begins
                // with a move of its own.
                let mut shown: Vec<&Line> = Vec::new();
                for l in &lines {
                    shown.retain(|s| s.multipv != l.multipv);
                    shown.push(l);
                }
                let mut starts: Vec<Move> = shown.iter().map(|l| l.pv[0]).collect();
                starts.sort_by_key(|m| m.bits());
                starts.dedup();
                assert_eq!(starts.len(), shown.len(), "{what}: {shown:?}");
                let firsts: Vec<&Line> = lines.iter().filter(|l| l.multipv == 1).collect();
                let last = firsts.last().unwrap_or_else(|| panic!("{what}: no line"));
                assert_eq!(last.pv.first(), best.as_ref(), "{what}: {last:?}");
                assert_eq!(last.pv.get(1), ponder.as_ref(), "{what}: {last:?}");
                play_line(&root, &last.pv, &what);
                // One node: stopped at the root, nothing scored.
                assert!(n > 1 || last.score.is_none(), "{what}: {last:?}");
                if last.score.is_none() {
                    // Stopped before the first move was scored: that move,
                    // the first generated, unsearched, and nothing before.
                    assert_eq!(best, root.legal_moves().into_iter().next(), "{what}");
                    assert_eq!(last.depth, 1, "{what}");
                    assert_eq!(last.pv.len(), 1, "{what}");
                    assert_eq!(lines.len(), 1, "{what}: {lines:?}");
                    continue;
                }
                // The line of the move played comes from the last finished
                // iteration or the one after it.
                let finished = lines
                    .iter()
                    .filter(|l| l.bound == ScoreBound::Exact)
                    .map(|l| l.depth)
                    .max()
                    .unwrap_or(0);
                assert!(
                    (finished..=finished + 1).contains(&last.depth),
                    "{what}: {last:?} after depth {finished}"
                );
                if firsts.len() > 1 && last.depth > firsts[firsts.len() - 2].depth {
                    deeper += 1;
                }
                if last.bound != ScoreBound::Exact {
                    bounds += 1;
                }
            }
        }
    }
    // The limits do cut iterations with a line to report again, bounds too.
    assert!(deeper > 0 && bounds > 0, "{deeper} deeper, {bounds} bounds");
}

/// One thread searching a fixed number of nodes is deterministic.
#[test]
fn node_limited_search_is_reproducible() {
    let root = position(KIWIPETE);
    let run = || {
        pool(1).search(job(
            &root,
            Limits {
                nodes: Some(20_000),
                ..Limits::default()
            },
        ))
    };
    let (a, b) = (run(), run());
    assert_eq!(a.best, b.best);
    assert_eq!(a.score, b.score);
    assert_eq!(a.depth, b.depth);
    assert_eq!(a.nodes, b.nodes);
    assert_eq!(a.pv, b.pv);
}

#[test]
fn depth_limit_is_exact() {
    for fen in [STARTPOS, KIWIPETE] {
        let root = position(fen);
        for d in 1..=8 {
            let mut p = pool(1);
            let rec = record(&mut p, job(&root, depth_limit(d)));
            let lines = rec.lines();
            let last = lines
                .last()
                .unwrap_or_else(|| panic!("{fen} depth {d}: nothing reported"));
            assert_eq!(last.depth, d, "{fen}: last reported depth");
            let exact: Vec<u32> = lines
                .iter()
                .filter(|l| l.bound == ScoreBound::Exact)
                .map(|l| l.depth)
                .collect();
            assert_eq!(exact, (1..=d).collect::<Vec<_>>(), "{fen} depth {d}");
            let bests = rec.bests();
            assert_eq!(bests.len(), 1);
            assert_eq!(bests[0].0, last.pv.first().copied(), "{fen} depth {d}");
            play_line(&root, &last.pv, "depth limit");
        }
    }
}

/// Locked pawns: every line is a king walk that ends in a repetition, so
/// even the deepest iteration takes little time. A depth beyond the
/// ply limit is the deepest search (MAX_PLY - 1 = 127), however large:
/// `go depth 4294967295` once wrapped to -1 and searched depth 1.
#[test]
fn depth_beyond_the_ply_limit_searches_the_deepest() {
    let root = position("k7/8/8/p1p1p1p1/P1P1P1P1/8/8/K7 w - - 0 1");
    for d in [127, 128, 200, 1 << 31, u32::MAX] {
        let r = search_depth(&root, d);
        assert_eq!(r.depth, 127, "depth {d}");
        assert_eq!(r.score, 0, "depth {d}");
        assert_result_legal(&root, &r, "deepest search");
    }
}

/// `go mate N` with N beyond any mate the search can see just searches
/// on (2 N once overflowed for N of 2^30 and more).
#[test]
fn mate_limit_of_any_size() {
    let root = position("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1");
    for n in [1, 1 << 30, u32::MAX] {
        let r = pool(1).search(job(
            &root,
            Limits {
                mate: Some(n),
                depth: Some(6),
                ..Limits::default()
            },
        ));
        assert_eq!(mate_in(r.score), Some(1), "mate {n}");
        assert_eq!(r.best, Some(uci_move(&root, "a1a8")), "mate {n}");
    }
}

// ---------------------------------------------------------------------
// 5. The table never hands out an illegal move
// ---------------------------------------------------------------------

/// Positions with castling (standard and Chess960), en passant,
/// promotions, pins, checks and double checks.
const VARIED: [&str; 15] = [
    STARTPOS,
    KIWIPETE,
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "8/P1k5/8/8/8/8/5Kp1/7R b - - 0 1",
    "4k3/8/8/8/8/8/4r3/R3K2R w KQ - 0 1",
    "4k3/8/5n2/8/1b6/8/8/4K2R w K - 0 1",
    "3k4/8/8/8/q7/8/2R5/3K4 w - - 0 1",
    "4k3/8/8/8/8/5n2/8/r3K3 w - - 0 1",
    ITALIAN,
];

#[test]
fn is_legal_agrees_with_the_generator_for_every_16_bit_value() {
    let mut positions: Vec<Position> = VARIED.iter().map(|f| position(f)).collect();
    positions.extend(VARIED.iter().map(|f| position(f).mirrored()));
    // Positions after a few moves, to get more variety.
    for f in VARIED {
        let mut pos = position(f);
        for i in 0..6 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.play(moves[(i * 7 + 3) % moves.len()]);
            positions.push(pos.clone());
        }
    }
    for pos in &positions {
        let legal = pos.legal_moves();
        let mut count = 0;
        for bits in 0..=u16::MAX {
            let m = Move::from_bits(bits);
            let ok = pos.is_legal(m);
            assert_eq!(
                ok,
                legal.contains(&m),
                "{}: is_legal({m:?}, bits {bits:#06x}) = {ok}",
                pos.fen()
            );
            count += usize::from(ok);
        }
        assert_eq!(count, legal.len(), "{}", pos.fen());
    }
}

#[test]
fn table_moves_of_other_positions_are_never_played() {
    for threads in [1, 3] {
        // The smallest table, so that entries are shared and overwritten.
        let mut p = SearchPool::new(1, threads).expect("a 1 MB table");
        // Fill it with searches of some positions...
        for fen in &VARIED[..7] {
            let root = position(fen);
            let r = p.search(job(&root, depth_limit(8)));
            assert_result_legal(&root, &r, fen);
        }
        // ...then search others (and the mirrors of the first ones) without
        // clearing it, checking every move reported.
        let mut roots: Vec<Position> = VARIED[7..].iter().map(|f| position(f)).collect();
        roots.extend(VARIED[..7].iter().map(|f| position(f).mirrored()));
        for root in roots {
            let mut j = job(&root, depth_limit(7));
            j.options.multipv = 2;
            let rec = record(&mut p, j);
            for l in rec.lines() {
                play_line(&root, &l.pv, "pv after a full table");
            }
            let bests = rec.bests();
            assert_eq!(bests.len(), 1);
            let (best, ponder) = bests[0];
            let best = best.unwrap_or_else(|| panic!("{}: no move", root.fen()));
            play_line(&root, &[best], "best after a full table");
            if let Some(pm) = ponder {
                play_line(&root, &[best, pm], "ponder after a full table");
            }
        }
    }
}

// ---------------------------------------------------------------------
// 6. Several threads
// ---------------------------------------------------------------------

#[test]
fn four_threads_give_legal_moves_and_sane_scores() {
    let mut p = pool(4);
    for fen in [STARTPOS, ITALIAN, QGD] {
        let root = position(fen);
        let r = p.search(job(&root, depth_limit(8)));
        assert_result_legal(&root, &r, fen);
        assert_eq!(r.depth, 8, "{fen}");
        assert!(r.score.abs() < 300, "{fen}: score {}", r.score);
    }
    // A sharp position: any score, but a legal move and the right depth.
    let root = position(KIWIPETE);
    let r = p.search(job(&root, depth_limit(8)));
    assert_result_legal(&root, &r, KIWIPETE);
    assert_eq!(r.depth, 8);
}

#[test]
fn start_stop_cycles_with_threads() {
    let mut p = pool(3);
    let fens = [STARTPOS, KIWIPETE, ITALIAN, VARIED[6]];
    for i in 0..50 {
        let root = position(fens[i % fens.len()]);
        let rec = Arc::new(Recorder::default());
        p.start(
            job(
                &root,
                Limits {
                    infinite: true,
                    ..Limits::default()
                },
            ),
            rec.clone(),
        );
        std::thread::sleep(Duration::from_millis(20));
        p.stop();
        p.wait();
        let bests = rec.bests();
        assert_eq!(bests.len(), 1, "cycle {i}: {bests:?}");
        let (best, ponder) = bests[0];
        let best = best.unwrap_or_else(|| panic!("cycle {i}: no move"));
        play_line(&root, &[best], "start/stop");
        if let Some(pm) = ponder {
            play_line(&root, &[best, pm], "start/stop ponder");
        }
        assert!(
            !rec.anything_after_best(),
            "cycle {i}: output after bestmove"
        );
        for l in rec.lines() {
            play_line(&root, &l.pv, "start/stop pv");
        }
    }
}

/// `stop` right after `start`, before the search had time to do anything.
#[test]
fn immediate_stop_still_answers_once() {
    let mut p = pool(2);
    let root = position(KIWIPETE);
    for i in 0..20 {
        let rec = Arc::new(Recorder::default());
        p.start(
            job(
                &root,
                Limits {
                    infinite: true,
                    ..Limits::default()
                },
            ),
            rec.clone(),
        );
        p.stop();
        p.wait();
        let bests = rec.bests();
        assert_eq!(bests.len(), 1, "cycle {i}");
        let best = bests[0].0.unwrap_or_else(|| panic!("cycle {i}: no move"));
        play_line(&root, &[best], "immediate stop");
    }
}

// ---------------------------------------------------------------------
// 7. searchmoves
// ---------------------------------------------------------------------

// 3. Nxh4 wins Black's queen (Stockfish: +651, next +201).
const HANGING_QUEEN: &str = "rnb1kbnr/pppp1ppp/8/4p3/4P2q/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";

#[test]
fn searchmoves_restricts_the_root() {
    let root = position(HANGING_QUEEN);
    let free = search_depth(&root, 6);
    assert_eq!(free.best, Some(uci_move(&root, "f3h4")));
    assert!(free.score > 500, "score {}", free.score);

    let allowed = vec![uci_move(&root, "a2a3"), uci_move(&root, "h2h3")];
    for (threads, multipv) in [(1, 1), (1, 3), (3, 1)] {
        let mut p = pool(threads);
        let mut j = job(
            &root,
            Limits {
                depth: Some(6),
                searchmoves: allowed.clone(),
                ..Limits::default()
            },
        );
        j.options.multipv = multipv;
        let rec = record(&mut p, j);
        let bests = rec.bests();
        assert_eq!(bests.len(), 1);
        let best = bests[0].0.expect("a move");
        assert!(
            allowed.contains(&best),
            "{threads} threads, multipv {multipv}: {best:?}"
        );
        let lines = rec.lines();
        assert!(!lines.is_empty());
        for l in &lines {
            assert!(allowed.contains(&l.pv[0]), "line {l:?}");
            assert!(l.multipv <= 2, "more lines than searchmoves: {l:?}");
            assert!(
                l.score.unwrap() < 300,
                "line {l:?} scores as if the queen fell"
            );
            play_line(&root, &l.pv, "searchmoves");
        }
    }
}

/// A single allowed move is the answer, even a bad one.
#[test]
fn searchmoves_single_move() {
    let root = position(HANGING_QUEEN);
    let only = uci_move(&root, "e1e2");
    let r = pool(1).search(job(
        &root,
        Limits {
            depth: Some(5),
            searchmoves: vec![only],
            ..Limits::default()
        },
    ));
    assert_eq!(r.best, Some(only));
    assert_result_legal(&root, &r, "single searchmove");
}

// ---------------------------------------------------------------------
// 8. The fifty-move rule
// ---------------------------------------------------------------------

// Ra8# makes the clock 100, but mate comes first.
#[test]
fn mate_on_the_hundredth_half_move_counts() {
    let root = position("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 99 80");
    for depth in [1, 4] {
        let r = search_depth(&root, depth);
        assert_eq!(mate_in(r.score), Some(1), "depth {depth}: {:?}", r.pv);
        assert_eq!(r.best, Some(uci_move(&root, "a1a8")));
    }
}

// Queen and rook against a lone king, with the clock at 100: whatever
// White plays, no capture or pawn move can reset the clock, so it is a
// draw (Stockfish: 0 for every move). The same position with the clock
// at 0 is mate in 5 (see mate_in_5_queen_and_rook).
#[test]
fn clock_at_one_hundred_is_a_draw() {
    let root = position("8/8/3k4/8/8/8/8/R3K2Q w - - 100 90");
    for depth in [1, 6] {
        let r = search_depth(&root, depth);
        assert_eq!(r.score, 0, "depth {depth}: {:?}", r.pv);
        assert_result_legal(&root, &r, "clock 100");
    }
}

// At 99 the mate in 2 (1. Re8+ Rxe8 2. Rxe8#) no longer works: after
// Re8+ Black may claim the draw. Stockfish: about +6 with a pawn move,
// which resets the clock; no mate.
#[test]
fn mate_in_2_is_lost_to_the_fifty_move_rule() {
    let root = position("r5k1/5ppp/8/8/8/8/4RPPP/4R1K1 w - - 99 80");
    let r = search_depth(&root, 6);
    assert_eq!(mate_in(r.score), None, "score {} pv {:?}", r.score, r.pv);
    assert!(r.score > 200, "score {} pv {:?}", r.score, r.pv);
    assert_ne!(r.best, Some(uci_move(&root, "e2e8")));
    assert_result_legal(&root, &r, "clock 99");
}
