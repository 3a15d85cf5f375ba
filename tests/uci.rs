//! The UCI protocol end to end: each test starts the `forsyth` binary,
//! speaks UCI to it over pipes and checks what comes back.
//!
//! Every wait has a timeout, and every search is checked for exactly one
//! `bestmove` whose move (and ponder move and PV moves) are legal by our
//! own move generator. Tests that measure time take an exclusive lock so
//! that no other search in this binary competes for the CPU meanwhile.

mod common;

use common::{BIN, Engine, Search, TIMEOUT, field, legal, num_field, position, pv, score};
use forsyth::engine::chess::perft;
use forsyth::engine::chess::{Move, Position};
use std::collections::BTreeSet;
use std::process::Command;
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

static CPU: RwLock<()> = RwLock::new(());

/// For tests that only check results: they may run side by side.
fn shared() -> RwLockReadGuard<'static, ()> {
    CPU.read().unwrap_or_else(|e| e.into_inner())
}

/// For tests that measure time: they run alone.
fn exclusive() -> RwLockWriteGuard<'static, ()> {
    CPU.write().unwrap_or_else(|e| e.into_inner())
}

/// Légal's mate: 1. Nf6+ gxf6 2. Bxf7#, the only mate in two.
const MATE_IN_2: &str = "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1";
/// Fool's mate: White is checkmated.
const CHECKMATED: &str = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
/// Black to move has no legal move and is not in check.
const STALEMATE: &str = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";
/// White's only legal move is Kxg2.
const ONE_MOVE: &str = "7k/8/8/8/8/8/6q1/7K w - - 0 1";

fn startpos() -> Position {
    Position::startpos()
}

/// After something bad: the engine still answers `isready` and searches a
/// fresh position (Black to move, so a stale position would show).
fn still_works(e: &mut Engine) {
    assert_eq!(e.sync(), Vec::<String>::new());
    e.send("position startpos moves e2e4");
    let s = e.go(&position(None, &["e2e4"]), "go depth 2");
    assert!(s.error_lines().is_empty(), "{:?}", s.lines);
}

/// After a refused `position`, `go` searches nothing: one error line and
/// `bestmove 0000`.
fn go_answers_no_position(e: &mut Engine) {
    e.send("go depth 1");
    let lines = e.read_until("bestmove", TIMEOUT);
    assert_eq!(
        lines,
        [
            "info string error: go: no position to search (the last position command was refused)",
            "bestmove 0000"
        ]
    );
}

fn max_depth(s: &Search) -> u64 {
    s.lines
        .iter()
        .filter(|l| l.starts_with("info "))
        .filter_map(|l| num_field(l, "depth"))
        .max()
        .unwrap_or(0)
}

// ---------------------------------------------------------------- handshake

#[test]
fn handshake_lists_every_option() {
    let _cpu = shared();
    let mut e = Engine::start();
    let lines = e.handshake();
    let version = env!("CARGO_PKG_VERSION");
    let mut expected = [
        format!("id name Forsyth {version}"),
        "id author the Forsyth developers".to_owned(),
        "option name Hash type spin default 16 min 1 max 33554432".to_owned(),
        "option name Clear Hash type button".to_owned(),
        "option name Threads type spin default 1 min 1 max 1024".to_owned(),
        "option name MultiPV type spin default 1 min 1 max 256".to_owned(),
        "option name Ponder type check default false".to_owned(),
        "option name Move Overhead type spin default 20 min 0 max 5000".to_owned(),
        "option name UCI_Chess960 type check default false".to_owned(),
        "option name UCI_LimitStrength type check default false".to_owned(),
        "option name UCI_Elo type spin default 2600 min 1350 max 2600".to_owned(),
        "option name UCI_ShowWDL type check default false".to_owned(),
        "option name OwnBook type check default false".to_owned(),
        "option name BookFile type string default <empty>".to_owned(),
        "option name Book Depth type spin default 40 min 0 max 1000".to_owned(),
        "option name Book Variety type spin default 50 min 0 max 100".to_owned(),
        "option name SyzygyPath type string default <empty>".to_owned(),
        "option name SyzygyProbeDepth type spin default 1 min 1 max 100".to_owned(),
        "option name Syzygy50MoveRule type check default true".to_owned(),
        "option name SyzygyProbeLimit type spin default 7 min 0 max 7".to_owned(),
        "option name EvalFile type string default <empty>".to_owned(),
    ]
    .to_vec();
    // A tuning build (`--features tune`) lists the search's constants
    // after them; the normal build none of them.
    #[cfg(feature = "tune")]
    expected.extend(forsyth::engine::search::params::TABLE.iter().map(|p| {
        format!(
            "option name {} type spin default {} min {} max {}",
            p.name, p.default, p.min, p.max
        )
    }));
    expected.push("uciok".to_owned());
    assert_eq!(lines, expected);
    e.send("isready");
    assert_eq!(e.read_until("readyok", TIMEOUT), ["readyok"]);
    // A second `uci` gives the same answer.
    assert_eq!(e.handshake(), expected);
    e.finish();
}

// ----------------------------------------------------------- go parameters

#[test]
fn go_depth_stops_at_that_depth() {
    let _cpu = shared();
    let mut e = Engine::started();
    e.send("position startpos");
    let s = e.go(&startpos(), "go depth 3");
    assert_eq!(num_field(s.last_pv_line(), "depth"), Some(3));
    assert_eq!(max_depth(&s), 3, "{:?}", s.lines);
    let depths: BTreeSet<u64> = s
        .pv_lines()
        .iter()
        .filter_map(|l| num_field(l, "depth"))
        .collect();
    assert_eq!(depths, BTreeSet::from([1, 2, 3]));

    e.send("position startpos moves e2e4 c7c5");
    let s = e.go(&position(None, &["e2e4", "c7c5"]), "go depth 1");
    assert_eq!(max_depth(&s), 1, "{:?}", s.lines);
    e.finish();
}

#[test]
fn go_nodes_limits_the_node_count() {
    let _cpu = shared();
    let mut e = Engine::started();
    e.send("position startpos");
    let s = e.go(&startpos(), "go nodes 5000");
    let nodes: Vec<u64> = s
        .lines
        .iter()
        .filter_map(|l| num_field(l, "nodes"))
        .collect();
    let last = *nodes.last().expect("info lines with nodes");
    println!("go nodes 5000: last info says {last} nodes");
    assert!(last > 0 && last <= 5000 + 64, "{:?}", s.lines);
    assert!(nodes.iter().all(|&n| n <= 5000 + 64), "{nodes:?}");

    // A node limit far below one iteration still gets a legal move.
    let s = e.go(&startpos(), "go nodes 1");
    assert!(s.error_lines().is_empty());
    e.finish();
}

