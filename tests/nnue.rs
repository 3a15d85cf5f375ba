//! The evaluation network through UCI: `EvalFile` (a bad file is refused
//! and the network kept), `eval`, and searches with it.

mod common;

use common::{BIN, Engine, TIMEOUT, TempFile, position};

const MIDDLEGAME: &str = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8";

/// The network's name and the final evaluation from an `eval` reply.
fn network_eval(e: &mut Engine) -> (String, String) {
    e.send("eval");
    let lines = e.read_until("Final evaluation:", TIMEOUT);
    let name = lines
        .iter()
        .find_map(|l| l.strip_prefix("Network 768->256x2->1, "))
        .unwrap_or_else(|| panic!("no network line in {lines:?}"))
        .to_string();
    let last = lines.last().unwrap().clone();
    (name, last)
}

fn final_score(line: &str) -> f64 {
    line.trim_start_matches("Final evaluation:")
        .split_whitespace()
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::NAN)
}

#[test]
fn eval_shows_the_network_and_flip_negates_it() {
    let mut e = Engine::started();
    e.send(&format!("position fen {MIDDLEGAME}"));
    e.send("eval");
    let lines = e.read_until("Final evaluation:", TIMEOUT);
    assert!(lines[0].starts_with("NNUE piece values"), "{lines:?}");
    // Every piece but the kings valued: 31 pieces, 29 values.
    let valued = lines
        .iter()
        .filter(|l| l.starts_with(" |") && !l.contains(|c: char| c.is_ascii_alphabetic()))
        .flat_map(|l| l.split('|'))
        .filter(|cell| cell.trim().starts_with(['+', '-']))
        .count();
    assert_eq!(valued, 29, "{lines:?}");
    let before = final_score(lines.last().unwrap());
    assert!(before.is_finite(), "{lines:?}");
    e.send("flip");
    let (_, after) = network_eval(&mut e);
    assert_eq!(final_score(&after), -before);
    e.finish();
}

#[test]
fn a_bad_eval_file_is_refused_and_the_network_kept() {
    let mut e = Engine::started();
    e.send(&format!("position fen {MIDDLEGAME}"));
    let (name, score) = network_eval(&mut e);
    let net = std::fs::read("net/forsyth.nnue").unwrap();

    let truncated = TempFile::new("truncated.nnue", &net[..net.len() - 100]);
    let mut damaged_bytes = net.clone();
    damaged_bytes[5000] ^= 0x40;
    let damaged = TempFile::new("damaged.nnue", &damaged_bytes);
    let mut foreign_bytes = net.clone();
    foreign_bytes[16..20].copy_from_slice(&512u32.to_le_bytes());
    let foreign = TempFile::new("foreign.nnue", &foreign_bytes);
    let text = TempFile::new("text.nnue", "not a network\n");
    let mut magic_bytes = net.clone();
    magic_bytes[..8].copy_from_slice(b"NNUEFILE");
    let magic = TempFile::new("magic.nnue", &magic_bytes);
    let keeping = format!("; keeping network {name}");
    for (file, why) in [
        ("/nonexistent/net.nnue", "cannot read /nonexistent/net.nnue"),
        (
            truncated.path(),
            &format!(
                "the file has {} bytes, its header announces {}",
                net.len() - 100,
                net.len()
            ) as &str,
        ),
        (damaged.path(), "the weights are damaged (hash "),
        (
            foreign.path(),
            "the network has hidden size 512, this engine needs 256",
        ),
        (text.path(), "14 bytes is too short for a network"),
        (magic.path(), "not a Forsyth network (bad magic)"),
    ] {
        let lines = e.replies(&[&format!("setoption name EvalFile value {file}")]);
        assert_eq!(lines.len(), 1, "{lines:?}");
        let line = &lines[0];
        assert!(
            line.starts_with(&format!("info string error: EvalFile: {file}: ")),
            "{line}"
        );
        assert!(line.contains(why), "{line}");
        assert!(line.ends_with(&keeping), "{line}");
        assert_eq!(network_eval(&mut e), (name.clone(), score.clone()));
    }

    // A good file loads; <empty> goes back to the embedded network.
    let copy = TempFile::new("copy.nnue", &net);
    let lines = e.replies(&[&format!("setoption name EvalFile value {}", copy.path())]);
    assert_eq!(
        lines,
        [format!("info string EvalFile: {} ({name})", copy.path())]
    );
    let lines = e.replies(&["setoption name EvalFile value <empty>"]);
    assert_eq!(
        lines,
        [format!(
            "info string EvalFile: the embedded network ({name})"
        )]
    );
    assert_eq!(network_eval(&mut e), (name, score));
    e.finish();
}

#[test]
fn searches_with_the_network_play_legal_moves() {
    let mut e = Engine::started();
    for (fen, moves) in [
        (None, vec![]),
        (Some(MIDDLEGAME), vec![]),
        (None, vec!["e2e4", "d7d5", "e4d5", "d8d5", "b1c3"]),
        (Some("8/P5k1/8/8/8/8/5q2/K7 w - - 0 1"), vec![]),
    ] {
        let pos = position(fen, &moves);
        let base = match fen {
            Some(f) => format!("position fen {f}"),
            None => "position startpos".to_string(),
        };
        let cmd = if moves.is_empty() {
            base
        } else {
            format!("{base} moves {}", moves.join(" "))
        };
        e.send("ucinewgame");
        e.send(&cmd);
        let first = e.go(&pos, "go depth 8");
        e.send("ucinewgame");
        e.send(&cmd);
        let again = e.go(&pos, "go depth 8");
        // One thread, the same table size: a fresh search gives the same line.
        assert_eq!(
            first.last_pv_line().split(" pv ").nth(1),
            again.last_pv_line().split(" pv ").nth(1)
        );
    }
    e.finish();
}

/// UCI `bench` is the command line's: the same positions, depth and node
/// count, the same on every run.
#[test]
fn uci_bench_is_the_command_lines() {
    let mut e = Engine::started();
    let nodes = |e: &mut Engine| -> u64 {
        e.send("bench 6");
        let line = e
            .expect_line(|l| l.ends_with(" nps"), TIMEOUT)
            .pop()
            .unwrap();
        line.split_whitespace().next().unwrap().parse().unwrap()
    };
    let first = nodes(&mut e);
    assert_eq!(nodes(&mut e), first);
    e.finish();
    let out = std::process::Command::new(BIN)
        .args(["bench", "6"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().unwrap_or_default();
    assert_eq!(
        last.split_whitespace().next(),
        Some(first.to_string().as_str()),
        "{text}"
    );
}
