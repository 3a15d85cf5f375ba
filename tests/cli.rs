//! The command line for scripts: `analyse` (text and JSON), `fen check`,
//! `fen show`, and their exit statuses.

mod common;

use common::json::{self, Value};
use common::run_cli;

/// Mate in two, only by Kf7 Kh7 Rh1# (Kg6 would stalemate). The search
/// needs depth 14 to prove it today; 20 costs a few thousand nodes.
const MATE_IN_2: &str = "7k/8/5K2/8/8/8/8/6R1 w - - 0 1";

fn analyse_json(args: &[&str]) -> Value {
    let mut all = vec!["analyse", "--json"];
    all.extend_from_slice(args);
    let r = run_cli(&all);
    assert_eq!(r.status, Some(0), "{r:?}");
    assert_eq!(r.stdout.lines().count(), 1, "one JSON object: {r:?}");
    json::parse(&r.stdout)
}

#[test]
fn analyse_json_finds_a_forced_mate() {
    let v = analyse_json(&["--fen", MATE_IN_2, "--depth", "20"]);
    assert_eq!(v.get("fen").str(), MATE_IN_2);
    assert_eq!(v.get("bestmove").str(), "f6f7");
    assert_eq!(v.get("bestmove_san").str(), "Kf7");
    assert_eq!(v.get("score").get("mate").num(), 2.0);
    assert!(!v.get("score").has("cp"));
    let wdl: Vec<f64> = v.get("wdl").arr().iter().map(Value::num).collect();
    assert_eq!(wdl, [1000.0, 0.0, 0.0]);
    assert!(v.get("depth").num() >= 3.0);
    assert!(v.get("nodes").num() > 0.0);
    assert!(v.get("time_ms").num() >= 0.0);
    // Mate in two is three plies, ending in mate, in both notations.
    let pv: Vec<&str> = v.get("pv").arr().iter().map(Value::str).collect();
    let san: Vec<&str> = v.get("pv_san").arr().iter().map(Value::str).collect();
    assert_eq!(pv.len(), 3, "{pv:?}");
    assert_eq!(pv, ["f6f7", "h8h7", "g1h1"]);
    assert_eq!(san, ["Kf7", "Kh7", "Rh1#"]);
    let lines = v.get("lines").arr();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0].get("multipv").num(), 1.0);
    assert_eq!(lines[0].get("bound").str(), "exact");
    assert_eq!(lines[0].get("pv"), v.get("pv"));
    assert_eq!(v.get("game_over"), &Value::Null);
}

#[test]
fn analyse_json_multipv_moves_and_game_over() {
    // Moves in UCI and SAN, then three lines from Black's side.
    let v = analyse_json(&["--moves", "e2e4", "Nf6", "--depth", "5", "--multipv", "3"]);
    assert!(
        v.get("fen")
            .str()
            .starts_with("rnbqkb1r/pppppppp/5n2/8/4P3/8/PPPP1PPP/RNBQKBNR w")
    );
    let lines = v.get("lines").arr();
    assert_eq!(lines.len(), 3);
    let firsts: Vec<&str> = lines.iter().map(|l| l.get("pv").arr()[0].str()).collect();
    assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
    assert_eq!(firsts[0], v.get("bestmove").str());
    assert!(v.get("score").has("cp"));
    // Fool's mate: nothing to search, the side to move is mated.
    let m = analyse_json(&["--moves", "f2f3", "e7e5", "g2g4", "Qh4#"]);
    assert_eq!(m.get("bestmove"), &Value::Null);
    assert_eq!(m.get("game_over").str(), "checkmate");
    assert_eq!(m.get("score").get("mate").num(), 0.0);
}