#[test]
fn go_movetime_is_kept() {
    let _cpu = exclusive();
    let mut e = Engine::started();
    e.send("position startpos");
    let s = e.go(&startpos(), "go movetime 300");
    println!("go movetime 300: bestmove after {:?}", s.elapsed);
    assert!(s.elapsed >= Duration::from_millis(250), "{:?}", s.elapsed);
    assert!(s.elapsed < Duration::from_secs(2), "{:?}", s.elapsed);
    e.finish();
}

#[test]
fn go_searchmoves_restricts_the_root() {
    let _cpu = shared();
    let mut e = Engine::started();
    e.send("position startpos");
    let s = e.go(&startpos(), "go depth 4 searchmoves a2a3 h2h3");
    assert!(["a2a3", "h2h3"].contains(&s.best.as_str()), "{}", s.best);
    for line in s.pv_lines() {
        let first = pv(line)[0].clone();
        assert!(["a2a3", "h2h3"].contains(&first.as_str()), "{line}");
    }
    // searchmoves first, then other parameters.
    let s = e.go(&startpos(), "go searchmoves g1f3 depth 3");
    assert_eq!(s.best, "g1f3");
    assert_eq!(max_depth(&s), 3);
    // A single move with MultiPV 2: only that move is reported.
    e.send("setoption name MultiPV value 2");
    let s = e.go(&startpos(), "go searchmoves b1c3 depth 2");
    assert_eq!(s.best, "b1c3");
    assert!(s.pv_lines().iter().all(|l| pv(l)[0] == "b1c3"), "{s:?}");
    e.finish();
}

/// Whether `pos` is a mate in two for the side to move with `key` as the
/// only first move (and no mate in one), by brute force.
fn only_mate_in_two(pos: &Position) -> Option<Move> {
    let mates_in_one = |p: &Position| {
        p.legal_moves()
            .into_iter()
            .filter(|&m| {
                let mut c = p.clone();
                c.play(m);
                c.in_check() && c.count_legal() == 0
            })
            .count()
    };
    assert_eq!(mates_in_one(pos), 0);
    let keys: Vec<Move> = pos
        .legal_moves()
        .into_iter()
        .filter(|&m| {
            let mut c = pos.clone();
            c.play(m);
            c.count_legal() > 0
                && c.legal_moves().into_iter().all(|r| {
                    let mut d = c.clone();
                    d.play(r);
                    mates_in_one(&d) > 0
                })
        })
        .collect();
    (keys.len() == 1).then(|| keys[0])
}

#[test]
fn go_mate_finds_the_mate_in_two() {
    let _cpu = shared();
    let pos = position(Some(MATE_IN_2), &[]);
    let key = only_mate_in_two(&pos).expect("a mate in two with one key move");
    assert_eq!(key.uci(false).to_string(), "d5f6");

    let mut e = Engine::started();
    e.send(&format!("position fen {MATE_IN_2}"));
    let s = e.go(&pos, "go mate 2");
    assert_eq!(s.best, "d5f6");
    let last = s.last_pv_line();
    assert_eq!(score(last), Some(("mate".to_owned(), 2)), "{last}");
    assert_eq!(pv(last).len(), 3, "{last}");

    // The same with a depth limit that would allow more.
    let s = e.go(&pos, "go mate 2 depth 20");
    assert_eq!(s.best, "d5f6");
    assert_eq!(score(s.last_pv_line()), Some(("mate".to_owned(), 2)));
    e.finish();
}

#[test]
fn go_clock_answers_in_time() {
    let _cpu = exclusive();
    let mut e = Engine::started();
    e.send("position startpos");
    for go in [
        "go wtime 500 btime 500",
        "go wtime 500 btime 500 winc 50 binc 50",
        "go btime 500 wtime 500 movestogo 10",
    ] {
        let s = e.go(&startpos(), go);
        println!("{go}: bestmove after {:?}", s.elapsed);
        assert!(
            s.elapsed < Duration::from_millis(500),
            "{go}: {:?}",
            s.elapsed
        );
    }

    // Black to move reads btime, not wtime.
    let after = position(None, &["e2e4"]);
    e.send("position startpos moves e2e4");
    let s = e.go(&after, "go wtime 600000 btime 500 winc 0 binc 0");
    println!("black with 500 ms: bestmove after {:?}", s.elapsed);
    assert!(s.elapsed < Duration::from_millis(500), "{:?}", s.elapsed);

    // One move to the time control: a good part of the clock may go,
    // but never all of it.
    e.send("position startpos");
    let s = e.go(&startpos(), "go wtime 2000 btime 2000 movestogo 1");
    println!("movestogo 1 with 2000 ms: bestmove after {:?}", s.elapsed);
    assert!(s.elapsed >= Duration::from_millis(400), "{:?}", s.elapsed);
    assert!(s.elapsed < Duration::from_millis(2000), "{:?}", s.elapsed);
    e.finish();
}

/// Each parameter in combination with others: one legal bestmove, and the
/// limit that should end the search does.
#[test]
fn go_parameter_combinations() {
    let _cpu = shared();
    let mut e = Engine::started();
    e.send("position startpos");
    let start = startpos();

    let s = e.go(&start, "go depth 2 nodes 10000000");
    assert_eq!(max_depth(&s), 2);
    let s = e.go(&start, "go nodes 3000 depth 60");
    assert!(num_field(s.last_pv_line(), "nodes").unwrap() <= 3000 + 64);
    let s = e.go(&start, "go depth 2 movetime 60000");
    assert_eq!(max_depth(&s), 2);
    assert!(s.elapsed < Duration::from_secs(5));
    let s = e.go(&start, "go movetime 100 depth 60");
    assert!(s.elapsed < Duration::from_secs(5));
    let s = e.go(
        &start,
        "go wtime 60000 btime 60000 winc 1000 binc 1000 depth 3",
    );
    assert_eq!(max_depth(&s), 3);
    let s = e.go(&start, "go depth 3 wtime 100000 btime 100000 movestogo 30");
    assert_eq!(max_depth(&s), 3);
    let s = e.go(&start, "go searchmoves e2e4 d2d4 nodes 2000");
    assert!(["e2e4", "d2d4"].contains(&s.best.as_str()));
    let s = e.go(&start, "go searchmoves c2c4 wtime 300 btime 300");
    assert_eq!(s.best, "c2c4");
    let s = e.go(&start, "go wtime 300 btime 300 winc 10 binc 10 movestogo 1");
    assert!(s.elapsed < Duration::from_secs(5));
    // Unknown tokens are skipped.
    let s = e.go(&start, "go foo depth 2 bar");
    assert_eq!(max_depth(&s), 2);

    // infinite with searchmoves, ended by stop.
    e.send("go infinite searchmoves h2h4");
    e.expect_none(
        |l| l.starts_with("bestmove"),
        Duration::from_millis(300),
        "bestmove before stop",
    );
    e.send("stop");
    let lines = e.read_until("bestmove", TIMEOUT);
    let s = Search::new(lines, Duration::ZERO);
    assert_eq!(s.best, "h2h4");
    s.check_legal(&start, false);
    e.sync();

    // mate with movetime: the mate is found well within the time.
    let pos = position(Some(MATE_IN_2), &[]);
    e.send(&format!("position fen {MATE_IN_2}"));
    let s = e.go(&pos, "go mate 2 movetime 10000");
    assert_eq!(s.best, "d5f6");
    assert!(s.elapsed < Duration::from_secs(5), "{:?}", s.elapsed);
    e.finish();
}

