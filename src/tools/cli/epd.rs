//! `forsyth epd FILE`: run a test suite; `forsyth epd --write`: search a
//! position and print it as EPD with the search's `bm`, `ce`, `acd`, `pv`.
//!
//! Results go to stdout (one line per position, then a summary), progress
//! to stderr, so that `forsyth epd wac.epd > result.txt` keeps a clean log.
//!
//! Each record with `bm`, `am` or `dm` is searched with a fresh table; the
//! move played counts as solved when it is one of the `bm` moves (if any),
//! none of the `am` moves, and, with `dm N`, comes with a mate of at most N
//! moves. The time to solution is when the search last switched to a right
//! move and stayed on it. Records with none of the three (perft lines, say)
//! are skipped and counted. `forsyth epd` searches with no move overhead.
//!
//! `--json OUT` writes one object: `file`, `threads`, `hash_mb`; `limit`
//! (`{"movetime_ms": N}`, `{"depth": N}` or `{"nodes": N}`);
//! `positions_in_suite`, `searched`, `solved`; `failed` (the ids of the
//! unsolved positions, `line N` without an `id`);
//! `average_time_to_solution_ms` (`null` if none was solved); `interrupted`
//! (after Ctrl-C); `results`, one object per searched position with `line`,
//! `id`, `fen`, `bm`, `am` (SAN lists), `dm` (or `null`), `played` (SAN),
//! `played_uci`, `solved`, `time_to_solution_ms` (or `null`), `time_ms`,
//! `depth`, `nodes`, `score` (`"cp 35"` or `"mate 2"`; `null` when the
//! search stopped before any move was scored) and `pv` (SAN, beginning with
//! the move played).

use super::args::EpdArgs;
use super::{interrupt, read_fen};
use crate::engine::chess::Move;
use crate::engine::chess::epd::{Epd, Operand, Operation};
use crate::engine::search::Budget;
use crate::engine::search::{MATE, mate_in};
use crate::tools::progress::{Meter, templates};
use crate::tools::suite::{Expectation, Outcome, Runner};
use serde::{Serialize, Serializer};
use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Without a limit, what test suites are usually run at.
pub const DEFAULT_MOVETIME_MS: u64 = 1000;

/// The exit status after Ctrl-C, as shells report a SIGINT death.
pub const INTERRUPTED_STATUS: u8 = 130;

/// What `forsyth epd` ended with, for `main` to choose the exit status.
pub enum Finish {
    Done,
    Interrupted,
}

pub fn run(args: &EpdArgs) -> Result<Finish, String> {
    if args.write {
        return write(args).map(|()| Finish::Done);
    }
    // clap asks for a file without --write.
    let Some(file) = &args.file else {
        return Err("epd needs one suite file (or --write --fen FEN)".into());
    };
    let budget = args
        .search
        .limit
        .budget()
        .unwrap_or(Budget::MoveTime(DEFAULT_MOVETIME_MS));
    let (threads, hash) = (args.search.threads, args.search.hash);
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    let suite = read_suite(file, &text);
    if suite.is_empty() {
        return Err(format!("{file}: no position with bm, am or dm to test"));
    }
    let mut runner = Runner::new(budget, threads, hash)?;
    let flag = interrupt::install();
    let results = run_suite(&mut runner, &suite, budget, flag);
    let interrupted = results.len() < suite.len();
    print_summary(&suite, &results, interrupted);
    if let Some(path) = &args.json {
        let doc = json_report(file, budget, threads, hash, &suite, &results, interrupted);
        let text = serde_json::to_string(&doc).map_err(|e| e.to_string())?;
        std::fs::write(path, format!("{text}\n")).map_err(|e| format!("{path}: {e}"))?;
    }
    Ok(if interrupted {
        Finish::Interrupted
    } else {
        Finish::Done
    })
}

/// One position of a suite, with what it asks for.
struct Case {
    line: usize,
    id: String,
    epd: Epd,
    expect: Expectation,
}

