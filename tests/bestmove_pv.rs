//! `bestmove` agrees with the last PV the engine printed (issue 29), as
//! tournament managers check ("Bestmove does not match beginning of last
//! PV"): however a search ends, the last `info ... pv` line of the search
//! (the `multipv 1` line with MultiPV) begins with the move played, and the
//! `ponder` move is its second move (none when the line has one move).
//!
//! Searches from varied positions (openings, middlegames and tactics,
//! positions with one legal move, mates, tablebase endgames) are ended at
//! random moments in every way a search ends: `go movetime`, small clocks,
//! `go infinite` + `stop`, `go nodes`, `go depth`, `go ponder` +
//! `ponderhit` (before and after the ponder search has finished) and
//! `go ponder` + `stop`; with Threads 1 and 2, MultiPV 1 and 3, with and
//! without Syzygy tables, and at limited strength (`UCI_LimitStrength`,
//! issue 31: the move drawn among several lines). Eight engine processes
//! run side by side, each kept for all its searches, with a seeded
//! sequence of commands.
//!
//! CI runs 2,000 searches with mostly short waits (and 500 at limited
//! strength); the ignored
//! `bestmove_agrees_with_the_last_pv_long` runs 20,000 with the issue's
//! full ranges. `FORSYTH_PV_SEARCHES` and `FORSYTH_PV_SEED` change the
//! count and the seed of the first.

mod common;

use common::{Engine, Search, env_or, field, pv, sleep_ms};
use forsyth::engine::chess::Position;
use forsyth::engine::rng::Rng;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");

/// The engine processes: (Threads, MultiPV, Syzygy tables, UCI_Elo with
/// UCI_LimitStrength on).
type Setup = (usize, usize, bool, Option<u32>);

const SETUPS: [Setup; 4] = [
    (1, 1, true, None),
    (2, 1, false, None),
    (1, 3, false, None),
    (2, 3, true, None),
];

/// At a limited strength (issue 31): the move is drawn among several
/// lines, and the line of the move drawn is reported last.
const LIMITED: [Setup; 4] = [
    (1, 1, false, Some(1350)),
    (2, 3, true, Some(1350)),
    (1, 1, true, Some(1600)),
    (2, 2, false, Some(1800)),
];
/// Engine processes running side by side, each with a setup in turn (most
/// of the time of a search is waiting).
const PROCESSES: usize = 8;

const KINDS: [&str; 9] = [
    "go movetime",
    "go wtime/btime",
    "go infinite + stop",
    "go nodes",
    "go depth",
    "go ponder + ponderhit",
    "go ponder + stop",
    "go ponder depth + ponderhit",
    "go depth + stop",
];

/// Mates and lost positions the suites may not cover.
const MATES: [&str; 6] = [
    // Mate in one on the back rank.
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    // Mate in two (README's example).
    "7k/8/5K2/8/8/8/8/6R1 w - - 0 1",
    // Légal's mate: 1. Nf6+ gxf6 2. Bxf7#.
    "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1",
    // Being mated in one, whatever Black plays.
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1",
    // Checkmated: `bestmove 0000` and no PV.
    "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
    // Stalemated.
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
];

/// How long searches last: CI's mostly short ones, or the full
/// ranges.
#[derive(Copy, Clone)]
struct Pace {
    /// Waits before `stop` or `ponderhit` are up to this many ms.
    wait_ms: usize,
    /// Clocks (`wtime`, `btime`) are 10 ms plus up to this many.
    clock_ms: usize,
    /// `go nodes` asks for up to 10 to this power.
    nodes_log10: f64,
    /// `go depth` asks for up to this depth.
    depth: usize,
    /// Each wait is the smallest of this many uniform draws (1: uniform),
    /// so that most are short and some are long.
    draws: usize,
}

const SHORT: Pace = Pace {
    wait_ms: 30,
    clock_ms: 600,
    nodes_log10: 4.5,
    depth: 7,
    draws: 2,
};

const FULL: Pace = Pace {
    wait_ms: 60,
    clock_ms: 3000,
    nodes_log10: 5.0,
    depth: 10,
    draws: 1,
};

impl Pace {
    /// A wait of up to `max` ms.
    fn ms(self, rng: &mut Rng, max: usize) -> usize {
        (0..self.draws)
            .map(|_| rng.below(max + 1))
            .min()
            .unwrap_or(0)
    }
}

fn read_lines(path: &str) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .map(|l| l.trim().to_owned())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// The first four FEN fields of an EPD record, as a six-field FEN.
fn epd_fen(line: &str) -> String {
    let fields: Vec<&str> = line.split_whitespace().take(4).collect();
    format!("{} 0 1", fields.join(" "))
}