// ------------------------------------------------------- stop and isready

#[test]
fn stop_latency_and_isready_during_infinite() {
    let _cpu = exclusive();
    let mut e = Engine::started();
    e.send("position startpos moves d2d4 d7d5 c2c4");
    let pos = position(None, &["d2d4", "d7d5", "c2c4"]);
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    // readyok comes while the search runs, before any bestmove.
    e.send("isready");
    let lines = e.read_until("readyok", TIMEOUT);
    assert!(
        lines.iter().all(|l| !l.starts_with("bestmove")),
        "{lines:?}"
    );
    // No bestmove without stop.
    e.expect_none(
        |l| l.starts_with("bestmove"),
        Duration::from_secs(1),
        "bestmove before stop",
    );
    e.send("stop");
    let sent = e.sent_at;
    let lines = e.expect_line_timed(|l| l.starts_with("bestmove"), TIMEOUT, "bestmove");
    let latency = lines.last().unwrap().at - sent;
    println!("stop -> bestmove: {latency:?}");
    let s = Search::new(common::texts(lines), latency);
    s.check_legal(&pos, false);
    assert!(latency < Duration::from_millis(200), "{latency:?}");
    // A second stop with no search running is ignored.
    e.send("stop");
    assert_eq!(e.sync(), Vec::<String>::new());

    // Even a mate in one found at once waits for stop.
    let mate1 = "7k/8/6K1/8/8/8/8/5Q2 w - - 0 1";
    e.send(&format!("position fen {mate1}"));
    e.send("go infinite");
    e.expect_none(
        |l| l.starts_with("bestmove"),
        Duration::from_millis(500),
        "bestmove before stop",
    );
    e.send("stop");
    let s = Search::new(e.read_until("bestmove", TIMEOUT), Duration::ZERO);
    assert_eq!(s.best, "f1f8");
    e.finish();
}

// ------------------------------------------------------------- pondering

#[test]
fn ponder_then_ponderhit() {
    let _cpu = exclusive();
    let pos = position(Some(ONE_MOVE), &[]);
    assert_eq!(pos.count_legal(), 1);
    let mut e = Engine::started();
    e.send("setoption name Ponder value true");
    e.send(&format!("position fen {ONE_MOVE}"));
    e.send("go ponder wtime 300 btime 300");
    // One legal move and a short clock, but no answer while pondering.
    e.expect_none(
        |l| l.starts_with("bestmove"),
        Duration::from_secs(1),
        "bestmove before ponderhit",
    );
    e.send("isready");
    let lines = e.read_until("readyok", TIMEOUT);
    assert!(lines.iter().all(|l| !l.starts_with("bestmove")));
    e.send("ponderhit");
    let sent = e.sent_at;
    let lines = e.expect_line_timed(|l| l.starts_with("bestmove"), TIMEOUT, "bestmove");
    let delay = lines.last().unwrap().at - sent;
    println!("ponderhit -> bestmove with 300 ms left: {delay:?}");
    let s = Search::new(common::texts(lines), delay);
    assert_eq!(s.best, "h1g2");
    assert!(delay < Duration::from_millis(300), "{delay:?}");
    e.sync();

    // A real position: ponderhit starts the clock, which is then kept.
    e.send("position startpos moves e2e4 e7e5");
    let pos = position(None, &["e2e4", "e7e5"]);
    e.send("go ponder wtime 1000 btime 1000 winc 0 binc 0");
    e.expect_none(
        |l| l.starts_with("bestmove"),
        Duration::from_millis(500),
        "bestmove before ponderhit",
    );
    e.send("ponderhit");
    let sent = e.sent_at;
    let lines = e.expect_line_timed(|l| l.starts_with("bestmove"), TIMEOUT, "bestmove");
    let delay = lines.last().unwrap().at - sent;
    println!("ponderhit -> bestmove with 1000 ms left: {delay:?}");
    Search::new(common::texts(lines), delay).check_legal(&pos, false);
    assert!(delay < Duration::from_millis(1000), "{delay:?}");
    e.finish();
}

#[test]
fn ponder_then_stop() {
    let _cpu = exclusive();
    let mut e = Engine::started();
    e.send("setoption name Ponder value true");
    e.send("position startpos moves g1f3");
    let pos = position(None, &["g1f3"]);
    e.send("go ponder wtime 100 btime 100 movestogo 1");
    e.expect_none(
        |l| l.starts_with("bestmove"),
        Duration::from_millis(700),
        "bestmove before stop",
    );
    e.send("stop");
    let sent = e.sent_at;
    let lines = e.expect_line_timed(|l| l.starts_with("bestmove"), TIMEOUT, "bestmove");
    let delay = lines.last().unwrap().at - sent;
    println!("ponder stop -> bestmove: {delay:?}");
    Search::new(common::texts(lines), delay).check_legal(&pos, false);
    assert!(delay < Duration::from_millis(200), "{delay:?}");
    assert_eq!(e.sync(), Vec::<String>::new());
    e.finish();
}

