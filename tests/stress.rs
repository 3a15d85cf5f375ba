//! The UCI front end under stress: many `go`/`stop` cycles with two search
//! threads, in random but seeded order: every kind of `go`, `stop` and
//! `ponderhit` after random short delays, `isready` during searches,
//! `setoption Hash` and `Clear Hash` between searches, `ucinewgame` in the
//! middle of games and during searches, stray `stop`s. Every `go` must be
//! answered by exactly one legal `bestmove` within a timeout, no error may
//! be reported, and `quit` must end the process with status 0.
//!
//! CI runs 1,000 cycles. `make stress` runs 10,000; the count and the seed
//! come from `FORSYTH_STRESS_CYCLES` and `FORSYTH_STRESS_SEED`.

mod common;

use common::{Engine, Search, TIMEOUT, env_or, sleep_ms};
use forsyth::engine::chess::Position;
use forsyth::engine::rng::Rng;
use std::time::{Duration, Instant};

/// Where new games start.
const STARTS: [&str; 4] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    // Kiwipete: castling both ways, many captures.
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    // Few pieces: deep searches, promotions.
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    // Late in the fifty-move count.
    "8/8/3k4/8/8/8/5P2/R3K2Q w - - 90 90",
];

/// The game the engine is told about: a start and the moves since.
struct Game {
    fen: &'static str,
    moves: Vec<String>,
    pos: Position,
}

impl Game {
    fn new(fen: &'static str) -> Game {
        let pos = Position::from_fen(fen).expect("a valid start").0;
        Game {
            fen,
            moves: Vec::new(),
            pos,
        }
    }

    fn command(&self) -> String {
        let mut c = format!("position fen {}", self.fen);
        if !self.moves.is_empty() {
            c.push_str(" moves ");
            c.push_str(&self.moves.join(" "));
        }
        c
    }

    fn over(&self) -> bool {
        self.pos.count_legal() == 0
            || self.pos.insufficient_material()
            || self.pos.halfmove_clock() >= 100
            || self.moves.len() >= 200
    }
}

#[derive(Default, Debug)]
struct Tally {
    gos: usize,
    /// `bestmove` lines received (counted by [`Engine`] as it reads them).
    bestmoves: usize,
    by_kind: [usize; KINDS.len()],
    hash_changes: usize,
    new_games: usize,
    stray_stops: usize,
    /// From `stop` or `ucinewgame` during an infinite or ponder search to
    /// its `bestmove`.
    max_stop_answer: Duration,
}

const KINDS: [&str; 8] = [
    "go infinite + stop",
    "go depth",
    "go movetime",
    "go wtime/btime",
    "go nodes",
    "go ponder + ponderhit",
    "go ponder + stop",
    "go infinite + ucinewgame",
];

/// Reads up to the `bestmove` of the running search and checks it (and its
/// ponder move and PVs) against `pos`; no error lines allowed. The
/// search's `elapsed` is counted from the last command sent.
fn answer(e: &mut Engine, pos: &Position) -> Search {
    e.answer(pos, e.sent_at)
}