/// `n` lines of `lines` drawn at random (with repeats).
fn sample(rng: &mut Rng, lines: &[String], n: usize) -> Vec<String> {
    (0..n)
        .map(|_| lines[rng.below(lines.len())].clone())
        .collect()
}

/// The positions searched, as FENs; every kind the issue names.
fn positions(rng: &mut Rng) -> Vec<String> {
    let noob = read_lines(&format!("{DATA}/openings/noob_3moves-every1000.epd"));
    let eight = read_lines(&format!("{DATA}/openings/8moves_v3-every97.epd"));
    let wac: Vec<String> = read_lines(&format!("{DATA}/epd/wac.epd"))
        .into_iter()
        .filter(|l| l.contains(" bm "))
        .collect();
    let bk = read_lines(&format!("{DATA}/epd/bratko-kopec.epd"));
    let endgames = read_lines(&format!("{DATA}/syzygy/endgame.epd"));

    let mut fens = Vec::new();
    fens.extend(sample(rng, &noob, 120));
    fens.extend(sample(rng, &eight, 120));
    fens.extend(wac.iter().map(|l| epd_fen(l)));
    fens.extend(bk.iter().map(|l| epd_fen(l)));
    // The defender's side of the tactics: after the key move, often mated.
    for line in wac.iter().step_by(3) {
        let mut pos = Position::from_fen(&epd_fen(line)).expect("a WAC FEN").0;
        let san = line
            .split(" bm ")
            .nth(1)
            .and_then(|r| r.split([' ', ';']).next())
            .expect("a bm move");
        let m = pos
            .parse_san(san)
            .unwrap_or_else(|e| panic!("{san}: {e:?}"));
        pos.play(m);
        fens.push(pos.fen());
    }
    fens.extend(sample(rng, &endgames, 60).iter().map(|l| epd_fen(l)));
    fens.extend(MATES.iter().map(|s| s.to_string()));
    let one_move = one_move_positions(rng, &noob, 40);
    assert!(one_move.len() >= 20, "few positions with one legal move");
    fens.extend(one_move);
    for fen in &fens {
        Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e:?}"));
    }
    fens
}

/// Positions with exactly one legal move, found by random games from
/// openings.
fn one_move_positions(rng: &mut Rng, openings: &[String], want: usize) -> Vec<String> {
    let mut found = Vec::new();
    for _ in 0..20_000 {
        if found.len() >= want {
            break;
        }
        let fen = &openings[rng.below(openings.len())];
        let mut pos = Position::from_fen(fen).expect("an opening FEN").0;
        for _ in 0..80 {
            let moves: Vec<_> = pos.legal_moves().into_iter().collect();
            if moves.len() == 1 {
                found.push(pos.fen());
                break;
            }
            if moves.is_empty() || pos.halfmove_clock() >= 100 {
                break;
            }
            pos.play(moves[rng.below(moves.len())]);
        }
    }
    found
}

/// One search that broke the rule.
#[derive(Debug)]
struct Mismatch {
    setup: usize,
    kind: usize,
    what: &'static str,
    commands: Vec<String>,
    lines: Vec<String>,
}

#[derive(Default)]
struct Tally {
    setup: usize,
    searches: usize,
    by_kind: [usize; KINDS.len()],
    /// From `go` to `bestmove`, by kind.
    time_by_kind: [Duration; KINDS.len()],
    mismatches: Vec<Mismatch>,
}

/// What is wrong with one search's answer, if anything: the last PV line
/// must exist, begin with the best move and have the ponder move second;
/// with MultiPV, the last line of each number (what a GUI shows) must begin
/// with different moves.
fn verdict(s: &Search, pos: &Position) -> Option<&'static str> {
    if pos.count_legal() == 0 {
        return None; // check_legal has checked bestmove 0000 and no PV.
    }
    let pv_lines: Vec<&String> = s
        .lines
        .iter()
        .filter(|l| l.starts_with("info ") && !l.starts_with("info string") && l.contains(" pv "))
        .collect();
    let mut shown: Vec<(String, String)> = Vec::new();
    for l in &pv_lines {
        let number = field(l, "multipv").unwrap_or("1").to_owned();
        shown.retain(|(n, _)| *n != number);
        shown.push((number, pv(l).first().cloned().unwrap_or_default()));
    }
    let mut firsts: Vec<&String> = shown.iter().map(|(_, m)| m).collect();
    firsts.sort();
    firsts.dedup();
    if firsts.len() < shown.len() {
        return Some("two multipv lines begin with the same move");
    }
    let last = pv_lines
        .into_iter()
        .rfind(|l| field(l, "multipv").is_none_or(|m| m == "1"));
    let Some(last) = last else {
        return Some("no pv line");
    };
    let line = pv(last);
    if line.first() != Some(&s.best) {
        return Some("bestmove is not the pv's first move");
    }
    if line.get(1) != s.ponder.as_ref() {
        return Some("ponder is not the pv's second move");
    }
    None
}