#[test]
fn bestmove_carries_the_ponder_move() {
    let _cpu = shared();
    let mut e = Engine::started();
    for (fen, moves) in [
        (None, vec![]),
        (None, vec!["e2e4", "e7e5", "g1f3"]),
        (
            Some("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
            vec![],
        ),
    ] {
        let pos = position(fen, &moves);
        match fen {
            None => e.send(&format!("position startpos moves {}", moves.join(" "))),
            Some(f) => e.send(&format!("position fen {f}")),
        }
        let s = e.go(&pos, "go depth 5");
        let line = pv(s.last_pv_line());
        assert!(line.len() >= 2, "{:?}", s.lines);
        assert_eq!(s.best, line[0]);
        assert_eq!(s.ponder.as_deref(), Some(line[1].as_str()), "{:?}", s.lines);
    }
    e.finish();
}

/// The case a 240-game soak against Ethereal 12 drew 14 fastchess warnings
/// for ("PV continues after threefold repetition"). Black, a queen down,
/// has danced the knights so that the position after 1. Nf3 Nf6 occurred
/// twice, and the knight back from h5 brings it about a third time: a draw
/// by the rules, which Black takes. Every position of the game is searched
/// first, as in a game, so that the hash table holds that position with a
/// move for White. The line is the one move and no ponder move follows it,
/// where the engine used to print the line again with the table's move
/// after the repetition (`pv h5f6 e2e3`, `bestmove h5f6 ponder e2e3`).
#[test]
fn no_pv_or_ponder_move_after_a_threefold_repetition() {
    let _cpu = shared();
    let mut e = Engine::started();
    let fen = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let moves = [
        "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6h5", "g1f3",
    ];
    for n in 0..=moves.len() {
        e.send(&format!(
            "position fen {fen} moves {}",
            moves[..n].join(" ")
        ));
        let s = e.go(&position(Some(fen), &moves[..n]), "go depth 6");
        if n < moves.len() {
            continue;
        }
        let last = s.last_pv_line();
        assert_eq!(score(last), Some(("cp".to_owned(), 0)), "{:?}", s.lines);
        assert_eq!(pv(last), ["h5f6"], "{:?}", s.lines);
        assert_eq!(s.lines.last().map(String::as_str), Some("bestmove h5f6"));
        // Nothing follows the repetition in any line.
        for line in s.pv_lines() {
            let moves = pv(line);
            assert!(moves[0] != "h5f6" || moves.len() == 1, "{line}");
        }
    }
    e.finish();
}

// ------------------------------------------------------------- bad input

#[test]
fn malformed_fen() {
    let _cpu = shared();
    let mut e = Engine::started();
    let lines = e.replies(&["position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1"]);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("info string error: position refused: "),
        "{lines:?}"
    );
    // go answers without searching the old position.
    go_answers_no_position(&mut e);
    // Too few fields: refused by the parser.
    let lines = e.replies(&["position fen 8/8/8/8/8/8/8/K6k w"]);
    assert_eq!(
        lines,
        ["info string error: position: a FEN needs 4 to 6 fields, got 2"]
    );
    still_works(&mut e);
    // Two white kings; the side not to move in check; a bad move number.
    for fen in [
        "K6K/8/8/8/8/8/8/7k w - - 0 1",
        "4k3/8/8/8/8/8/4R3/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/4R3/4K3 b - - 0 x",
    ] {
        let lines = e.replies(&[&format!("position fen {fen}")]);
        assert_eq!(lines.len(), 1, "{fen}: {lines:?}");
        assert!(lines[0].starts_with("info string error: "), "{lines:?}");
        still_works(&mut e);
    }
    e.finish();
}

#[test]
fn illegal_and_unparsable_moves() {
    let _cpu = shared();
    let mut e = Engine::started();
    let lines = e.replies(&["position startpos moves e2e4 e7e5 e1e3"]);
    assert_eq!(
        lines,
        [
            "info string error: position refused: move 3 'e1e3' is not a legal move in \
          rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2"
        ]
    );
    go_answers_no_position(&mut e);
    still_works(&mut e);

    // A FEN refused before it is read (too few fields) leaves no position
    // either: `go` does not search the one before it.
    e.replies(&["position startpos moves e2e4"]);
    let lines = e.replies(&["position fen bad"]);
    assert_eq!(
        lines,
        ["info string error: position: a FEN needs 4 to 6 fields, got 1"]
    );
    go_answers_no_position(&mut e);
    still_works(&mut e);

    for bad in ["e2e4 Nf6", "e2e4 e7e5x", "e2e4 0000", "e2e4 e7"] {
        let lines = e.replies(&[&format!("position startpos moves {bad}")]);
        assert_eq!(lines.len(), 1, "{bad}: {lines:?}");
        assert!(
            lines[0].starts_with("info string error: position refused: move 2 '"),
            "{bad}: {lines:?}"
        );
        let s = e.go_raw("go depth 2");
        assert_eq!(s.best, "0000", "{bad}");
        assert_eq!(s.lines.len(), 2, "{bad}: {:?}", s.lines);
        still_works(&mut e);
    }
    e.finish();
}

#[test]
fn bad_go_values() {
    let _cpu = shared();
    let mut e = Engine::started();
    e.send("position startpos");
    for (go, error) in [
        (
            "go wtime -5",
            "go: 'wtime' needs a non-negative integer, got '-5'",
        ),
        (
            "go depth x",
            "go: 'depth' needs a non-negative integer, got 'x'",
        ),
        (
            "go movetime 1.5",
            "go: 'movetime' needs a non-negative integer, got '1.5'",
        ),
        (
            "go nodes",
            "go: 'nodes' needs a non-negative integer, got nothing",
        ),
        (
            "go btime 100 binc -1",
            "go: 'binc' needs a non-negative integer, got '-1'",
        ),
        (
            "go depth 99999999999",
            "go: 'depth' must be between 0 and 4294967295, got '99999999999'",
        ),
    ] {
        e.send(go);
        let lines = e.read_until("bestmove", TIMEOUT);
        assert_eq!(
            lines,
            [
                format!("info string error: {error}"),
                "bestmove 0000".into()
            ]
        );
        assert_eq!(e.sync(), Vec::<String>::new());
    }
    // The position was kept.
    let s = e.go(&startpos(), "go depth 2");
    assert_ne!(s.best, "0000");
    still_works(&mut e);
    e.finish();
}

