//! EPD: every suite of `tests/data/epd/` reads and round-trips; `forsyth
//! epd` solves a small suite through the binary, reports failures,
//! malformed lines and Ctrl-C; `epd --write` and the UCI `d` command print
//! EPD.

mod common;

use common::json::{self, Value};
use common::{Engine, TIMEOUT, TempFile, run_cli};
use forsyth::engine::chess::epd::Epd;
use std::path::PathBuf;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");

/// The lines of a suite that are records (not blank, not `#` comments).
fn records(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
}

/// Reads every record of a file, checks that writing it and reading it
/// back gives the same record, and returns the records.
fn read_and_round_trip(path: &str) -> Vec<Epd> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    records(&text)
        .map(|(n, line)| {
            let epd = Epd::parse(line).unwrap_or_else(|e| panic!("{path}:{n}: {e}"));
            let written = epd.to_string();
            let back = Epd::parse(&written).unwrap_or_else(|e| panic!("{written}: {e}"));
            assert_eq!(back.ops, epd.ops, "{path}:{n}");
            // Written as four fields: the counters are not part of EPD.
            let fields = |e: &Epd| e.position.fen().rsplitn(3, ' ').last().map(str::to_string);
            assert_eq!(fields(&back), fields(&epd), "{path}:{n}");
            epd
        })
        .collect()
}

#[test]
fn every_shared_test_suite_reads_and_round_trips() {
    let dir = &format!("{DATA}/epd/");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "epd"))
        .collect();
    files.sort();
    assert!(files.len() >= 3, "{files:?}");
    for path in &files {
        let path = path.to_string_lossy();
        let suite = read_and_round_trip(&path);
        assert!(!suite.is_empty(), "{path}");
        for epd in &suite {
            // Every record of a test suite is a test: named, with an answer.
            assert!(epd.id().is_some(), "{path}: {epd}");
            assert!(
                !epd.moves("bm").is_empty() || !epd.moves("am").is_empty(),
                "{path}: {epd}"
            );
        }
    }
    let count = |name: &str| read_and_round_trip(&format!("{dir}{name}")).len();
    assert_eq!(count("wac.epd"), 300);
    assert_eq!(count("bratko-kopec.epd"), 24);
    // The revised WAC has records with several bm, am and c0 comments.
    let revised = read_and_round_trip(&format!("{dir}wac-revised-arasan.epd"));
    let wac274 = revised
        .iter()
        .find(|e| e.id().as_deref() == Some("WAC.274"))
        .expect("WAC.274");
    assert_eq!(wac274.moves("am").len(), 1);
    assert_eq!(wac274.moves("bm").len(), 2);
    assert!(revised.iter().any(|e| e.text("c0").is_some()));
}

#[test]
fn perft_suites_read_as_epd() {
    for (name, n) in [("standard.epd", 128), ("chess960.epd", 960)] {
        let path = &format!("{DATA}/perft/{name}");
        let suite = read_and_round_trip(path);
        assert_eq!(suite.len(), n, "{path}");
        assert!(suite.iter().all(|e| !e.perft_counts().is_empty()), "{path}");
    }
}

/// Three positions a search solves in a few thousand nodes: a back-rank
/// mate (bm in UCI notation), a rook mate in two (dm), and a queen to
/// take (bm with am). A comment, a blank line and a malformed record are
/// there to be passed over.
const SMALL_SUITE: &str = r#"# three easy positions
6k1/5ppp/8/8/8/8/8/R5K1 w - - bm a1a8; id "mate.1";
this is not EPD

7k/8/5K2/8/8/8/8/6R1 w - - 0 1 bm Kf7; dm 2; id "mate.2";
4k3/8/8/3q4/8/8/8/3QK3 w - - bm Qxd5; am Qe2; id "queen";
"#;

