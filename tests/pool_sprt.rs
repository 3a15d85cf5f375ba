//! `tuning/pool-sprt.py`, which pools SPRT runs of match.py by game
//! pairs: it must give README's pooled figures (the material start and
//! the piece-square tables) again from the committed logs, and pair, score and count faults exactly on a small log.

use std::path::PathBuf;
use std::process::Command;

fn pool(args: &[&str]) -> (Option<i32>, String, String) {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new("python3")
        .arg(format!("{root}/tuning/pool-sprt.py"))
        .args(args)
        .current_dir(root)
        .output()
        .expect("python3 runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The output lines of a run that must succeed.
fn pooled_lines(args: &[&str]) -> Vec<String> {
    let (code, out, err) = pool(args);
    assert_eq!(code, Some(0), "{err}");
    out.lines().map(str::to_owned).collect()
}

fn temp_log(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("forsyth-pool-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn pooled_material_start_matches_readme() {
    let lines = pooled_lines(&[
        "-10",
        "0",
        "tuning/matches/run3-material-vs-full-seed501.log",
        "tuning/matches/run3-material-vs-full-seed502.log",
    ]);
    assert_eq!(
        lines,
        [
            "material vs full, 2 run(s) pooled by pairs, bounds [-10, 0]",
            "first crossing: H1 accepted after 1618 games, material 320 / 992 / 306, \
             pentanomial [25, 177, 397, 179, 31], Elo +3.0 ± 10.1, LLR +2.99",
            "all complete pairs: 1662 games, material 335 / 1012 / 315, \
             pentanomial [27, 180, 405, 184, 35], Elo +4.2 ± 10.1, LLR +3.43 [-2.94, +2.94]",
            "games lost on time, by an illegal move or by a crash: 0",
        ]
    );
}

/// Checks the first crossing and the fault line of a [0, 10] match that README reports.
fn assert_term_accepted(logs: &[&str], crossing: &str) {
    let mut args = vec!["0", "10"];
    args.extend_from_slice(logs);
    let lines = pooled_lines(&args);
    assert_eq!(lines[1], crossing);
    assert_eq!(
        lines[3],
        "games lost on time, by an illegal move or by a crash: 0"
    );
}

#[test]
fn pooled_piece_square_tables_match_readme() {
    assert_term_accepted(
        &[
            "tuning/matches/run3-full-vs-without-placement-seed601.log",
            "tuning/matches/run3-full-vs-without-placement-seed602.log",
        ],
        "first crossing: H1 accepted after 694 games, full 244 / 284 / 166, \
         pentanomial [29, 60, 114, 92, 52], Elo +39.2 ± 21.3, LLR +2.96",
    );
}

#[test]
fn pooled_tempo_matches_readme() {
    assert_term_accepted(
        &[
            "tuning/matches/run3-full-vs-without-tempo-seed701.log",
            "tuning/matches/run3-full-vs-without-tempo-seed702.log",
        ],
        "first crossing: H1 accepted after 1432 games, full 344 / 808 / 280, \
         pentanomial [22, 162, 300, 194, 38], Elo +15.5 ± 11.6, LLR +3.03",
    );
}

#[test]
fn single_run_of_the_piece_terms_matches_readme() {
    assert_term_accepted(
        &["tuning/matches/run3-full-vs-without-pieces-seed801.log"],
        "first crossing: H1 accepted after 952 games, full 265 / 487 / 200, \
         pentanomial [26, 91, 190, 130, 39], Elo +23.8 ± 15.6, LLR +2.98",
    );
}

const HEADER: &str =
    "match.py: a vs b | tc 4+0.04 | 10 games, concurrency 2 | 3 opening(s) used from x.epd\n";

#[test]
fn pairs_across_runs_and_counts_faults() {
    // Run 1: pair 1 (a wins both: WW), pair 2 ends out of order (#4
    // before #3; a loses one on time and draws the other: LD), #5 has no
    // partner and is left out.
    let one = temp_log(
        "one.log",
        &format!(
            "{HEADER}\
             Game    1/10 (#1, line 7) a vs b: 1-0 {{White mates}} | a +1=0-0 100.0% LLR +0.00\n\
             Game    2/10 (#2, line 7) b vs a: 0-1 {{Black mates}} | a +2=0-0 100.0% LLR +0.00\n\
             Game    3/10 (#4, line 9) b vs a: 1/2-1/2 {{threefold repetition}} | a +2=1-0 83.3% LLR +0.00\n\
             Game    4/10 (#3, line 9) a vs b: 0-1 {{a did not move within 0.050s}} | a +2=1-1 62.5% LLR +0.00\n\
             Game    5/10 (#5, line 3) a vs b: 1-0 {{White mates}} | a +3=1-1 70.0% LLR +0.00\n"
        ),
    );
    // Run 2 names the engines the other way round; scores stay a's.
    // Pair 1: a draws both (DD).
    let two = temp_log(
        "two.log",
        "match.py: b vs a | tc 4+0.04 | 10 games, concurrency 2 | 3 opening(s) used from x.epd\n\
         Game    1/10 (#1, line 2) b vs a: 1/2-1/2 {fifty-move rule} | b +0=1-0 50.0% LLR +0.00\n\
         Game    2/10 (#2, line 2) a vs b: 1/2-1/2 {insufficient material} | b +0=2-0 50.0% LLR +0.00\n",
    );
    let lines = pooled_lines(&["0", "10", one.to_str().unwrap(), two.to_str().unwrap()]);
    assert_eq!(lines[0], "a vs b, 2 run(s) pooled by pairs, bounds [0, 10]");
    assert_eq!(lines[1], "first crossing: none");
    assert!(
        lines[2]
            .starts_with("all complete pairs: 6 games, a 2 / 3 / 1, pentanomial [0, 1, 1, 0, 1], "),
        "{lines:?}"
    );
    assert_eq!(
        lines[3],
        "games lost on time, by an illegal move or by a crash: 1"
    );
}

#[test]
fn refuses_logs_of_other_engines_and_bad_bounds() {
    let one = temp_log("three.log", HEADER);
    let other = temp_log("four.log", "match.py: a vs c | tc 4+0.04 | 2 games\n");
    let (code, out, err) = pool(&["0", "10", one.to_str().unwrap(), other.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert_eq!(out, "");
    assert!(err.contains("engines a and c, not a and b"), "{err}");

    let (code, _, err) = pool(&["zero", "10", one.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(err.contains("must be numbers"), "{err}");

    let (code, _, err) = pool(&["0", "10", "tuning/matches/no-such.log"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("No such file"), "{err}");
}