/// A refused `go` sent while a search runs: the running search answers
/// first, then the refused one gets its own `bestmove 0000`. And a `go`
/// after unknown leading tokens is still a `go` that owes an answer.
#[test]
fn bad_go_during_a_search() {
    let _cpu = shared();
    let mut e = Engine::started();
    e.send("position startpos");
    e.send("go infinite");
    e.expect_none(
        |l| l.starts_with("bestmove"),
        Duration::from_millis(300),
        "bestmove before stop",
    );
    e.send("go depth x");
    let s = Search::new(e.read_until("bestmove", TIMEOUT), Duration::ZERO);
    s.check_legal(&startpos(), false);
    assert_ne!(s.best, "0000");
    assert_eq!(
        e.read_until("bestmove", TIMEOUT),
        [
            "info string error: go: 'depth' needs a non-negative integer, got 'x'",
            "bestmove 0000"
        ]
    );
    assert_eq!(e.sync(), Vec::<String>::new());
    e.send("xyz go wtime -5");
    assert_eq!(
        e.read_until("bestmove", TIMEOUT),
        [
            "info string error: go: 'wtime' needs a non-negative integer, got '-5'",
            "bestmove 0000"
        ]
    );
    e.send_bytes(b"\xff go searchmoves\n");
    assert_eq!(
        e.read_until("bestmove", TIMEOUT),
        [
            "info string error: go: expected at least one move after 'searchmoves'",
            "bestmove 0000"
        ]
    );
    still_works(&mut e);
    e.finish();
}

/// Options that need the search threads idle can be set once a search has
/// answered, without `stop` or `ucinewgame` in between.
#[test]
fn options_change_after_a_search() {
    let _cpu = shared();
    let mut e = Engine::started();
    e.send("position startpos");
    e.go(&startpos(), "go depth 2");
    let lines = e.replies(&[
        "setoption name Hash value 32",
        "setoption name Threads value 2",
        "setoption name Clear Hash",
    ]);
    assert_eq!(lines, Vec::<String>::new());
    e.send("perft 1");
    assert_eq!(
        e.read_until("Nodes searched", TIMEOUT).pop().unwrap(),
        "Nodes searched: 20"
    );
    let s = e.go(&startpos(), "go depth 4");
    assert_eq!(max_depth(&s), 4);
    // While a search runs the three are refused, as README says (and
    // perft with them), and the search goes on: no bestmove before stop.
    e.send("go infinite");
    let lines = e.replies(&[
        "setoption name Hash value 8",
        "setoption name Threads value 3",
        "setoption name Clear Hash",
        "perft 1",
    ]);
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("info string"))
            .collect::<Vec<_>>(),
        [
            "info string error: setoption: cannot resize the hash while searching",
            "info string error: setoption: cannot change Threads while searching",
            "info string error: setoption: cannot clear the hash while searching",
            "info string error: perft: a search is running; send stop first"
        ]
    );
    e.send("stop");
    Search::new(e.read_until("bestmove", TIMEOUT), Duration::ZERO).check_legal(&startpos(), false);

    // UCI_ShowWDL adds win/draw/loss permille to every scored line.
    assert_eq!(
        e.replies(&["setoption name UCI_ShowWDL value true"]),
        Vec::<String>::new()
    );
    let s = e.go(&startpos(), "go depth 3");
    for line in s.pv_lines() {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let at = tokens
            .iter()
            .position(|&t| t == "wdl")
            .expect("a wdl field");
        let wdl: Vec<u32> = tokens[at + 1..at + 4]
            .iter()
            .map(|t| t.parse().unwrap())
            .collect();
        assert_eq!(wdl.iter().sum::<u32>(), 1000, "{line}");
    }
    e.finish();
}

/// Commands sent back to back, without waiting for any answer: every `go`
/// still gets exactly one legal `bestmove`, whatever point each search had
/// reached when it was stopped (some before their first iteration).
/// A GUI may set options the moment it reads `bestmove`: the search is
/// over by then, so nothing may be refused as "while searching" (the
/// pool used to learn that its search had ended only just after the
/// `bestmove` line went out).
#[test]
fn options_right_after_bestmove() {
    let _cpu = shared();
    let mut e = Engine::started();
    e.send("position startpos");
    // More threads than cores: the main thread is often preempted
    // between the answer and the end of the search.
    e.send("setoption name Threads value 4");
    for i in 0..1000 {
        e.send("go depth 1");
        e.read_until("bestmove", TIMEOUT);
        e.send(&format!("setoption name Hash value {}", 1 + i % 2));
        e.send("setoption name Clear Hash");
    }
    let errors: Vec<String> = e
        .sync()
        .into_iter()
        .chain(e.transcript.iter().cloned())
        .filter(|l| l.starts_with("info string"))
        .collect();
    assert_eq!(errors, Vec::<String>::new());
    e.finish();
}

#[test]
fn back_to_back_searches() {
    let _cpu = shared();
    let mut e = Engine::started();
    e.send("position startpos");
    for threads in [1, 3] {
        e.send(&format!("setoption name Threads value {threads}"));
        let mut batch = String::new();
        for _ in 0..100 {
            batch.push_str("go infinite\nstop\n");
        }
        for _ in 0..50 {
            batch.push_str("go ponder wtime 100 btime 100\nponderhit\n");
        }
        for _ in 0..50 {
            batch.push_str("go wtime 10 btime 10\ngo nodes 500\n");
        }
        for _ in 0..50 {
            batch.push_str("go depth 30\n");
        }
        batch.push_str("stop\n");
        e.send_bytes(batch.as_bytes());
        let before = e.bestmoves;
        for _ in 0..300 {
            let s = Search::new(e.read_until("bestmove", TIMEOUT), Duration::ZERO);
            s.check_legal(&startpos(), false);
        }
        assert_eq!(e.bestmoves - before, 300, "Threads {threads}");
        assert_eq!(e.sync(), Vec::<String>::new());
    }
    e.finish();
}

/// `position` during a search changes only what the next `go` searches;
/// `ucinewgame` ends the running search, which still answers.
#[test]
fn position_and_ucinewgame_during_a_search() {
    let _cpu = shared();
    let mut e = Engine::started();
    e.send("position startpos");
    e.send("go infinite");
    e.send("position startpos moves e2e4");
    e.expect_none(
        |l| l.starts_with("bestmove"),
        Duration::from_millis(300),
        "bestmove before stop",
    );
    e.send("ucinewgame");
    let s = Search::new(e.read_until("bestmove", TIMEOUT), Duration::ZERO);
    s.check_legal(&startpos(), false);
    assert_eq!(e.sync(), Vec::<String>::new());
    e.go(&position(None, &["e2e4"]), "go depth 3");
    e.finish();
}