fn run_stress(cycles: usize, seed: u64) -> Tally {
    let mut rng = Rng::new(seed);
    let mut tally = Tally::default();
    let mut e = Engine::start();
    e.handshake();
    e.send("setoption name Threads value 2");
    e.send("setoption name Ponder value true");
    assert_eq!(e.sync(), Vec::<String>::new());
    let mut game = Game::new(STARTS[0]);
    e.send("ucinewgame");

    for cycle in 0..cycles {
        // Between searches: options, a new game, a round trip.
        if rng.below(16) == 0 {
            let mb = [1, 2, 3, 8, 16, 32, 64][rng.below(7)];
            e.send(&format!("setoption name Hash value {mb}"));
            tally.hash_changes += 1;
        }
        if rng.below(64) == 0 {
            e.send("setoption name Clear Hash");
        }
        if game.over() || rng.below(40) == 0 {
            game = Game::new(STARTS[rng.below(STARTS.len())]);
            e.send("ucinewgame");
            tally.new_games += 1;
        }
        if rng.below(8) == 0 {
            assert_eq!(e.sync(), Vec::<String>::new(), "cycle {cycle}");
        }
        e.send(&game.command());

        let kind = rng.below(KINDS.len());
        tally.by_kind[kind] += 1;
        tally.gos += 1;
        let pos = game.pos.clone();
        let s = match kind {
            0 => {
                e.send("go infinite");
                sleep_ms(rng.below(12));
                if rng.below(4) == 0 {
                    // readyok at once, and no bestmove before stop.
                    e.sync();
                }
                e.send("stop");
                answer(&mut e, &pos)
            }
            1 => {
                e.send(&format!("go depth {}", 1 + rng.below(5)));
                if rng.below(3) == 0 {
                    // A stop that may come before or after the answer.
                    sleep_ms(rng.below(5));
                    e.send("stop");
                }
                answer(&mut e, &pos)
            }
            2 => {
                e.send(&format!("go movetime {}", 1 + rng.below(40)));
                answer(&mut e, &pos)
            }
            3 => {
                let time = 30 + rng.below(1500);
                let inc = rng.below(3) * 10;
                let mtg = match rng.below(3) {
                    0 => format!(" movestogo {}", 1 + rng.below(40)),
                    _ => String::new(),
                };
                e.send(&format!(
                    "go wtime {time} btime {time} winc {inc} binc {inc}{mtg}"
                ));
                answer(&mut e, &pos)
            }
            4 => {
                e.send(&format!("go nodes {}", 1 + rng.below(20_000)));
                answer(&mut e, &pos)
            }
            5 | 6 => {
                let time = 50 + rng.below(500);
                e.send(&format!("go ponder wtime {time} btime {time}"));
                sleep_ms(rng.below(12));
                e.send(if kind == 5 { "ponderhit" } else { "stop" });
                answer(&mut e, &pos)
            }
            _ => {
                e.send("go infinite");
                sleep_ms(rng.below(12));
                // ucinewgame ends the search, which still answers.
                e.send("ucinewgame");
                let s = answer(&mut e, &pos);
                game = Game::new(STARTS[rng.below(STARTS.len())]);
                tally.new_games += 1;
                s
            }
        };
        if matches!(kind, 0 | 6 | 7) {
            tally.max_stop_answer = tally.max_stop_answer.max(s.elapsed);
        }
        if rng.below(8) == 0 {
            // Nothing is searching: no answer may come.
            e.send("stop");
            tally.stray_stops += 1;
        }
        assert_eq!(e.bestmoves, tally.gos, "cycle {cycle}: bestmoves for gos");

        // Carry on with the game: mostly the engine's move, sometimes
        // another, so that positions do not repeat between runs of cycles.
        if kind != 7 && s.best != "0000" {
            let legal: Vec<_> = game.pos.legal_moves().into_iter().collect();
            let mv = if rng.below(3) == 0 {
                legal[rng.below(legal.len())]
            } else {
                common::legal(&game.pos, &s.best, false)
            };
            game.moves.push(mv.uci(false).to_string());
            game.pos.play(mv);
        }
    }
    assert_eq!(e.sync(), Vec::<String>::new());
    assert_eq!(e.bestmoves, tally.gos);
    tally.bestmoves = e.bestmoves;
    // quit: exit status 0, and no bestmove comes after the last answer.
    e.finish();
    tally
}

#[test]
fn go_stop_cycles() {
    let cycles = env_or("FORSYTH_STRESS_CYCLES", 1000) as usize;
    let seed = env_or("FORSYTH_STRESS_SEED", 1);
    let start = Instant::now();
    let tally = run_stress(cycles, seed);
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{cycles} cycles (seed {seed}) in {secs:.1} s: {} go, {} bestmove, \
         {} Hash changes, {} new games, {} stray stops; \
         slowest bestmove after stop or ucinewgame: {:?}",
        tally.gos,
        tally.bestmoves,
        tally.hash_changes,
        tally.new_games,
        tally.stray_stops,
        tally.max_stop_answer
    );
    for (kind, n) in KINDS.iter().zip(tally.by_kind) {
        println!("  {kind}: {n}");
    }
}

/// One line's counters, as the engine printed them.
#[derive(Clone, Copy, Debug)]
struct Counters {
    depth: u64,
    nodes: u64,
    nps: u64,
    time: u64,
    hashfull: u64,
}

/// What is wrong with `now`, given the line before it (if any).
fn anomalies(prev: Option<Counters>, now: Counters) -> Vec<String> {
    let mut found = Vec::new();
    if now.hashfull > 1000 {
        found.push(format!("hashfull {} > 1000", now.hashfull));
    }
    // nps is nodes * 1000 / time, rounded down (time at least 1 ms).
    let expect = u128::from(now.nodes) * 1000 / u128::from(now.time.max(1));
    if u128::from(now.nps) != expect {
        found.push(format!(
            "nps {} but nodes {} in {} ms give {expect}",
            now.nps, now.nodes, now.time
        ));
    }
    if let Some(p) = prev {
        if now.nodes < p.nodes {
            found.push(format!("nodes went down: {} -> {}", p.nodes, now.nodes));
        }
        if now.time < p.time {
            found.push(format!("time went down: {} -> {}", p.time, now.time));
        }
        if now.depth < p.depth {
            found.push(format!("depth went down: {} -> {}", p.depth, now.depth));
        }
    }
    found
}

fn counters(line: &str) -> Option<Counters> {
    Some(Counters {
        depth: common::num_field(line, "depth")?,
        nodes: common::num_field(line, "nodes")?,
        nps: common::num_field(line, "nps")?,
        time: common::num_field(line, "time")?,
        hashfull: common::num_field(line, "hashfull")?,
    })
}