#[test]
fn a_small_suite_is_solved_through_the_binary() {
    let suite = TempFile::new("small.epd", SMALL_SUITE);
    let out = TempFile::new("small.json", "");
    let r = run_cli(&[
        "epd",
        suite.path(),
        "--nodes",
        "300000",
        "--json",
        out.path(),
    ]);
    assert_eq!(r.status, Some(0), "{r:?}");
    // One line per position, then the summary.
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(
        lines[0].starts_with("   1/3 mate.1") && lines[0].contains(" ok "),
        "{r:?}"
    );
    assert!(
        lines[1].contains("mate.2") && lines[1].contains("Kf7"),
        "{r:?}"
    );
    assert!(
        lines[2].contains("queen") && lines[2].contains("Qxd5"),
        "{r:?}"
    );
    assert!(r.stdout.contains("\nsolved 3/3 (100.0%)\n"), "{}", r.stdout);
    assert!(r.stdout.contains("\nfailed: (none)\n"), "{}", r.stdout);
    assert!(
        r.stdout.contains("\naverage time to solution: "),
        "{}",
        r.stdout
    );
    // The malformed record is named by its line and skipped; progress
    // goes to stderr.
    assert!(
        r.stderr.contains(&format!("{}:3: ", suite.path())) && r.stderr.contains("skipped"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("position 3 of 3"), "{}", r.stderr);

    let text = std::fs::read_to_string(out.path()).expect("the JSON report");
    let v = json::parse(&text);
    assert_eq!(v.get("solved").num(), 3.0);
    assert_eq!(v.get("searched").num(), 3.0);
    assert_eq!(v.get("limit").get("nodes").num(), 300000.0);
    assert_eq!(v.get("interrupted"), &Value::Bool(false));
    assert!(v.get("failed").arr().is_empty());
    let results = v.get("results").arr();
    let ids: Vec<&str> = results.iter().map(|p| p.get("id").str()).collect();
    assert_eq!(ids, ["mate.1", "mate.2", "queen"]);
    assert_eq!(results[0].get("line").num(), 2.0);
    assert_eq!(results[0].get("played").str(), "Ra8#");
    assert_eq!(results[1].get("dm").num(), 2.0);
    assert_eq!(results[1].get("score").str(), "mate 2");
    assert_eq!(results[2].get("am").arr()[0].str(), "Qe2+");
    for p in results {
        assert_eq!(p.get("solved"), &Value::Bool(true));
        assert!(p.get("time_to_solution_ms").num() <= p.get("time_ms").num());
    }
}

#[test]
fn failures_are_listed_by_id() {
    // Kh2 is legal but not the mate the record asks for.
    let suite = TempFile::new(
        "fail.epd",
        "6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Kh2; id \"wrong\";\n6k1/5ppp/8/8/8/8/8/R5K1 w - - am Ra8; id \"avoid\";\n",
    );
    let r = run_cli(&["epd", suite.path(), "--depth", "4"]);
    assert_eq!(r.status, Some(0), "{r:?}");
    assert!(r.stdout.contains("FAIL Ra8#"), "{}", r.stdout);
    assert!(r.stdout.contains("\nsolved 0/2 (0.0%)\n"), "{}", r.stdout);
    assert!(r.stdout.contains("\nfailed: wrong avoid\n"), "{}", r.stdout);
    assert!(r.stdout.contains("nothing solved"), "{}", r.stdout);
    // A file with nothing to test, or no file, is an error.
    let empty = TempFile::new("empty.epd", "# nothing\n");
    assert_eq!(run_cli(&["epd", empty.path()]).status, Some(2));
    assert_eq!(run_cli(&["epd", "/nonexistent/suite.epd"]).status, Some(2));
}

#[cfg(unix)]
#[test]
fn ctrl_c_prints_the_summary_of_what_ran() {
    use common::Background;

    // A quiet position, so that each search takes its whole second.
    let line = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - am a2a3; id \"p\";\n";
    let suite = TempFile::new("long.epd", line.repeat(20));
    let run = Background::start(&["epd", suite.path(), "--movetime", "1000"]);
    // Interrupt during the second position.
    let first = run.next_line(TIMEOUT).expect("a first result line");
    assert!(first.starts_with("   1/20 p"), "{first}");
    run.interrupt();
    let (status, rest, _) = run.wait();
    let rest = rest.join("\n");
    assert_eq!(status, Some(130), "{rest}");
    assert!(
        rest.contains("interrupted: 1 of 20 positions searched"),
        "{rest}"
    );
    assert!(rest.contains("\nsolved 1/1 (100.0%)"), "{rest}");
}

#[test]
fn epd_write_prints_the_search_as_epd() {
    let r = run_cli(&[
        "epd",
        "--write",
        "--fen",
        "7k/8/5K2/8/8/8/8/6R1 w - - 3 40",
        "--depth",
        "20",
    ]);
    assert_eq!(r.status, Some(0), "{r:?}");
    let line = r.stdout.trim_end();
    assert_eq!(r.stdout.lines().count(), 1, "{}", r.stdout);
    let epd = Epd::parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
    assert!(
        line.starts_with("7k/8/5K2/8/8/8/8/6R1 w - - acd 20; acn "),
        "{line}"
    );
    assert!(
        line.contains("; bm Kf7; ce 32764; dm 2; pv Kf7 Kh7 Rh1#; hmvc 3; fmvn 40;"),
        "{line}"
    );
    assert_eq!(epd.int("dm"), Some(2));
    assert_eq!(epd.position.fullmove_number(), 40);
    let r = run_cli(&["epd", "--write", "--fen", "not a fen"]);
    assert_eq!(r.status, Some(2));
    assert!(r.stderr.contains("bad FEN"), "{}", r.stderr);
}

/// `bm` is the first move of `pv` wherever the node limit stops the
/// search, with one thread or two (issue 29); one node searches nothing:
/// no `ce` then.
#[test]
fn epd_write_bm_begins_the_pv() {
    let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    for nodes in ["1", "5", "40", "400", "3000"] {
        for threads in ["1", "2"] {
            let r = run_cli(&[
                "epd",
                "--write",
                "--fen",
                fen,
                "--nodes",
                nodes,
                "--threads",
                threads,
            ]);
            assert_eq!(r.status, Some(0), "{r:?}");
            let line = r.stdout.trim_end();
            let epd = Epd::parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            let bm = epd.moves("bm");
            let pv = epd.moves("pv");
            assert_eq!(bm.len(), 1, "{line}");
            assert_eq!(pv.first(), bm.first(), "{line}");
            match nodes {
                "1" => assert_eq!(epd.int("ce"), None, "{line}"),
                // Kiwipete's first move (Kd1) leads to long captures: at
                // 400 nodes it is still unscored; at 3,000 moves are.
                "3000" => assert!(epd.int("ce").is_some(), "{line}"),
                _ => {}
            }
        }
    }
}

#[test]
fn uci_d_prints_the_position_as_epd() {
    let mut e = Engine::start();
    e.send("position startpos moves e2e4 c7c5 g1f3");
    e.send("d");
    let line = e.read_until("Epd: ", TIMEOUT).pop().expect("an Epd line");
    assert_eq!(
        line,
        "Epd: rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - hmvc 1; fmvn 2;"
    );
    let epd = Epd::parse(&line["Epd: ".len()..]).expect("it reads back");
    assert_eq!(epd.position.halfmove_clock(), 1);
    e.finish();
}