#[test]
fn bad_setoption_keeps_the_old_value() {
    let _cpu = shared();
    let mut e = Engine::started();
    e.send("position startpos");
    e.send("setoption name MultiPV value 3");
    let multipv_at_3 = |s: &Search| {
        s.pv_lines()
            .iter()
            .filter(|l| num_field(l, "depth") == Some(3))
            .map(|l| num_field(l, "multipv").unwrap())
            .collect::<Vec<_>>()
    };
    let s = e.go(&startpos(), "go depth 3");
    assert_eq!(multipv_at_3(&s), [1, 2, 3]);
    for (line, error) in [
        (
            "setoption name NoSuchOption value 3",
            "setoption: unknown option 'NoSuchOption'",
        ),
        (
            "setoption name MultiPV value 0",
            "setoption: MultiPV needs an integer from 1 to 256, got '0'",
        ),
        (
            "setoption name MultiPV value 257",
            "setoption: MultiPV needs an integer from 1 to 256, got '257'",
        ),
        (
            "setoption name MultiPV value many",
            "setoption: MultiPV needs an integer from 1 to 256, got 'many'",
        ),
        (
            "setoption name MultiPV",
            "setoption: MultiPV needs an integer from 1 to 256, got ''",
        ),
        (
            "setoption name Hash value 0",
            "setoption: Hash needs an integer from 1 to 33554432, got '0'",
        ),
        (
            "setoption name Threads value -1",
            "setoption: Threads needs an integer from 1 to 1024, got '-1'",
        ),
        (
            "setoption name Ponder value yes",
            "setoption: Ponder needs 'true' or 'false', got 'yes'",
        ),
        (
            "setoption name Move Overhead value 5001",
            "setoption: Move Overhead needs an integer from 0 to 5000, got '5001'",
        ),
        (
            "setoption value 3",
            "setoption: expected 'name', got 'value'",
        ),
    ] {
        let lines = e.replies(&[line]);
        assert_eq!(lines, [format!("info string error: {error}")], "{line}");
    }
    let s = e.go(&startpos(), "go depth 3");
    assert_eq!(multipv_at_3(&s), [1, 2, 3]);
    // Names are case-insensitive; a good value still takes.
    assert_eq!(
        e.replies(&["setoption name multipv value 2"]),
        Vec::<String>::new()
    );
    let s = e.go(&startpos(), "go depth 3");
    assert_eq!(multipv_at_3(&s), [1, 2]);
    still_works(&mut e);
    e.finish();
}

#[test]
fn garbage_lines() {
    let _cpu = shared();
    let mut e = Engine::started();
    e.send("position startpos");

    assert_eq!(
        e.replies(&["foo bar"]),
        ["info string error: unknown command 'foo'"]
    );
    still_works(&mut e);

    // Empty and blank lines are ignored silently.
    assert_eq!(e.replies(&["", "   ", "\t"]), Vec::<String>::new());
    still_works(&mut e);

    // A 100 kB line of junk: one short error line.
    let junk = "x".repeat(100_000);
    let lines = e.replies(&[&junk]);
    assert_eq!(
        lines,
        [format!(
            "info string error: unknown command '{}...'",
            "x".repeat(40)
        )]
    );
    still_works(&mut e);

    // A 100 kB line of moves (the knights going back and forth).
    let moves: Vec<&str> = ["g1f3", "g8f6", "f3g1", "f6g8"].repeat(5000);
    let line = format!("position startpos moves {}", moves.join(" "));
    assert!(line.len() >= 100_000);
    let pos = position(None, &moves);
    assert_eq!(e.replies(&[&line]), Vec::<String>::new());
    e.send("d");
    let fen_line = e.read_until("Fen: ", TIMEOUT).pop().unwrap();
    assert_eq!(fen_line, format!("Fen: {}", pos.fen()));
    e.read_until("Checkers:", TIMEOUT);
    e.go(&pos, "go depth 2");
    still_works(&mut e);

    // Invalid UTF-8 and other binary bytes.
    e.send_bytes(b"\xff\xfe\x00\x80 \xc3\x28\n");
    let lines = e.sync();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("info string error: unknown command '"),
        "{lines:?}"
    );
    still_works(&mut e);
    e.send_bytes(b"go depth \xff\xfe\n");
    let lines = e.read_until("bestmove", TIMEOUT);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("info string error: go: 'depth' needs a non-negative integer"));
    assert_eq!(lines[1], "bestmove 0000");
    still_works(&mut e);

    // Stray carriage returns: CRLF line ends, a lone \r, \r between words.
    e.send_bytes(b"\r\n\r\nisready\r\n");
    assert_eq!(e.read_until("readyok", TIMEOUT), ["readyok"]);
    e.send_bytes(b"position startpos\rmoves e2e4 e7e5\r\n");
    let pos = position(None, &["e2e4", "e7e5"]);
    e.send_bytes(b"d\r\n");
    let fen_line = e.read_until("Fen: ", TIMEOUT).pop().unwrap();
    assert_eq!(fen_line, format!("Fen: {}", pos.fen()));
    e.read_until("Checkers:", TIMEOUT);
    e.send_bytes(b"go depth 2\r\n");
    let s = Search::new(e.read_until("bestmove", TIMEOUT), Duration::ZERO);
    s.check_legal(&pos, false);
    assert!(!s.best.contains('\r'));
    still_works(&mut e);
    e.finish();
}

// ----------------------------------------------------------- positions

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

fn game_over(pos: &Position) -> bool {
    pos.count_legal() == 0 || pos.insufficient_material() || pos.halfmove_clock() >= 100
}

/// A legal game of `plies` plies that never reaches a finished position:
/// random moves, preferring pawn moves and captures once the fifty-move
/// counter gets high. Tries seeds until one works.
fn random_game(plies: usize) -> (Vec<String>, Position) {
    for seed in 1..1000u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut pos = Position::startpos();
        let mut moves = Vec::new();
        while moves.len() < plies {
            let mut legal: Vec<Move> = pos.legal_moves().into_iter().collect();
            // Fisher-Yates shuffle.
            for i in (1..legal.len()).rev() {
                legal.swap(i, (rng.next() % (i as u64 + 1)) as usize);
            }
            if pos.halfmove_clock() >= 60 {
                legal.sort_by_key(|&m| {
                    let mut c = pos.clone();
                    c.play(m);
                    c.halfmove_clock() != 0
                });
            }
            let next = legal.into_iter().find(|&m| {
                let mut c = pos.clone();
                c.play(m);
                !game_over(&c)
            });
            let Some(m) = next else { break };
            moves.push(m.uci(false).to_string());
            pos.play(m);
        }
        if moves.len() == plies {
            return (moves, pos);
        }
    }
    panic!("no seed gave a {plies}-ply game");
}