/// Stalemate: nothing to search, no move and no line; the score is 0 and,
/// since the game is drawn, the WDL a sure draw (not the model's guess
/// at an even position, 201 598 201). Every field as documented, but the
/// time; the text output says the same.
#[test]
fn analyse_json_stalemate() {
    const STALEMATE: &str = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";
    let mut v = analyse_json(&["--fen", STALEMATE]);
    let Value::Object(fields) = &mut v else {
        panic!("not an object: {v:?}")
    };
    assert!(fields.remove("time_ms").is_some_and(|t| t.num() >= 0.0));
    assert_eq!(
        v,
        json::parse(&format!(
            r#"{{"fen": "{STALEMATE}", "bestmove": null, "bestmove_san": null,
                "ponder": null, "score": {{"cp": 0}}, "wdl": [0, 1000, 0],
                "depth": 0, "seldepth": 0, "nodes": 0, "nps": 0,
                "pv": [], "pv_san": [], "lines": [], "game_over": "stalemate"}}"#
        ))
    );
    let r = run_cli(&["analyse", "--fen", STALEMATE]);
    assert_eq!(r.status, Some(0), "{r:?}");
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(
        lines[..3],
        [
            format!("fen       {STALEMATE}").as_str(),
            "bestmove  (none): stalemate",
            "score     cp 0  wdl 0 1000 0  (win/draw/loss per mille, side to move)",
        ]
    );
}

/// The best move is the first of the PV and the ponder move the second,
/// wherever the node limit stops the search, with one thread or two and
/// with MultiPV (issue 29). One node searches nothing: the line has the
/// move and no score.
#[test]
fn analyse_best_move_begins_the_pv() {
    let fen = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";
    for nodes in ["1", "2", "5", "30", "90", "400", "1500", "5000"] {
        for threads in ["1", "2"] {
            for multipv in ["1", "3"] {
                let v = analyse_json(&[
                    "--fen",
                    fen,
                    "--nodes",
                    nodes,
                    "--threads",
                    threads,
                    "--multipv",
                    multipv,
                ]);
                let what = format!("nodes {nodes} threads {threads} multipv {multipv}: {v:?}");
                let pv: Vec<&str> = v.get("pv").arr().iter().map(Value::str).collect();
                assert_eq!(Some(&v.get("bestmove").str()), pv.first(), "{what}");
                match v.get("ponder") {
                    Value::Null => assert_eq!(pv.len(), 1, "{what}"),
                    p => assert_eq!(Some(&p.str()), pv.get(1), "{what}"),
                }
                let lines = v.get("lines").arr();
                assert_eq!(lines[0].get("pv"), v.get("pv"), "{what}");
                let mut firsts: Vec<&str> =
                    lines.iter().map(|l| l.get("pv").arr()[0].str()).collect();
                firsts.sort();
                firsts.dedup();
                assert_eq!(firsts.len(), lines.len(), "{what}");
                assert_eq!(lines[0].get("score"), v.get("score"), "{what}");
                if nodes == "1" {
                    assert_eq!(v.get("score"), &Value::Null, "{what}");
                    assert_eq!(v.get("wdl"), &Value::Null, "{what}");
                    assert_eq!(v.get("depth").num(), 1.0, "{what}");
                    assert_eq!(lines.len(), 1, "{what}");
                    assert_eq!(lines[0].get("score"), &Value::Null, "{what}");
                    assert_eq!(lines[0].get("bound"), &Value::Null, "{what}");
                } else if nodes.parse::<u32>().unwrap() >= 30 {
                    // The first move at least is scored by then.
                    assert!(v.get("score").has("cp"), "{what}");
                }
            }
        }
    }
    let r = run_cli(&["analyse", "--fen", fen, "--nodes", "1"]);
    assert_eq!(r.status, Some(0), "{r:?}");
    assert!(
        r.stdout.contains(
            "score     none (stopped before any move was searched)\nline 1    none  depth 1/1\n"
        ),
        "{}",
        r.stdout
    );
}