/// One engine process's share: `searches` searches with its setup.
fn run_process(
    setups: &[Setup],
    process: usize,
    searches: usize,
    seed: u64,
    pace: Pace,
    fens: &[String],
) -> Tally {
    let setup = process % setups.len();
    let (threads, multipv, syzygy, elo) = setups[setup];
    let mut rng = Rng::new(seed ^ (process as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut tally = Tally {
        setup,
        ..Tally::default()
    };
    let mut e = Engine::start();
    e.handshake();
    e.send(&format!("setoption name Threads value {threads}"));
    e.send(&format!("setoption name MultiPV value {multipv}"));
    e.send("setoption name Ponder value true");
    if let Some(elo) = elo {
        e.send("setoption name UCI_LimitStrength value true");
        e.send(&format!("setoption name UCI_Elo value {elo}"));
    }
    if syzygy {
        e.send(&format!("setoption name SyzygyPath value {DATA}/syzygy"));
    }
    for line in e.sync() {
        assert!(line.starts_with("info string SyzygyPath: "), "{line}");
    }

    for _ in 0..searches {
        if rng.below(10) == 0 {
            e.send("ucinewgame");
        }
        // Sometimes with moves played from the position (a game history).
        let fen = &fens[rng.below(fens.len())];
        let mut pos = Position::from_fen(fen).expect("a valid FEN").0;
        let mut position = format!("position fen {fen}");
        if rng.below(4) == 0 {
            for i in 0..1 + rng.below(4) {
                let moves: Vec<_> = pos.legal_moves().into_iter().collect();
                if moves.is_empty() {
                    break;
                }
                let m = moves[rng.below(moves.len())];
                position.push_str(if i == 0 { " moves " } else { " " });
                position.push_str(&m.uci(false).to_string());
                pos.play(m);
            }
        }
        e.send(&position);
        let mut commands = vec![position];

        let kind = rng.below(KINDS.len());
        let go_at = Instant::now();
        let clock = |rng: &mut Rng| {
            let time = 10 + pace.ms(rng, pace.clock_ms);
            let inc = [0, 0, 10, 50][rng.below(4)];
            let mtg = match rng.below(4) {
                0 => format!(" movestogo {}", 1 + rng.below(30)),
                _ => String::new(),
            };
            format!("wtime {time} btime {time} winc {inc} binc {inc}{mtg}")
        };
        let mut send = |e: &mut Engine, c: String| {
            e.send(&c);
            commands.push(c);
        };
        match kind {
            0 => send(&mut e, format!("go movetime {}", 1 + pace.ms(&mut rng, 59))),
            1 => send(&mut e, format!("go {}", clock(&mut rng))),
            2 => {
                send(&mut e, "go infinite".into());
                sleep_ms(pace.ms(&mut rng, pace.wait_ms));
                send(&mut e, "stop".into());
            }
            3 => {
                // From 1 node (nothing searched) up, log-uniform.
                let nodes = 10f64.powf(pace.nodes_log10 * rng.unit()) as u64;
                send(&mut e, format!("go nodes {nodes}"));
            }
            4 => send(&mut e, format!("go depth {}", 1 + rng.below(pace.depth))),
            5 | 6 => {
                let c = clock(&mut rng);
                send(&mut e, format!("go ponder {c}"));
                sleep_ms(pace.ms(&mut rng, pace.wait_ms));
                send(&mut e, if kind == 5 { "ponderhit" } else { "stop" }.into());
            }
            7 => {
                // A ponder search that ends by itself, then waits.
                let c = clock(&mut rng);
                send(&mut e, format!("go ponder depth {} {c}", 1 + rng.below(4)));
                sleep_ms(pace.ms(&mut rng, pace.wait_ms));
                send(&mut e, "ponderhit".into());
            }
            _ => {
                send(&mut e, format!("go depth {}", 4 + rng.below(8)));
                sleep_ms(pace.ms(&mut rng, pace.wait_ms));
                send(&mut e, "stop".into());
            }
        }
        let s = e.answer(&pos, go_at);
        // Exactly one answer: nothing more before readyok.
        e.sync();
        tally.searches += 1;
        tally.by_kind[kind] += 1;
        tally.time_by_kind[kind] += s.elapsed;
        if let Some(what) = verdict(&s, &pos) {
            tally.mismatches.push(Mismatch {
                setup,
                kind,
                what,
                commands,
                lines: s.lines,
            });
        }
    }
    e.finish();
    tally
}

/// Runs `searches` searches over the setups side by side; fails with
/// counts and examples on any mismatch.
fn check_agreement(setups: &'static [Setup], searches: usize, seed: u64, pace: Pace) {
    let start = Instant::now();
    let fens = Arc::new(positions(&mut Rng::new(seed)));
    let per_process = searches.div_ceil(PROCESSES);
    let handles: Vec<_> = (0..PROCESSES)
        .map(|process| {
            let fens = Arc::clone(&fens);
            std::thread::spawn(move || run_process(setups, process, per_process, seed, pace, &fens))
        })
        .collect();
    let tallies: Vec<Tally> = handles
        .into_iter()
        .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
        .collect();

    let total: usize = tallies.iter().map(|t| t.searches).sum();
    let mismatches: Vec<&Mismatch> = tallies.iter().flat_map(|t| &t.mismatches).collect();
    let mut report = format!(
        "{total} searches (seed {seed}, {} positions) in {:.1} s: {} mismatches\n",
        fens.len(),
        start.elapsed().as_secs_f64(),
        mismatches.len()
    );
    for (setup, &(threads, multipv, syzygy, elo)) in setups.iter().enumerate() {
        let of_setup = || tallies.iter().filter(|t| t.setup == setup);
        let _ = writeln!(
            report,
            "  Threads {threads} MultiPV {multipv}{}{}: {} searches, {} mismatches",
            if syzygy { " Syzygy" } else { "" },
            elo.map_or(String::new(), |e| format!(" UCI_Elo {e}")),
            of_setup().map(|t| t.searches).sum::<usize>(),
            of_setup().map(|t| t.mismatches.len()).sum::<usize>()
        );
    }
    for (kind, name) in KINDS.iter().enumerate() {
        let n: usize = tallies.iter().map(|t| t.by_kind[kind]).sum();
        let bad = mismatches.iter().filter(|m| m.kind == kind).count();
        let time: Duration = tallies.iter().map(|t| t.time_by_kind[kind]).sum();
        let _ = writeln!(
            report,
            "  {name}: {n} searches, {bad} mismatches, {:.1} ms on average",
            time.as_secs_f64() * 1000.0 / n.max(1) as f64
        );
    }
    for what in [
        "no pv line",
        "bestmove is not the pv's first move",
        "ponder is not the pv's second move",
        "two multipv lines begin with the same move",
    ] {
        let bad = mismatches.iter().filter(|m| m.what == what).count();
        let _ = writeln!(report, "  {what}: {bad}");
    }
    println!("{report}");
    if let Some(first) = mismatches.first() {
        let mut examples = String::new();
        for m in mismatches.iter().take(4) {
            let (threads, multipv, _, _) = setups[m.setup];
            let tail = m.lines.len().saturating_sub(6);
            let _ = writeln!(
                examples,
                "-- Threads {threads} MultiPV {multipv}, {}: {}\n{}\n{}",
                KINDS[m.kind],
                m.what,
                m.commands.join("\n"),
                m.lines[tail..].join("\n")
            );
        }
        panic!(
            "{} searches answered a move the last PV does not start with ({}, first: {}):\n{report}{examples}",
            mismatches.len(),
            first.what,
            KINDS[first.kind]
        );
    }
}

#[test]
fn bestmove_agrees_with_the_last_pv() {
    let searches = env_or("FORSYTH_PV_SEARCHES", 2000) as usize;
    let seed = env_or("FORSYTH_PV_SEED", 29);
    check_agreement(&SETUPS, searches, seed, SHORT);
}

/// The same with UCI_LimitStrength on (500 searches; the weakened searches
/// are short).
#[test]
fn bestmove_agrees_with_the_last_pv_at_limited_strength() {
    let searches = env_or("FORSYTH_PV_SEARCHES", 500) as usize;
    let seed = env_or("FORSYTH_PV_SEED", 31);
    check_agreement(&LIMITED, searches, seed, SHORT);
}

/// 20,000 searches with the full ranges of waits (some minutes).
#[test]
#[ignore]
fn bestmove_agrees_with_the_last_pv_long() {
    check_agreement(&SETUPS, 20_000, env_or("FORSYTH_PV_SEED", 2929), FULL);
}