#[test]
fn a_600_ply_game() {
    let _cpu = shared();
    let (moves, pos) = random_game(600);
    assert!(!game_over(&pos));
    let mut e = Engine::started();
    e.send(&format!("position startpos moves {}", moves.join(" ")));
    e.send("d");
    let fen_line = e.read_until("Fen: ", TIMEOUT).pop().unwrap();
    assert_eq!(fen_line, format!("Fen: {}", pos.fen()));
    e.read_until("Checkers:", TIMEOUT);
    let s = e.go(&pos, "go depth 2");
    assert!(s.error_lines().is_empty(), "{:?}", s.lines);
    assert_ne!(s.best, "0000");
    // The same position from its FEN.
    e.send(&format!("position fen {}", pos.fen()));
    e.go(&pos, "go depth 2");
    e.finish();
}

#[test]
fn no_legal_move() {
    let _cpu = shared();
    let mut e = Engine::started();
    for (fen, info) in [
        (CHECKMATED, "info depth 0 score mate 0"),
        (STALEMATE, "info depth 0 score cp 0"),
    ] {
        let pos = position(Some(fen), &[]);
        assert_eq!(pos.count_legal(), 0);
        e.send(&format!("position fen {fen}"));
        for go in [
            "go depth 3",
            "go wtime 1000 btime 1000",
            "go movetime 100",
            "go nodes 100",
        ] {
            let s = e.go(&pos, go);
            assert_eq!(s.lines, [info, "bestmove 0000"], "{fen} {go}");
        }
        // Infinite: the answer still waits for stop.
        e.send("go infinite");
        e.read_until(info, TIMEOUT);
        e.expect_none(
            |l| l.starts_with("bestmove"),
            Duration::from_millis(300),
            "bestmove before stop",
        );
        e.send("stop");
        assert_eq!(e.read_until("bestmove", TIMEOUT), ["bestmove 0000"]);
        e.sync();
    }
    // Reached by moves rather than by FEN.
    e.send("position startpos moves f2f3 e7e5 g2g4 d8h4");
    let s = e.go(
        &position(None, &["f2f3", "e7e5", "g2g4", "d8h4"]),
        "go depth 2",
    );
    assert_eq!(s.lines, ["info depth 0 score mate 0", "bestmove 0000"]);
    e.finish();
}

#[test]
fn display_and_perft() {
    let _cpu = shared();
    let mut e = Engine::started();
    e.send("position startpos moves e2e4");
    e.send("d");
    let lines = e.read_until("Checkers:", TIMEOUT);
    assert!(
        lines.contains(
            &"Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1".to_owned()
        ),
        "{lines:?}"
    );
    assert_eq!(lines.last().unwrap(), "Checkers: ");

    e.send("position startpos");
    e.send("go perft 3");
    let lines = e.read_until("Nodes searched:", TIMEOUT);
    assert_eq!(lines.len(), 22, "{lines:?}");
    assert_eq!(lines[20], "");
    assert_eq!(lines[21], "Nodes searched: 8902");
    let mut expected: Vec<String> = perft::divide(&startpos(), 3)
        .into_iter()
        .map(|(m, n)| format!("{}: {n}", m.uci(false)))
        .collect();
    expected.sort();
    assert_eq!(lines[..20], expected[..]);
    assert_eq!(lines[0], "a2a3: 380");
    assert_eq!(lines[11], "e2e4: 600");
    assert_eq!(e.sync(), Vec::<String>::new());

    // `perft N` is the same command.
    e.send("perft 1");
    let lines = e.read_until("Nodes searched:", TIMEOUT);
    assert_eq!(lines.len(), 22);
    assert_eq!(lines[21], "Nodes searched: 20");
    e.finish();
}

/// `flip` mirrors the position, as README says: colours swapped and the
/// board turned, so after 1. e4 it is White to move against a pawn on e5
/// (not the same board with the side to move swapped); the en-passant
/// square turns with it. A search then plays White's moves, and a second
/// `flip` gives the position back.
#[test]
fn flip_mirrors_the_position() {
    let _cpu = shared();
    let mut e = Engine::started();
    let fen = |e: &mut Engine| -> String {
        e.send("d");
        let lines = e.read_until("Checkers:", TIMEOUT);
        let fen = lines.iter().find_map(|l| l.strip_prefix("Fen: "));
        fen.unwrap_or_else(|| panic!("no Fen line in {lines:?}"))
            .to_owned()
    };
    e.send("position startpos moves e2e4");
    let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
    assert_eq!(fen(&mut e), after_e4);
    e.send("flip");
    let mirrored = "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1";
    assert_eq!(fen(&mut e), mirrored);
    e.go(&position(Some(mirrored), &[]), "go depth 2");
    e.send("flip");
    assert_eq!(fen(&mut e), after_e4);
    e.finish();
}