#[test]
fn anomalies_are_found() {
    let ok = Counters {
        depth: 20,
        nodes: 3_000_000,
        nps: 1_500_000,
        time: 2000,
        hashfull: 400,
    };
    assert!(anomalies(None, ok).is_empty());
    let next = Counters {
        depth: 21,
        nodes: 9_000_000,
        nps: 3_000_000,
        time: 3000,
        hashfull: 1000,
    };
    assert!(anomalies(Some(ok), next).is_empty());
    assert_eq!(anomalies(Some(next), ok).len(), 3);
    let bad = Counters {
        nps: 7,
        hashfull: 1001,
        ..next
    };
    assert_eq!(anomalies(Some(ok), bad).len(), 2);
    let line = "info depth 3 seldepth 5 multipv 1 score cp 20 nodes 100 nps 50000 hashfull 0 tbhits 0 time 2 pv e2e4";
    let c = counters(line).unwrap();
    assert_eq!((c.depth, c.nodes, c.nps, c.time), (3, 100, 50_000, 2));
    assert!(counters("info depth 4 currmove e2e4 currmovenumber 1").is_none());
}

/// `go infinite` for `FORSYTH_LONG_SECS` seconds (default 3600) with
/// `FORSYTH_LONG_THREADS` threads (1) and `FORSYTH_LONG_HASH` MB (256):
/// resident memory is sampled every 5 s and must stay flat once the
/// search runs; every info line's nodes, time and depth must not go down,
/// its nps must be nodes * 1000 / time, its hashfull at most 1000; `stop`
/// must be answered. `make long-search` runs it.
#[test]
#[ignore = "runs for an hour by default; `make long-search`"]
fn long_search() {
    let secs = env_or("FORSYTH_LONG_SECS", 3600);
    let threads = env_or("FORSYTH_LONG_THREADS", 1);
    let hash = env_or("FORSYTH_LONG_HASH", 256);
    let mut e = Engine::start();
    e.handshake();
    e.send(&format!("setoption name Threads value {threads}"));
    e.send(&format!("setoption name Hash value {hash}"));
    e.send("position startpos moves e2e4 e7e5 g1f3 b8c6 f1b5 a7a6");
    assert_eq!(e.sync(), Vec::<String>::new());
    let rss = |e: &Engine| e.proc_status_kb("VmRSS").unwrap_or(0);
    let rss_start = rss(&e);
    e.send("go infinite");
    let start = Instant::now();
    let end = start + Duration::from_secs(secs);
    let mut prev: Option<Counters> = None;
    let mut problems = Vec::new();
    let mut lines = 0usize;
    // Resident memory after the first minute, when the table and the
    // threads' tables are all in use; it must not grow from there.
    let mut rss_settled = None;
    let mut rss_max = rss_start;
    let mut next_sample = start;
    let mut next_report = start + Duration::from_secs(60);
    while Instant::now() < end {
        let wait = next_sample
            .saturating_duration_since(Instant::now())
            .min(end.saturating_duration_since(Instant::now()));
        if let Some(line) = e.next_line(wait) {
            assert!(
                !line.text.starts_with("bestmove"),
                "bestmove during go infinite"
            );
            assert!(!line.text.starts_with("info string"), "{}", line.text);
            if let Some(c) = counters(&line.text) {
                lines += 1;
                for p in anomalies(prev, c) {
                    problems.push(format!("{p} in '{}'", line.text));
                }
                prev = Some(c);
            }
            // Keep the transcript short over an hour.
            if e.transcript.len() > 1000 {
                e.transcript.drain(..500);
            }
        }
        if Instant::now() >= next_sample {
            next_sample += Duration::from_secs(5);
            let now = rss(&e);
            rss_max = rss_max.max(now);
            if start.elapsed() >= Duration::from_secs(60.min(secs / 2)) && rss_settled.is_none() {
                rss_settled = Some(now);
            }
        }
        if Instant::now() >= next_report {
            next_report += Duration::from_secs(60);
            println!(
                "{:>5} s: VmRSS {} kB, last line {:?}",
                start.elapsed().as_secs(),
                rss(&e),
                prev
            );
        }
    }
    let rss_end = rss(&e);
    e.send("stop");
    let stop_sent = e.sent_at;
    let s = Search::new(e.read_until("bestmove", TIMEOUT), stop_sent.elapsed());
    s.check_legal(
        &common::position(None, &["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]),
        false,
    );
    let answered = stop_sent.elapsed();
    e.finish();
    let settled = rss_settled.unwrap_or(rss_start);
    println!(
        "go infinite for {secs} s, Threads {threads}, Hash {hash}: {lines} info lines, \
         last {prev:?}; VmRSS {rss_start} kB before go, {settled} kB when settled, \
         {rss_end} kB at the end, {rss_max} kB at most; stop answered in {answered:?}"
    );
    for p in &problems {
        println!("anomaly: {p}");
    }
    assert!(problems.is_empty(), "{} anomalies", problems.len());
    // Flat: no more than 1 MB above the settled size.
    assert!(
        rss_max <= settled + 1024,
        "memory grew from {settled} kB to {rss_max} kB"
    );
}
