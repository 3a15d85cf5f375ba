//! `forsyth analyse`: one search of one position, its result printed for a
//! person or, with `--json`, as one JSON object (schema in docs/command-line.md).

use super::args::AnalyseArgs;
use super::{numbered_san, read_fen, read_move};
use crate::engine::chess::{Move, Position};
use crate::engine::score::wdl::wdl;
use crate::engine::search::{
    Budget, Collector, Job, LatestLine, ScoreBound, SearchOptions, SearchPool, mate_in,
};
use serde::Serialize;
use std::sync::Arc;
use std::time::Instant;

/// Without a limit: about a quarter of a million nodes in a middlegame,
/// well under a second on one core, and (one thread, fresh table) the
/// same answer every time, which scripts want.
pub const DEFAULT_DEPTH: u32 = 14;

/// `cp 35` or `mate -3`, as UCI writes scores; `none` for no score.
fn score_text(score: Option<i32>) -> String {
    match score.map(|s| (s, mate_in(s))) {
        Some((_, Some(m))) => format!("mate {m}"),
        Some((s, None)) => format!("cp {s}"),
        None => "none".to_string(),
    }
}

/// `{"cp": 35}` or `{"mate": -3}`.
#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum ScoreJson {
    Cp(i32),
    Mate(i32),
}

impl ScoreJson {
    fn of(score: i32) -> ScoreJson {
        match mate_in(score) {
            Some(m) => ScoreJson::Mate(m),
            None => ScoreJson::Cp(score),
        }
    }
}

/// Win, draw and loss per mille for the side to move.
fn wdl_json(score: i32) -> [u32; 3] {
    let (w, d, l) = wdl(score);
    [w, d, l]
}

/// One MultiPV line of `analyse --json` (docs/command-line.md, "JSON output").
#[derive(Serialize)]
struct LineJson {
    multipv: usize,
    /// `score`, `bound` and `wdl` are null when no move was scored.
    score: Option<ScoreJson>,
    bound: Option<&'static str>,
    wdl: Option<[u32; 3]>,
    depth: u32,
    seldepth: u32,
    pv: Vec<String>,
    pv_san: Vec<String>,
}

/// The object `analyse --json` prints, fields in the documented order.
#[derive(Serialize)]
struct AnalysisJson {
    fen: String,
    bestmove: Option<String>,
    bestmove_san: Option<String>,
    ponder: Option<String>,
    /// `score` and `wdl` are null when no move was scored.
    score: Option<ScoreJson>,
    wdl: Option<[u32; 3]>,
    depth: u32,
    seldepth: u32,
    nodes: u64,
    time_ms: u64,
    nps: u64,
    pv: Vec<String>,
    pv_san: Vec<String>,
    lines: Vec<LineJson>,
    game_over: Option<&'static str>,
}

fn bound_name(b: ScoreBound) -> &'static str {
    match b {
        ScoreBound::Exact => "exact",
        ScoreBound::Lower => "lowerbound",
        ScoreBound::Upper => "upperbound",
    }
}