/// The testable records of a file. Malformed lines are reported on stderr
/// with their line number and skipped; comments (`#`) and blank lines are
/// passed over, and records with nothing to check are counted and skipped.
fn read_suite(file: &str, text: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut untestable = 0;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        match Epd::parse(trimmed) {
            Err(e) => eprintln!("{file}:{n}: {e}; line skipped"),
            Ok(epd) => match Expectation::of(&epd) {
                None => untestable += 1,
                Some(expect) => cases.push(Case {
                    line: n,
                    id: epd.id().unwrap_or_else(|| format!("line {n}")),
                    epd,
                    expect,
                }),
            },
        }
    }
    if untestable > 0 {
        eprintln!("{file}: {untestable} records without bm, am or dm skipped");
    }
    cases
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

fn run_suite(
    runner: &mut Runner,
    suite: &[Case],
    budget: Budget,
    flag: &AtomicBool,
) -> Vec<Outcome> {
    let meter = Meter::new(suite.len() as u64, templates::EPD);
    let start = Instant::now();
    let mut results: Vec<Outcome> = Vec::new();
    let mut solved = 0;
    for (k, case) in suite.iter().enumerate() {
        let text = progress(k, suite.len(), solved, start.elapsed(), budget);
        if meter.is_bar() {
            meter.set_position(k as u64);
            meter.set_message(text);
        } else {
            meter.line(&text);
        }
        let Some(outcome) = runner.run(&case.epd, &case.expect, flag) else {
            break;
        };
        solved += usize::from(outcome.solved);
        let line = result_line(k + 1, suite.len(), case, &outcome);
        meter.suspend(|| println!("{line}"));
        results.push(outcome);
    }
    meter.finish();
    let _ = std::io::stdout().flush();
    results
}

/// `position k of n, solved so far, time left`: the bar's message on a
/// terminal, one line per position on stderr otherwise.
fn progress(done: usize, total: usize, solved: usize, spent: Duration, budget: Budget) -> String {
    let left = total - done;
    // With a fixed time the estimate is exact; otherwise extrapolate.
    let eta = match budget {
        Budget::MoveTime(ms) => Some(ms as f64 / 1000.0 * left as f64),
        _ if done > 0 => Some(secs(spent) / done as f64 * left as f64),
        _ => None,
    };
    let eta = eta.map_or("?".to_string(), |s| format!("{s:.0} s"));
    format!(
        "position {} of {total}, solved {solved}/{done}, about {eta} left",
        done + 1
    )
}

fn score_text(score: i32) -> String {
    match mate_in(score) {
        Some(m) => format!("mate {m}"),
        None => format!("cp {score}"),
    }
}

/// The score, or why there is none.
fn score_or_none(score: Option<i32>) -> String {
    score.map_or_else(|| "no score".to_string(), score_text)
}

fn result_line(k: usize, n: usize, case: &Case, o: &Outcome) -> String {
    let pos = &case.epd.position;
    let played = o.played.map_or("(none)".to_string(), |m| pos.san(m));
    let verdict = if o.solved { "ok  " } else { "FAIL" };
    let when = o
        .time_to_solution
        .map_or(String::new(), |t| format!(" found {:.2} s", secs(t)));
    format!(
        "{k:>4}/{n} {:<12} {verdict} {played:<8} ({})  {} depth {} time {:.2} s{when}",
        case.id,
        case.expect.describe(pos),
        score_or_none(o.score),
        o.depth,
        secs(o.time)
    )
}

fn print_summary(suite: &[Case], results: &[Outcome], interrupted: bool) {
    let solved = results.iter().filter(|o| o.solved).count();
    let failed: Vec<&str> = suite
        .iter()
        .zip(results)
        .filter(|(_, o)| !o.solved)
        .map(|(c, _)| c.id.as_str())
        .collect();
    if interrupted {
        println!(
            "interrupted: {} of {} positions searched",
            results.len(),
            suite.len()
        );
    }
    let pct = 100.0 * solved as f64 / results.len().max(1) as f64;
    println!("solved {solved}/{} ({pct:.1}%)", results.len());
    println!(
        "failed: {}",
        if failed.is_empty() {
            "(none)".to_string()
        } else {
            failed.join(" ")
        }
    );
    match average_time_to_solution(results) {
        Some(t) => println!("average time to solution: {t:.3} s"),
        None => println!("average time to solution: - (nothing solved)"),
    }
}