#[test]
fn chess960_castling() {
    let _cpu = shared();
    let mut e = Engine::started();
    e.send("setoption name UCI_Chess960 value true");
    e.chess960 = true;

    // King f1, rook h1: castling (king g1, rook f1) is the only mate.
    let mate = "4rkr1/4p1p1/8/8/8/8/8/5K1R w H - 0 1";
    let pos = position(Some(mate), &[]);
    e.send(&format!("position fen {mate}"));
    let s = e.go(&pos, "go depth 3");
    assert_eq!(s.best, "f1h1");
    assert_eq!(score(s.last_pv_line()), Some(("mate".to_owned(), 1)));
    s.check_legal(&pos, true);
    // After it Black is mated.
    let mated = "4rkr1/4p1p1/8/8/8/8/8/5RK1 b - - 1 1";
    e.send(&format!("position fen {mate} moves f1h1"));
    e.send("d");
    assert_eq!(
        e.read_until("Fen: ", TIMEOUT).pop().unwrap(),
        format!("Fen: {mated}")
    );
    e.read_until("Checkers:", TIMEOUT);
    let s = e.go(&position(Some(mated), &[]), "go depth 1");
    assert_eq!(s.lines, ["info depth 0 score mate 0", "bestmove 0000"]);

    // King d1, rook h1: both notations castle (d1g1 cannot be a king step).
    let start = "4rkr1/4p1p1/8/8/8/8/8/3K3R w H - 0 1";
    for mv in ["d1g1", "d1h1"] {
        e.send(&format!("position fen {start} moves {mv}"));
        e.send("d");
        assert_eq!(
            e.read_until("Fen: ", TIMEOUT).pop().unwrap(),
            format!("Fen: {mated}"),
            "{mv}"
        );
        e.read_until("Checkers:", TIMEOUT);
    }
    // X-FEN castling letters and a 960 start position, castling later.
    let nrbk = "nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w GBgb - 0 1";
    let moves = ["b2b3", "b7b6", "c1b2", "c8b7", "d1b1"];
    let pos = position(Some(nrbk), &moves);
    e.send(&format!("position fen {nrbk} moves {}", moves.join(" ")));
    e.send("d");
    assert_eq!(
        e.read_until("Fen: ", TIMEOUT).pop().unwrap(),
        format!("Fen: {}", pos.fen())
    );
    e.read_until("Checkers:", TIMEOUT);
    e.go(&pos, "go depth 3").check_legal(&pos, true);

    // In standard mode the same castling is printed as the king's step.
    e.send("setoption name UCI_Chess960 value false");
    e.chess960 = false;
    e.send("position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 moves e1h1 e8c8");
    e.send("d");
    assert_eq!(
        e.read_until("Fen: ", TIMEOUT).pop().unwrap(),
        "Fen: 2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2"
    );
    e.read_until("Checkers:", TIMEOUT);
    e.send("position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    e.send("go perft 1");
    let lines = e.read_until("Nodes searched:", TIMEOUT);
    assert!(lines.contains(&"e1g1: 1".to_owned()) && lines.contains(&"e1c1: 1".to_owned()));
    e.finish();
}

// ------------------------------------------------------------------ quit

#[test]
fn quit_during_infinite_search() {
    let _cpu = exclusive();
    let mut e = Engine::started();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    let took = e.quit(Duration::from_secs(1));
    println!("quit during go infinite: exited after {took:?}");

    // End of input is a quit too.
    let mut e = Engine::started();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    e.close_stdin();
    let took = e.wait_exit(Instant::now(), Duration::from_secs(1));
    println!("end of input during go infinite: exited after {took:?}");
}

// ---------------------------------------------------------- command line

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().expect("run forsyth");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("UTF-8 stdout"),
        String::from_utf8(out.stderr).expect("UTF-8 stderr"),
    )
}

#[test]
fn command_line_version_and_help() {
    let _cpu = shared();
    let (code, out, _) = run(&["--version"]);
    assert_eq!(code, 0);
    assert_eq!(out, format!("Forsyth {}\n", env!("CARGO_PKG_VERSION")));
    for spelling in ["-V", "version"] {
        let (code, again, _) = run(&[spelling]);
        assert_eq!((code, again.as_str()), (0, out.as_str()), "{spelling}");
    }
    let (code, out, _) = run(&["--help"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().next(), Some("Forsyth, a UCI chess engine."));
    assert!(out.contains("\nUsage: forsyth [COMMAND]\n"), "{out}");
    // Every command is listed, with the old spelling of `analyse` too.
    for command in [
        "bench",
        "perft",
        "perft-suite",
        "datagen",
        "book",
        "analyse",
        "epd",
        "fen",
        "help",
    ] {
        assert!(
            out.lines().any(|l| l.starts_with(&format!("  {command} "))),
            "{command} missing from\n{out}"
        );
    }
    assert!(out.contains("[alias: analyze]"), "{out}");
    assert!(
        out.contains("Without a command, Forsyth speaks UCI on stdin and stdout"),
        "{out}"
    );
    let (code, help, _) = run(&["help"]);
    assert_eq!((code, help), (0, out));
    let (code, out, _) = run(&["bench", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("Usage: forsyth bench [DEPTH]"), "{out}");
    let (code, out, err) = run(&["--frobnicate"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        "error: unexpected argument '--frobnicate' found\n\n\
         Usage: forsyth [COMMAND]\n\n\
         For more information, try '--help'.\n"
    );
}

fn is_bench_line(line: &str) -> bool {
    let parts: Vec<&str> = line.split(' ').collect();
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    parts.len() == 4
        && digits(parts[0])
        && parts[1] == "nodes"
        && digits(parts[2])
        && parts[3] == "nps"
}

#[test]
fn command_line_bench() {
    let _cpu = shared();
    let (code, out, _) = run(&["bench", "2"]);
    assert_eq!(code, 0);
    let last = out.lines().last().unwrap();
    assert!(is_bench_line(last), "{out}");
    assert!(out.lines().any(|l| l == "Depth:      2"), "{out}");
    // The node count is deterministic.
    let (_, again, _) = run(&["bench", "2"]);
    let nodes = |s: &str| {
        s.lines()
            .last()
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .to_owned()
    };
    assert_eq!(nodes(&out), nodes(&again));
    assert!(nodes(&out).parse::<u64>().unwrap() > 0);
    let (code, _, err) = run(&["bench", "x"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: invalid value 'x' for '[DEPTH]': invalid digit found in string\n"),
        "{err}"
    );
    // The same from the UCI loop.
    let mut e = Engine::started();
    e.send("bench 1");
    let line = e.expect_line(is_bench_line, TIMEOUT).pop().unwrap();
    assert!(is_bench_line(&line));
    e.finish();
}

#[test]
fn command_line_perft() {
    let _cpu = shared();
    let (code, out, _) = run(&["perft", "3"]);
    assert_eq!(code, 0);
    assert_eq!(out, format!("{}\n", perft::report(&startpos(), 3, false)));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 22);
    assert_eq!(lines[20], "");
    assert_eq!(lines[21], "Nodes searched: 8902");
    // From a FEN given as separate arguments.
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let mut args = vec!["perft", "2"];
    args.extend(kiwipete.split(' '));
    let (code, out, _) = run(&args);
    assert_eq!(code, 0);
    assert_eq!(out.lines().last(), Some("Nodes searched: 2039"));
    let (code, _, err) = run(&["perft"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: the following required arguments were not provided:\n  <N>\n"),
        "{err}"
    );
    let (code, _, err) = run(&["perft", "1", "not", "a", "fen", "at", "all"]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "forsyth: bad FEN: FEN piece placement field: expected 8 ranks, found 1\n"
    );
}

#[test]
fn the_transcript_helpers_work() {
    // The helpers themselves: fields, scores and PVs out of info lines.
    let line = "info depth 7 seldepth 9 multipv 2 score mate -3 nodes 1234 pv e2e4 e7e5";
    assert_eq!(field(line, "depth"), Some("7"));
    assert_eq!(num_field(line, "nodes"), Some(1234));
    assert_eq!(score(line), Some(("mate".to_owned(), -3)));
    assert_eq!(pv(line), ["e2e4", "e7e5"]);
    assert_eq!(
        legal(&startpos(), "g1f3", false).uci(false).to_string(),
        "g1f3"
    );
}