pub fn run(args: &AnalyseArgs) -> Result<(), String> {
    let mut root = if args.fen.is_empty() {
        Position::startpos()
    } else {
        read_fen(&args.fen)?
    };
    let mut history = Vec::new();
    for text in &args.moves {
        let m = read_move(&root, text)?;
        history.push(root.key());
        root.play(m);
    }
    let budget = args
        .search
        .limit
        .budget()
        .unwrap_or(Budget::Depth(DEFAULT_DEPTH));
    let multipv = args.multipv;
    let (threads, hash) = (args.search.threads, args.search.hash);

    let legal = root.count_legal();
    let collector = Arc::new(Collector::default());
    let start = Instant::now();
    if legal > 0 {
        let mut pool = SearchPool::new(hash, threads)?;
        pool.start(
            Job {
                root: root.clone(),
                history,
                limits: budget.limits(),
                options: SearchOptions {
                    multipv: multipv.min(legal as usize),
                    move_overhead_ms: 0,
                    ..SearchOptions::default()
                },
            },
            collector.clone(),
        );
        pool.wait();
    }
    let time_ms = start.elapsed().as_millis() as u64;
    // The latest report of every MultiPV line.
    let s = collector.latest();
    let lines: Vec<&LatestLine> = s.lines.iter().flatten().collect();
    // With no legal move the game is over: mated (a mate in 0) or a draw.
    let game_over = (legal == 0).then(|| {
        if root.in_check() {
            "checkmate"
        } else {
            "stalemate"
        }
    });
    let score = match (lines.first(), game_over) {
        (Some(l), _) => l.score,
        (None, Some("checkmate")) => Some(-crate::engine::search::MATE),
        _ => Some(0),
    };
    // A stalemate is a draw, not an even position: the model would still
    // give each side a fifth of a chance to win from a score of 0.
    let score_wdl = |score: i32| match game_over {
        Some("stalemate") => [0, 1000, 0],
        _ => wdl_json(score),
    };
    let nps = crate::engine::search::nps(s.nodes, time_ms);
    let uci = |m: Move| m.uci(false).to_string();

    if args.json {
        let uci_line = |pv: &[Move]| pv.iter().map(|&m| uci(m)).collect::<Vec<_>>();
        let main = lines.first();
        let main_pv = main.map_or(&[][..], |l| &l.pv[..]);
        let obj = AnalysisJson {
            fen: root.fen(),
            bestmove: s.best.map(uci),
            bestmove_san: s.best.map(|m| root.san(m)),
            ponder: s.ponder.map(uci),
            score: score.map(ScoreJson::of),
            wdl: score.map(score_wdl),
            depth: main.map_or(0, |l| l.depth),
            seldepth: main.map_or(0, |l| l.seldepth),
            nodes: s.nodes,
            time_ms,
            nps,
            pv: uci_line(main_pv),
            pv_san: crate::engine::chess::epd::Epd::san_line(&root, main_pv),
            lines: lines
                .iter()
                .enumerate()
                .map(|(i, l)| LineJson {
                    multipv: i + 1,
                    score: l.score.map(ScoreJson::of),
                    bound: l.score.map(|_| bound_name(l.bound)),
                    wdl: l.score.map(wdl_json),
                    depth: l.depth,
                    seldepth: l.seldepth,
                    pv: uci_line(&l.pv),
                    pv_san: crate::engine::chess::epd::Epd::san_line(&root, &l.pv),
                })
                .collect(),
            game_over,
        };
        let text = serde_json::to_string(&obj).map_err(|e| e.to_string())?;
        println!("{text}");
        return Ok(());
    }

    println!("fen       {}", root.fen());
    match (s.best, game_over) {
        (Some(m), _) => println!("bestmove  {} ({})", uci(m), root.san(m)),
        (None, Some(why)) => println!("bestmove  (none): {why}"),
        (None, None) => println!("bestmove  (none)"),
    }
    match score {
        Some(s) => {
            let [w, d, l] = score_wdl(s);
            println!(
                "score     {}  wdl {w} {d} {l}  (win/draw/loss per mille, side to move)",
                score_text(score)
            );
        }
        None => println!("score     none (stopped before any move was searched)"),
    }
    for (i, line) in lines.iter().enumerate() {
        let bound = match (line.score, line.bound) {
            (None, _) | (_, ScoreBound::Exact) => String::new(),
            (_, b) => format!(" {}", bound_name(b)),
        };
        println!(
            "line {:<4} {}{bound}  depth {}/{}",
            i + 1,
            score_text(line.score),
            line.depth,
            line.seldepth
        );
        let pv: Vec<String> = line.pv.iter().map(|&m| uci(m)).collect();
        println!("  pv      {}", pv.join(" "));
        println!("  san     {}", numbered_san(&root, &line.pv));
    }
    println!(
        "nodes     {}  time {time_ms} ms  nps {nps}  hashfull {}",
        s.nodes, s.hashfull
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_cp_or_mate_objects() {
        let json = |score| serde_json::to_string(&ScoreJson::of(score)).unwrap();
        assert_eq!(json(35), r#"{"cp":35}"#);
        assert_eq!(json(crate::engine::search::MATE - 3), r#"{"mate":2}"#);
        assert_eq!(json(-crate::engine::search::MATE), r#"{"mate":0}"#);
    }
}