fn average_time_to_solution(results: &[Outcome]) -> Option<f64> {
    let times: Vec<f64> = results
        .iter()
        .filter_map(|o| o.time_to_solution.map(secs))
        .collect();
    (!times.is_empty()).then(|| times.iter().sum::<f64>() / times.len() as f64)
}

/// `{"movetime_ms": N}`, `{"depth": N}` or `{"nodes": N}`.
#[derive(Serialize)]
enum LimitJson {
    #[serde(rename = "movetime_ms")]
    MoveTime(u64),
    #[serde(rename = "depth")]
    Depth(u32),
    #[serde(rename = "nodes")]
    Nodes(u64),
}

impl From<Budget> for LimitJson {
    fn from(budget: Budget) -> LimitJson {
        match budget {
            Budget::MoveTime(ms) => LimitJson::MoveTime(ms),
            Budget::Depth(d) => LimitJson::Depth(d),
            Budget::Nodes(n) => LimitJson::Nodes(n),
        }
    }
}

/// One searched position of `epd --json` (docs/command-line.md, `forsyth epd`).
#[derive(Serialize)]
struct PositionJson {
    line: usize,
    id: String,
    fen: String,
    bm: Vec<String>,
    am: Vec<String>,
    dm: Option<i64>,
    played: Option<String>,
    played_uci: Option<String>,
    solved: bool,
    time_to_solution_ms: Option<u64>,
    time_ms: u64,
    depth: u32,
    nodes: u64,
    /// Null when the search stopped before any move was scored.
    score: Option<String>,
    pv: Vec<String>,
}

/// The report `epd --json OUT` writes, fields in the documented order.
#[derive(Serialize)]
struct ReportJson<'a> {
    file: &'a str,
    limit: LimitJson,
    threads: usize,
    hash_mb: usize,
    positions_in_suite: usize,
    searched: usize,
    solved: usize,
    failed: Vec<&'a str>,
    #[serde(serialize_with = "three_decimals")]
    average_time_to_solution_ms: Option<f64>,
    interrupted: bool,
    results: Vec<PositionJson>,
}

/// A number to three decimals, without trailing zeros (`76.125`, `12`).
fn three_decimals<S: Serializer>(x: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match x.map(|x| format!("{x:.3}").parse::<f64>()) {
        Some(Ok(x)) if x.fract() == 0.0 && x.abs() < 1e15 => s.serialize_i64(x as i64),
        Some(Ok(x)) if x.is_finite() => s.serialize_f64(x),
        _ => s.serialize_none(),
    }
}

fn json_report<'a>(
    file: &'a str,
    budget: Budget,
    threads: usize,
    hash: usize,
    suite: &'a [Case],
    results: &[Outcome],
    interrupted: bool,
) -> ReportJson<'a> {
    let sans = |pos: &crate::engine::chess::Position, moves: &[Move]| -> Vec<String> {
        moves.iter().map(|&m| pos.san(m)).collect()
    };
    let positions = suite
        .iter()
        .zip(results)
        .map(|(c, o)| {
            let pos = &c.epd.position;
            PositionJson {
                line: c.line,
                id: c.id.clone(),
                fen: pos.fen(),
                bm: sans(pos, &c.expect.bm),
                am: sans(pos, &c.expect.am),
                dm: c.expect.dm,
                played: o.played.map(|m| pos.san(m)),
                played_uci: o.played.map(|m| m.uci(false).to_string()),
                solved: o.solved,
                time_to_solution_ms: o.time_to_solution.map(|t| t.as_millis() as u64),
                time_ms: o.time.as_millis() as u64,
                depth: o.depth,
                nodes: o.nodes,
                score: o.score.map(score_text),
                pv: Epd::san_line(pos, &o.pv),
            }
        })
        .collect();
    ReportJson {
        file,
        limit: budget.into(),
        threads,
        hash_mb: hash,
        positions_in_suite: suite.len(),
        searched: results.len(),
        solved: results.iter().filter(|o| o.solved).count(),
        failed: suite
            .iter()
            .zip(results)
            .filter(|(_, o)| !o.solved)
            .map(|(c, _)| c.id.as_str())
            .collect(),
        average_time_to_solution_ms: average_time_to_solution(results).map(|s| s * 1000.0),
        interrupted,
        results: positions,
    }
}

