//! `forsyth train` from the command line: datagen games in, a network
//! file out that `EvalFile` loads; bad input is one message and status 2.

mod common;

use common::{Engine, TIMEOUT, TempFile, run_cli};
use std::path::PathBuf;

/// A folder of this test process's own, removed at the end.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let d =
            std::env::temp_dir().join(format!("forsyth-train-cli-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }

    fn path(&self, file: &str) -> String {
        self.0.join(file).to_str().unwrap().to_string()
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn datagen_then_train_then_evalfile() {
    let dir = Dir::new("pipeline");
    let data = dir.path("games");
    let r = run_cli(&[
        "datagen", "--out", &data, "--games", "6", "--nodes", "300", "--seed", "3",
    ]);
    assert_eq!(r.status, Some(0), "{r:?}");
    let bin = format!("{data}.bin");
    for (hidden, net) in [("256", dir.path("n256.nnue")), ("32", dir.path("n32.nnue"))] {
        let r = run_cli(&[
            "train",
            "--data",
            &bin,
            "--out",
            &net,
            "--hidden",
            hidden,
            "--epochs",
            "2",
            "--batch",
            "64",
            "--min-ply",
            "0",
            "--validation-every",
            "3",
        ]);
        assert_eq!(r.status, Some(0), "{r:?}");
        assert_eq!(r.stdout, format!("network written to {net}\n"));
        assert!(r.stderr.contains("epoch 2/2  train loss"), "{}", r.stderr);
        assert!(
            r.stderr.contains("win/draw/loss model of this network"),
            "{}",
            r.stderr
        );
    }
    let mut e = Engine::started();
    let ok = e.replies(&[&format!(
        "setoption name EvalFile value {}",
        dir.path("n256.nnue")
    )]);
    assert_eq!(ok.len(), 1, "{ok:?}");
    assert!(
        ok[0].starts_with(&format!(
            "info string EvalFile: {} (",
            dir.path("n256.nnue")
        )),
        "{ok:?}"
    );
    let refused = e.replies(&[&format!(
        "setoption name EvalFile value {}",
        dir.path("n32.nnue")
    )]);
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(
        refused[0].contains("the network has hidden size 32, this engine needs 256"),
        "{refused:?}"
    );
    e.send("position startpos");
    e.send("eval");
    let lines = e.read_until("Final evaluation:", TIMEOUT);
    assert!(
        lines.iter().any(|l| l.starts_with("Network 768->256x2->1")),
        "{lines:?}"
    );
    e.finish();
}

/// The same positions train the same net from a game file and from its
/// record file (`datagen convert`), validation split included: the split
/// depends only on the positions a record file holds, so both set aside
/// the same games and report the same validation loss. Here about half the
/// games leave nothing in a record file (one line of the book ends at once
/// in the tables, by a capture), so the game file holds more games than the
/// record file shows.
#[test]
fn a_game_file_and_its_records_train_the_same_net() {
    let dir = Dir::new("equal");
    let data = dir.path("games");
    let book = dir.path("book.epd");
    let lines = [
        "rn2kb1r/pp3ppp/2p1pn2/3p3b/8/1P1P1NPP/PBPqPPB1/RN2K2R w KQkq - 0 9",
        "r1b1kb1r/p1qp2pp/2p1ppn1/2p1P3/8/3P1N2/PPPBQPPP/RN2K2R w KQkq - 2 9",
        "rnb1k2r/pp1pppbp/1q4p1/2p5/2PP4/2n2NP1/PP2PPBP/RN1Q1RK1 w kq - 0 9",
        "r3k2n/8/8/8/8/8/8/4K2R w - -",
        "r3k2n/8/8/8/8/8/8/4K2R w - -",
        "r3k2n/8/8/8/8/8/8/4K2R w - -",
    ];
    std::fs::write(&book, lines.join("\n")).unwrap();
    let tables = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy");
    let r = run_cli(&[
        "datagen",
        "--out",
        &data,
        "--games",
        "12",
        "--nodes",
        "300",
        "--seed",
        "5",
        "--openings",
        &book,
        "--random-plies",
        "0",
        "--syzygy",
        tables,
    ]);
    assert_eq!(r.status, Some(0), "{r:?}");
    let (games, records) = (format!("{data}.bin"), dir.path("records.bin"));
    let r = run_cli(&["datagen", "convert", &games, &records]);
    assert_eq!(r.status, Some(0), "{r:?}");
    let train = |data: &str, net: &str| {
        let r = run_cli(&[
            "train",
            "--data",
            data,
            "--out",
            net,
            "--hidden",
            "32",
            "--epochs",
            "2",
            "--batch",
            "64",
            "--validation-every",
            "4",
            "--threads",
            "1",
        ]);
        assert_eq!(r.status, Some(0), "{r:?}");
        let summary = |line: &str| {
            // "... N to train on, M to validate; ..." and each epoch's losses.
            let at = line.find(" to train on").unwrap();
            let start = line[..at].rfind(' ').unwrap() + 1;
            let end = line[at..].find(" to validate").unwrap() + at;
            line[start..end].to_string()
        };
        let first = r
            .stderr
            .lines()
            .find(|l| l.contains(" to train on"))
            .unwrap();
        let losses: Vec<String> = r
            .stderr
            .lines()
            .filter_map(|l| {
                l.find("validation loss ")
                    .map(|i| l[i..].split("  ").next().unwrap().to_string())
            })
            .collect();
        let games = first.split(" games").next().unwrap();
        let games: u64 = games[games.rfind(' ').unwrap() + 1..].parse().unwrap();
        (summary(first), losses, std::fs::read(net).unwrap(), games)
    };
    let from_games = train(&games, &dir.path("g.nnue"));
    let from_records = train(&records, &dir.path("r.nnue"));
    assert_eq!(from_games.1.len(), 2, "{:?}", from_games.1);
    assert!(!from_games.0.ends_with(" 0"), "{}", from_games.0);
    assert_eq!(from_games.3, 12);
    assert!(from_records.3 < 12, "{}", from_records.3);
    assert_eq!(
        (&from_games.0, &from_games.1),
        (&from_records.0, &from_records.1)
    );
    assert!(from_games.2 == from_records.2, "the nets differ");
}

#[test]
fn bad_input_is_one_message_and_status_2() {
    let dir = Dir::new("bad");
    let out = dir.path("n.nnue");
    let odd = TempFile::new("odd.bin", [0u8; 33]);
    let empty = TempFile::new("empty.bin", []);
    let mut record = [0u8; 32];
    record[0] = 0x10; // one piece on e1
    record[8] = 0x07; // whose code is 7
    record[26] = 1;
    let bad = TempFile::new("bad.bin", record);
    // A game file whose first game reads, and whose second plays e2e4
    // twice: a bad game stops the run.
    let start = forsyth::engine::chess::Position::startpos();
    let e2e4 = start
        .legal_moves()
        .into_iter()
        .find(|m| m.uci(false).to_string() == "e2e4")
        .unwrap();
    let mut game = forsyth::tools::datagen::games::Game::new(
        start,
        forsyth::tools::datagen::format::GameResult::Draw,
    );
    game.plies
        .push(forsyth::tools::datagen::games::Ply { mv: e2e4, score: 5 });
    let mut bad_games = forsyth::tools::datagen::games::encode_games(&[game.clone()]);
    game.plies
        .push(forsyth::tools::datagen::games::Ply { mv: e2e4, score: 5 });
    bad_games.extend(forsyth::tools::datagen::games::encode_games(&[game]));
    let bad_game = TempFile::new("bad.games", bad_games);
    for (args, message) in [
        (
            vec!["--data", "/nonexistent.bin", "--out", &out],
            "cannot read /nonexistent.bin",
        ),
        (
            vec!["--data", odd.path(), "--out", &out],
            "33 bytes is not a whole number of 32-byte records",
        ),
        (
            vec!["--data", empty.path(), "--out", &out],
            "no training positions: 0 records read",
        ),
        (
            vec!["--data", bad.path(), "--out", &out],
            "record 0: piece code 7 is not a piece",
        ),
        (
            vec!["--data", bad_game.path(), "--out", &out],
            "game 1 at byte 76: ply 1: move bits 0x070c are not a legal move",
        ),
        (vec!["--data", odd.path()], "--out <NET.nnue>"),
        (
            vec!["--data", odd.path(), "--out", &out, "--hidden", "100"],
            "--hidden must be a multiple of 16",
        ),
    ] {
        let mut all = vec!["train"];
        all.extend_from_slice(&args);
        let r = run_cli(&all);
        assert_eq!(r.status, Some(2), "{args:?}: {r:?}");
        assert!(r.stderr.contains(message), "{args:?}: {}", r.stderr);
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
        assert!(!std::path::Path::new(&out).exists());
    }
}
