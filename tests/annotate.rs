//! `forsyth annotate`: known blunders marked with the winning line, the
//! input kept, Chess960, bad games among good ones, files that are not
//! PGN, the JSON schema, `--out`, Ctrl-C. Small depths and one thread, so
//! that every run gives the same answer.

mod common;

use common::{Run, TempFile, run_cli};
use serde_json::Value;
use std::collections::BTreeSet;

/// Two games with known blunders: a queen left hanging (6. Qh5?? Nxh5,
/// and 6... d6?? missing it), and a mate in two missed (1. Rd8+ Rxd8
/// 2. Rxd8# against 1. h3??, after which Black is better).
const BLUNDERS: &str = "\
[Event \"Hanging queen\"]
[White \"A\"]
[Black \"B\"]
[Result \"*\"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. d3 Be7 5. Ng5 O-O 6. Qh5 d6 7. Qf3 *

[Event \"Missed mate in 2\"]
[SetUp \"1\"]
[FEN \"2r3k1/5ppp/8/8/8/1q6/3R1PPP/3R2K1 w - - 0 1\"]
[Result \"*\"]

1. h3 h6 2. Kh2 *
";

/// King c1, rooks b1 and f1: castling long leaves the king where it is.
const CHESS960: &str = "\
[Event \"Chess960\"]
[Variant \"Chess960\"]
[SetUp \"1\"]
[FEN \"nrkbqrbn/pppppppp/8/8/8/8/PPPPPPPP/NRKBQRBN w FBfb - 0 1\"]
[Result \"*\"]

1. c4 c5 2. Bc2 Bc7 3. O-O-O O-O-O 4. Nb3 Nb6 *
";

const VERSION: &str = env!("CARGO_PKG_VERSION");

fn annotate(name: &str, pgn: &str, args: &[&str]) -> Run {
    let file = TempFile::new(name, pgn);
    let mut all = vec!["annotate", file.path(), "--threads", "1"];
    all.extend_from_slice(args);
    run_cli(&all)
}

fn ok(r: &Run) -> &str {
    assert_eq!(r.status, Some(0), "{r:?}");
    &r.stdout
}

/// Whether `needle` is in `haystack`, wherever the lines break.
fn contains(haystack: &str, needle: &str) {
    let flat = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat(haystack).contains(&flat(needle)),
        "no '{needle}' in\n{haystack}"
    );
}

#[test]
fn known_blunders_get_double_question_marks_and_the_winning_line() {
    let r = annotate("blunders.pgn", BLUNDERS, &["--depth", "6"]);
    let out = ok(&r);
    // The queen left hanging, and the capture missed: the line takes it.
    contains(out, "6. Qh5 $4 { [%eval -");
    contains(out, "6... d6 $4 { [%eval ");
    contains(out, "Blunder. Nxh5 was best. } (6... Nxh5 { [%eval -");
    // The mate missed: the winning line is the mate.
    contains(out, "1. h3 $4 { [%eval -");
    contains(
        out,
        "Blunder. Rd8+ was best. } (1. Rd8+ { [%eval #2] } 1... Rxd8 2. Rxd8#) 1... h6",
    );
    contains(out, &format!("[Annotator \"Forsyth {VERSION}\"]"));
    contains(out, "{ White: average centipawn loss ");
    // Lines of 80 columns at most, and the same answer every run.
    assert!(out.lines().all(|l| l.chars().count() <= 80), "{out}");
    assert_eq!(
        annotate("blunders-again.pgn", BLUNDERS, &["--depth", "6"]).stdout,
        out
    );
}

#[test]
fn the_input_is_kept_whole() {
    let pgn = "\
[Event \"Kept\"]
[Site \"Here\"]
[Date \"2024.05.06\"]
[Round \"1\"]
[White \"W \\\"Q\\\" X\"]
[Black \"B\"]
[Result \"1/2-1/2\"]
[Annotator \"Someone\"]
[WhiteElo \"2000\"]

{ Before the game. } 1. e4 $1 { Best by test [%clk 0:05:00] } (1. d4 d5 (1... Nf6
2. c4) 2. c4 { The Queen's Gambit }) 1... e5 { [%eval 9.99] old } 2. Nf3 $2 $18 Nc6
1/2-1/2

[Event \"Empty\"]

*
";
    let r = annotate("kept.pgn", pgn, &["--depth", "3"]);
    let out = ok(&r);
    let expected_tags = format!(
        "[Event \"Kept\"]\n[Site \"Here\"]\n[Date \"2024.05.06\"]\n[Round \"1\"]\n\
         [White \"W \\\"Q\\\" X\"]\n[Black \"B\"]\n[Result \"1/2-1/2\"]\n\
         [Annotator \"Forsyth {VERSION}\"]\n[WhiteElo \"2000\"]\n\n{{ Before the game. }} 1. e4 $1 "
    );
    assert!(out.starts_with(&expected_tags), "{out}");
    contains(out, "{ Best by test [%clk 0:05:00] } { [%eval ");
    contains(
        out,
        "(1. d4 d5 (1... Nf6 2. c4) 2. c4 { The Queen's Gambit })",
    );
    contains(out, "1... e5 { old } { [%eval ");
    assert!(!out.contains("9.99"), "{out}");
    contains(out, "2. Nf3 $2 $18 { [%eval ");
    contains(out, "blunders 0. } 1/2-1/2");
    assert!(out.contains("1/2-1/2\n\n[Event \"Empty\"]"), "{out}");
    // A game without moves comes back as it was, with the annotator.
    assert!(
        out.ends_with(&format!(
            "[Event \"Empty\"]\n[Annotator \"Forsyth {VERSION}\"]\n\n*\n\n"
        )),
        "{out}"
    );
}

#[test]
fn chess960_games_castle_in_san_and_king_takes_rook_in_uci() {
    let r = annotate("c960.pgn", CHESS960, &["--depth", "4"]);
    let out = ok(&r);
    contains(
        out,
        "[FEN \"nrkbqrbn/pppppppp/8/8/8/8/PPPPPPPP/NRKBQRBN w FBfb - 0 1\"]",
    );
    contains(out, "3. O-O-O { [%eval ");
    contains(out, "3... O-O-O { [%eval ");
    let r = annotate("c960.json.pgn", CHESS960, &["--depth", "4", "--json"]);
    let v: Value = serde_json::from_str(ok(&r).trim()).unwrap();
    assert_eq!(v["chess960"], Value::Bool(true));
    let ucis: Vec<&str> = v["plies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["uci"].as_str().unwrap())
        .collect();
    assert_eq!(
        ucis,
        [
            "c2c4", "c7c5", "d1c2", "d8c7", "c1b1", "c8b8", "a1b3", "a8b6"
        ]
    );
    // Without the Variant tag, the castling rights say Chess960.
    let bare = CHESS960.replace("[Variant \"Chess960\"]\n", "");
    let r = annotate("c960-bare.pgn", &bare, &["--depth", "2", "--json"]);
    let v: Value = serde_json::from_str(ok(&r).trim()).unwrap();
    assert_eq!(v["chess960"], Value::Bool(true));
    assert_eq!(v["plies"][4]["uci"], "c1b1");
}

const WITH_BAD_GAMES: &str = "\
[Event \"one\"]

1. e4 e5 *

[Event \"two\"]
[White \"Smith]

1. d4 d5 *

[Event \"three\"]

1. e4 e5 2. Ke3 *

[Event \"four\"]
[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1\"]

1. e4 *

[Event \"five\"]

1. c4 c5 1/2-1/2
";

#[test]
fn a_broken_game_in_the_middle_is_reported_and_the_others_written() {
    let file = TempFile::new("bad-games.pgn", WITH_BAD_GAMES);
    let path = file.path();
    let r = run_cli(&["annotate", path, "--depth", "2"]);
    let out = ok(&r);
    let events: Vec<&str> = out.lines().filter(|l| l.starts_with("[Event ")).collect();
    assert_eq!(events, ["[Event \"one\"]", "[Event \"five\"]"]);
    let reports = [
        format!(
            "{path}: game 2 (line 5): broken tag on line 6: a tag value without its closing quote: \
             [White \"Smith]"
        ),
        format!("{path}: game 3 (line 10): move 2.: 'Ke3' is not a legal move here"),
        format!(
            "{path}: game 4 (line 14): bad FEN tag \
             'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1': "
        ),
    ];
    for report in &reports {
        contains(&r.stderr, report);
    }
    assert_eq!(
        r.stderr.matches("; game skipped").count(),
        3,
        "{}",
        r.stderr
    );
    // --strict: the same reports, nothing written, exit status 2.
    let r = run_cli(&["annotate", path, "--depth", "2", "--strict"]);
    assert_eq!(r.status, Some(2), "{r:?}");
    assert_eq!(r.stdout, "");
    for report in &reports {
        contains(&r.stderr, report);
    }
    assert!(!r.stderr.contains("skipped"), "{}", r.stderr);
    assert!(
        r.stderr.ends_with(&format!(
            "forsyth: {path}: 3 of 5 games are bad (--strict); nothing written\n"
        )),
        "{}",
        r.stderr
    );
}

#[test]
fn files_that_hold_no_game_get_one_clear_message() {
    let empty = TempFile::new("empty.pgn", "");
    let blank = TempFile::new("blank.pgn", "\n  \n");
    let text = TempFile::new("readme.pgn", "# Notes\n\nThis file holds no chess game.\n");
    let binary = TempFile::new("binary.pgn", b"\x7fELF\x02\x01\x01\x00\x00\x00");
    let bad_only = TempFile::new("bad-only.pgn", "1. e5 *\n");
    let dir = std::env::temp_dir();
    let dir = dir.to_str().unwrap();
    let cases = [
        (empty.path(), format!("{}: the file is empty", empty.path())),
        (blank.path(), format!("{}: the file is empty", blank.path())),
        (
            text.path(),
            format!(
                "{}: not a PGN file (no tag pair and no move in it)",
                text.path()
            ),
        ),
        (
            binary.path(),
            format!("{}: not a PGN file (it holds binary data)", binary.path()),
        ),
        (
            "/nonexistent/games.pgn",
            "cannot read /nonexistent/games.pgn: No such file or directory (os error 2)".into(),
        ),
        (
            dir,
            format!("cannot read {dir}: Is a directory (os error 21)"),
        ),
    ];
    for (path, message) in &cases {
        let r = run_cli(&["annotate", path, "--depth", "1"]);
        assert_eq!(r.status, Some(2), "{r:?}");
        assert_eq!(r.stdout, "");
        assert_eq!(r.stderr, format!("forsyth: {message}\n"));
    }
    let r = run_cli(&["annotate", bad_only.path(), "--depth", "1"]);
    assert_eq!(r.status, Some(2), "{r:?}");
    assert!(
        r.stderr.ends_with(&format!(
            "forsyth: {}: no game could be read\n",
            bad_only.path()
        )),
        "{}",
        r.stderr
    );
}

fn keys(v: &Value) -> BTreeSet<&str> {
    v.as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"))
        .keys()
        .map(String::as_str)
        .collect()
}

fn set<'a>(names: &[&'a str]) -> BTreeSet<&'a str> {
    names.iter().copied().collect()
}

#[test]
fn json_has_one_object_a_game_with_exactly_the_documented_keys() {
    let r = annotate(
        "blunders.json.pgn",
        BLUNDERS,
        &["--depth", "6", "--json", "--multipv", "2"],
    );
    let out = ok(&r);
    assert_eq!(out.lines().count(), 2, "{out}");
    // Tags in the file's order.
    assert!(
        out.starts_with(
            "{\"game\":1,\"tags\":{\"Event\":\"Hanging queen\",\"White\":\"A\",\"Black\":\"B\",\
             \"Result\":\"*\"},\"fen\":\"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\","
        ),
        "{out}"
    );
    let games: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ply_keys = set(&[
        "ply",
        "move_number",
        "color",
        "san",
        "uci",
        "eval_before",
        "eval_after",
        "wdl_before",
        "wdl_after",
        "loss",
        "cpl",
        "mark",
        "forced",
        "best",
        "best_uci",
        "best_line",
        "best_line_uci",
        "lines",
        "depth",
    ]);
    let side_keys = set(&["moves", "acpl", "inaccuracies", "mistakes", "blunders"]);
    for g in &games {
        assert_eq!(
            keys(g),
            set(&[
                "game", "tags", "fen", "chess960", "result", "plies", "summary"
            ])
        );
        assert_eq!(keys(&g["summary"]), set(&["white", "black"]));
        assert_eq!(keys(&g["summary"]["white"]), side_keys);
        assert_eq!(keys(&g["summary"]["black"]), side_keys);
        let plies = g["plies"].as_array().unwrap();
        for (i, p) in plies.iter().enumerate() {
            assert_eq!(keys(p), ply_keys, "{p}");
            let score = keys(&p["eval_before"]);
            assert!(score == set(&["cp"]) || score == set(&["mate"]), "{p}");
            assert_eq!(p["wdl_before"].as_array().unwrap().len(), 3);
            assert!(p["lines"].as_array().unwrap().len() <= 2);
            for l in p["lines"].as_array().unwrap() {
                assert_eq!(keys(l), set(&["score", "wdl", "san", "uci"]));
            }
            // Each position is searched once: the evaluation after a move
            // is the one before the next.
            if let Some(next) = plies.get(i + 1) {
                assert_eq!(p["eval_after"], next["eval_before"]);
                assert_eq!(p["wdl_after"], next["wdl_before"]);
            }
        }
    }
    assert_eq!(games[0]["game"], 1);
    assert_eq!(games[1]["game"], 2);
    let p = &games[0]["plies"][10];
    assert_eq!(
        (p["ply"].as_u64(), p["san"].as_str()),
        (Some(11), Some("Qh5"))
    );
    assert_eq!(
        (p["color"].as_str(), p["move_number"].as_u64()),
        (Some("white"), Some(6))
    );
    assert_eq!(p["mark"], "??");
    assert_eq!(games[0]["plies"][11]["mark"], "??");
    assert_eq!(games[0]["plies"][11]["best"], "Nxh5");
    assert_eq!(games[0]["plies"][11]["best_uci"], "f6h5");
    let mate = &games[1]["plies"][0];
    assert_eq!(mate["san"], "h3");
    assert_eq!(mate["mark"], "??");
    assert_eq!(mate["eval_before"], serde_json::json!({"mate": 2}));
    assert_eq!(mate["wdl_before"], serde_json::json!([1000, 0, 0]));
    assert_eq!(mate["best"], "Rd8+");
    assert_eq!(
        mate["best_line"],
        serde_json::json!(["Rd8+", "Rxd8", "Rxd8#"])
    );
    assert_eq!(
        mate["best_line_uci"],
        serde_json::json!(["d2d8", "c8d8", "d1d8"])
    );
    assert_eq!(mate["lines"][0]["san"], mate["best_line"]);
    assert_eq!(mate["forced"], false);
    assert!(mate["loss"].as_f64().unwrap() > 0.3, "{mate}");
    assert_eq!(games[1]["summary"]["white"]["blunders"], 1);
    assert_eq!(games[1]["summary"]["white"]["moves"], 2);
    assert_eq!(games[1]["summary"]["black"]["moves"], 1);
    assert_eq!(games[1]["result"], "*");
}

#[test]
fn out_writes_a_file_and_refuses_the_input() {
    let file = TempFile::new("to-file.pgn", CHESS960);
    let out = TempFile::new("to-file.out.pgn", "");
    let r = run_cli(&["annotate", file.path(), "--depth", "2", "--out", out.path()]);
    assert_eq!((r.status, r.stdout.as_str()), (Some(0), ""), "{r:?}");
    let written = std::fs::read_to_string(out.path()).unwrap();
    assert!(written.starts_with("[Event \"Chess960\"]\n"), "{written}");
    assert!(written.ends_with(" *\n\n"), "{written}");
    let r = run_cli(&[
        "annotate",
        file.path(),
        "--depth",
        "2",
        "--out",
        file.path(),
    ]);
    assert_eq!(r.status, Some(2), "{r:?}");
    assert_eq!(
        r.stderr,
        format!("forsyth: --out {} is the input file\n", file.path())
    );
    assert_eq!(std::fs::read_to_string(file.path()).unwrap(), CHESS960);
}

#[cfg(unix)]
#[test]
fn ctrl_c_keeps_the_games_finished() {
    use common::{Background, TIMEOUT};

    // A short game, then a long one that takes seconds.
    let long = "1. Nf3 Nf6 2. Ng1 Ng8 ".repeat(15);
    let pgn = format!("[Event \"short\"]\n\n1. e4 e5 *\n\n[Event \"long\"]\n\n{long}*\n");
    let file = TempFile::new("interrupted.pgn", pgn);
    let run = Background::start(&["annotate", file.path(), "--movetime", "100"]);
    // The first game ends with its result and a blank line.
    let mut first = Vec::new();
    while let Some(line) = run.next_line(TIMEOUT) {
        let end = line.ends_with(" *");
        first.push(line);
        if end {
            break;
        }
    }
    run.interrupt();
    let (status, rest, stderr) = run.wait();
    assert_eq!(status, Some(130), "{stderr}");
    assert_eq!(first[0], "[Event \"short\"]");
    assert_eq!(rest, [""], "only the blank line after the first game");
    assert!(
        stderr.contains("interrupted: 1 of 2 games written (game 2 was not finished)"),
        "{stderr}"
    );
}