/// EPD's `ce` for a mate is 32767 less the distance in plies (negative
/// when being mated), the convention EPD tools share.
fn epd_ce(score: i32) -> i64 {
    const EPD_MATE: i64 = 32767;
    match mate_in(score) {
        Some(_) => {
            let plies = i64::from(MATE - score.abs());
            (EPD_MATE - plies) * i64::from(score.signum())
        }
        None => score.into(),
    }
}

/// `forsyth epd --write [--fen FEN]`: the position with the search's
/// `acd`, `acn`, `acs`, `bm`, `ce` (unless no move was scored), `dm`
/// (when a mate is found), `pv` (beginning with `bm`), and the counters as
/// `hmvc` and `fmvn`.
fn write(args: &EpdArgs) -> Result<(), String> {
    let pos = if args.fen.is_empty() {
        crate::engine::chess::Position::startpos()
    } else {
        read_fen(&args.fen)?
    };
    let budget = args
        .search
        .limit
        .budget()
        .unwrap_or(Budget::Depth(super::analyse::DEFAULT_DEPTH));
    let (threads, hash) = (args.search.threads, args.search.hash);
    let mut epd = Epd::from_position(pos.clone());
    let int = |opcode: &str, n: i64| Operation {
        opcode: opcode.to_string(),
        operands: vec![Operand::Int(n)],
    };
    if pos.count_legal() > 0 {
        let mut runner = Runner::new(budget, threads, hash)?;
        let never = AtomicBool::new(false);
        // Nothing to check: an empty expectation is met by any move.
        let outcome = runner
            .run(&epd, &Expectation::default(), &never)
            .ok_or("the search was interrupted")?;
        epd.set(int("acd", outcome.depth.into()));
        epd.set(int("acn", i64::try_from(outcome.nodes).unwrap_or(i64::MAX)));
        epd.set(int("acs", outcome.time.as_secs() as i64));
        if let Some(m) = outcome.played {
            epd.set(Operation {
                opcode: "bm".into(),
                operands: vec![Operand::Move(m)],
            });
        }
        // No `ce` for a move played unsearched (`--nodes 1`).
        if let Some(score) = outcome.score {
            epd.set(int("ce", epd_ce(score)));
            if let Some(m) = mate_in(score).filter(|&m| m > 0) {
                epd.set(int("dm", m.into()));
            }
        }
        // The last line reported is the move played's (the search reports
        // it again at the end when it is not).
        epd.set(Operation {
            opcode: "pv".into(),
            operands: outcome.pv.iter().copied().map(Operand::Move).collect(),
        });
    }
    epd.set(int("hmvc", pos.halfmove_clock().into()));
    epd.set(int("fmvn", pos.fullmove_number().into()));
    println!("{epd}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn averages_have_three_decimals_and_whole_numbers_no_point() {
        #[derive(Serialize)]
        struct T(#[serde(serialize_with = "three_decimals")] Option<f64>);
        let json = |x| serde_json::to_string(&T(x)).unwrap();
        assert_eq!(json(Some(76.12345)), "76.123");
        assert_eq!(json(Some(0.25)), "0.25");
        assert_eq!(json(Some(12.0)), "12");
        assert_eq!(json(Some(0.0001)), "0");
        assert_eq!(json(Some(f64::NAN)), "null");
        assert_eq!(json(None), "null");
        let limit = |b| serde_json::to_string(&LimitJson::from(b)).unwrap();
        assert_eq!(limit(Budget::MoveTime(100)), r#"{"movetime_ms":100}"#);
        assert_eq!(limit(Budget::Depth(7)), r#"{"depth":7}"#);
        assert_eq!(limit(Budget::Nodes(9)), r#"{"nodes":9}"#);
    }
}