#[test]
fn analyse_prints_move_score_and_line_for_people() {
    let r = run_cli(&["analyse", "--fen", MATE_IN_2, "--depth", "20"]);
    assert_eq!(r.status, Some(0), "{r:?}");
    assert!(r.stdout.contains("bestmove  f6f7 (Kf7)"), "{}", r.stdout);
    assert!(
        r.stdout.contains("score     mate 2  wdl 1000 0 0"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("  pv      f6f7 h8h7 g1h1"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("  san     1. Kf7 Kh7 2. Rh1#"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("nodes"), "{}", r.stdout);
}

#[test]
fn analyse_refuses_bad_input_with_status_2() {
    let r = run_cli(&[
        "analyse",
        "--fen",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq -",
    ]);
    assert_eq!(r.status, Some(2));
    assert!(r.stdout.is_empty());
    assert!(r.stderr.contains("bad FEN"), "{}", r.stderr);
    assert!(r.stderr.contains("piece placement"), "{}", r.stderr);
    assert!(r.stderr.contains("'X'"), "{}", r.stderr);
    let r = run_cli(&["analyse", "--moves", "e2e4", "e2e4"]);
    assert_eq!(r.status, Some(2));
    assert!(
        r.stderr.contains("bad move") && r.stderr.contains("e2e4"),
        "{}",
        r.stderr
    );
    // Bad options are clap's errors: the reason, then where to read more.
    let r = run_cli(&["analyse", "--depth", "3", "--nodes", "10"]);
    assert_eq!(r.status, Some(2));
    assert!(r.stdout.is_empty());
    assert!(
        r.stderr
            .starts_with("error: the argument '--depth <N>' cannot be used with '--nodes <N>'\n"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.ends_with("For more information, try '--help'.\n"),
        "{}",
        r.stderr
    );
    let r = run_cli(&["analyse", "--depth"]);
    assert_eq!(r.status, Some(2));
    assert!(
        r.stderr
            .starts_with("error: a value is required for '--depth <N>' but none was supplied"),
        "{}",
        r.stderr
    );
    let r = run_cli(&["analyse", "--multipv", "0"]);
    assert_eq!(r.status, Some(2));
    assert!(
        r.stderr
            .starts_with("error: invalid value '0' for '--multipv <K>'"),
        "{}",
        r.stderr
    );
    let r = run_cli(&["analyse", "--dpth", "3"]);
    assert_eq!(r.status, Some(2));
    assert!(
        r.stderr
            .contains("tip: a similar argument exists: '--depth'"),
        "{}",
        r.stderr
    );
}

#[test]
fn fen_check_normalises_or_names_the_field() {
    let r = run_cli(&[
        "fen",
        "check",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
        "w",
        "KQkq",
        "-",
    ]);
    assert_eq!(r.status, Some(0), "{r:?}");
    assert_eq!(
        r.stdout,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n"
    );
    // A dropped part is a warning, not an error.
    let r = run_cli(&["fen", "check", "4k3/8/8/8/8/8/8/4K3 w K - 0 1"]);
    assert_eq!(r.status, Some(0), "{r:?}");
    assert_eq!(r.stdout, "4k3/8/8/8/8/8/8/4K3 w - - 0 1\n");
    assert!(
        r.stderr.contains("warning: castling right 'K' dropped"),
        "{}",
        r.stderr
    );
    let r = run_cli(&["fen", "check", "4k3/8/8/8/8/8/8/4K3 x - - 0 1"]);
    assert_eq!(r.status, Some(2));
    assert!(r.stdout.is_empty());
    assert!(r.stderr.contains("side to move field: 'x'"), "{}", r.stderr);
    let r = run_cli(&["fen", "check", "4k3/8/8/8/8/8/8/4K3 w - - 0 z"]);
    assert_eq!(r.status, Some(2));
    assert!(r.stderr.contains("fullmove number field"), "{}", r.stderr);
}

#[test]
fn fen_show_draws_the_board() {
    let r = run_cli(&["fen", "show", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]);
    assert_eq!(r.status, Some(0), "{r:?}");
    assert!(r.stdout.contains("8 │ · · · · ♚ · · · │"), "{}", r.stdout);
    assert!(r.stdout.contains("2 │ · · · · ♙ · · · │"), "{}", r.stdout);
    assert!(r.stdout.contains("    a b c d e f g h"), "{}", r.stdout);
    let r = run_cli(&["fen", "show", "--ascii", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]);
    assert_eq!(r.status, Some(0), "{r:?}");
    assert!(r.stdout.contains("1 | . . . . K . . . |"), "{}", r.stdout);
    assert!(r.stdout.is_ascii());
    let r = run_cli(&["fen", "draw", "4k3/8/8/8/8/8/4P3/4K3 w - -"]);
    assert_eq!(r.status, Some(2));
}

/// `forsyth analyse ... | head -1`: when the reader of stdout has gone,
/// the command ends as other command line tools do (killed by SIGPIPE,
/// nothing on stderr), not with a panic about a failed print.
#[cfg(unix)]
#[test]
fn a_closed_stdout_pipe_ends_the_command_quietly() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    let mut child = Command::new(common::BIN)
        .args(["analyse", "--fen", MATE_IN_2, "--depth", "8"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the read end before the engine writes anything.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(out.status.signal(), Some(13), "{:?}", out.status);
}
