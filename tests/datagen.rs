//! `forsyth datagen` end to end: each test runs the binary on a few tiny
//! games (500 nodes per move) and checks what it wrote: the binary and
//! text files agree record for record, every record is a quiet position
//! with the result of its own game, a resumed run adds new games after the
//! old ones, a torn tail from a kill is cut off, and one thread with a
//! fixed seed writes the same bytes every time.

use forsyth::engine::search::MATE_BOUND;
use forsyth::tools::datagen::Progress;
use forsyth::tools::datagen::format::{self, GameResult, PackedPosition, RECORD_BYTES};
use std::collections::HashSet;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_forsyth");

/// A scratch folder removed when the test ends (even by a failed assert).
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("forsyth-datagen-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn out(&self) -> PathBuf {
        self.0.join("data")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn file(out: &Path, ext: &str) -> PathBuf {
    let mut s = out.as_os_str().to_owned();
    s.push(ext);
    PathBuf::from(s)
}

fn forsyth(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot start {BIN}: {e}"))
}

/// Runs datagen on `out` with tiny searches and a fixed seed, writing
/// records unless `extra` says `--format games`; must succeed.
fn datagen(out: &Path, extra: &[&str]) -> Output {
    let out_text = out.to_string_lossy();
    let mut args = vec![
        "datagen", "--out", &out_text, "--nodes", "500", "--seed", "7", "--text", "--format",
        "records",
    ];
    args.extend_from_slice(extra);
    let output = forsyth(&args);
    assert!(
        output.status.success(),
        "datagen {extra:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Checks that the three files agree and every record is usable; returns
/// the records and the progress.
fn check_files(out: &Path) -> (Vec<PackedPosition>, Progress) {
    let progress = Progress::read(&file(out, ".progress")).unwrap();
    let records = format::read_file(&file(out, ".bin")).unwrap();
    assert_eq!(records.len() as u64, progress.positions);
    let text = std::fs::read_to_string(file(out, ".txt")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), records.len(), "one text line per record");
    assert!(text.ends_with('\n'));
    for (rec, line) in records.iter().zip(&lines) {
        let (pos, score, _) = rec.unpack().unwrap_or_else(|e| panic!("{line}: {e}"));
        assert!(!pos.in_check(), "{line}");
        assert!((score as i32).abs() < MATE_BOUND, "{line}");
        assert_eq!(rec.to_text().unwrap(), *line);
        let fields: Vec<&str> = line.split(" | ").collect();
        assert_eq!(fields.len(), 3, "{line}");
        assert!(["1.0", "0.5", "0.0"].contains(&fields[2]), "{line}");
    }
    (records, progress)
}

fn fens(records: &[PackedPosition]) -> HashSet<String> {
    records
        .iter()
        .map(|r| r.unpack().unwrap().0.fen())
        .collect()
}

#[test]
fn each_game_carries_its_own_result() {
    let dir = Scratch::new("results");
    let out = dir.out();
    let mut before: (Vec<PackedPosition>, Progress) = (Vec::new(), Progress::default());
    // One game per run, so that each run's new records are exactly one game.
    for games in 1..=4u64 {
        datagen(&out, &["--games", &games.to_string()]);
        let (records, progress) = check_files(&out);
        assert_eq!(progress.games, games);
        assert_eq!(
            &records[..before.0.len()],
            &before.0[..],
            "earlier games kept"
        );
        let game = &records[before.0.len()..];
        assert!(!game.is_empty(), "game {games} recorded no position");
        let result = game[0].result().unwrap();
        assert!(game.iter().all(|r| r.result() == Ok(result)));
        let counted = match result {
            GameResult::WhiteWin => progress.white_wins - before.1.white_wins,
            GameResult::Draw => progress.draws - before.1.draws,
            GameResult::BlackWin => progress.black_wins - before.1.black_wins,
        };
        assert_eq!(counted, 1, "the progress file counts the game's result");
        before = (records, progress);
    }
}

#[test]
fn resume_adds_new_games_after_the_old_ones() {
    let dir = Scratch::new("resume");
    let out = dir.out();
    datagen(&out, &["--games", "2"]);
    let (first, p2) = check_files(&out);
    assert_eq!((p2.games, p2.next_game), (2, 2));
    let bin_before = std::fs::read(file(&out, ".bin")).unwrap();

    let output = datagen(&out, &["--games", "4", "--threads", "2"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("2 games to play (2 already"), "{stderr}");
    let (all, p4) = check_files(&out);
    assert_eq!((p4.games, p4.next_game), (4, 4));
    assert!(all.len() > first.len());
    let bin_after = std::fs::read(file(&out, ".bin")).unwrap();
    assert_eq!(&bin_after[..bin_before.len()], &bin_before[..]);
    // New games, not replays: no position of the first run comes back.
    let old = fens(&first);
    let new = fens(&all[first.len()..]);
    assert!(old.is_disjoint(&new));

    // Asking for what is already there plays nothing.
    datagen(&out, &["--games", "3"]);
    assert_eq!(std::fs::read(file(&out, ".bin")).unwrap(), bin_after);
}

#[test]
fn a_torn_tail_is_cut_off_on_resume() {
    let dir = Scratch::new("torn");
    let out = dir.out();
    datagen(&out, &["--games", "1"]);
    let (first, _) = check_files(&out);
    // What a kill in the middle of writing a game leaves behind.
    let append = |ext: &str, bytes: &[u8]| {
        let mut f = OpenOptions::new()
            .append(true)
            .open(file(&out, ext))
            .unwrap();
        f.write_all(bytes).unwrap();
    };
    append(".bin", &[0xAB; RECORD_BYTES + 7]);
    append(".txt", b"8/8/8/8/8/8/8/8 w - - 0 1 | 3");
    datagen(&out, &["--games", "2"]);
    let (all, progress) = check_files(&out);
    assert_eq!(progress.games, 2);
    assert_eq!(&all[..first.len()], &first[..]);
}

#[test]
fn one_thread_and_a_seed_give_the_same_bytes() {
    let dir = Scratch::new("determinism");
    let (a, b) = (dir.0.join("a"), dir.0.join("b"));
    datagen(&a, &["--games", "3"]);
    datagen(&b, &["--games", "3"]);
    for ext in [".bin", ".txt", ".progress"] {
        assert_eq!(
            std::fs::read(file(&a, ext)).unwrap(),
            std::fs::read(file(&b, ext)).unwrap(),
            "{ext}"
        );
    }
    // A game depends only on the seed and its number: stopping after one
    // game and resuming writes the same bytes as one run...
    let d = dir.0.join("d");
    datagen(&d, &["--games", "1"]);
    datagen(&d, &["--games", "3"]);
    assert_eq!(
        std::fs::read(file(&a, ".bin")).unwrap(),
        std::fs::read(file(&d, ".bin")).unwrap()
    );
    // ...and so does a run on two threads (games are written in the order
    // of their numbers, not in the order they end), stopped or not.
    let e = dir.0.join("e");
    datagen(&e, &["--games", "3", "--threads", "2"]);
    let f = dir.0.join("f");
    datagen(&f, &["--games", "2", "--threads", "2"]);
    datagen(&f, &["--games", "3", "--threads", "2"]);
    for other in [&e, &f] {
        for ext in [".bin", ".progress"] {
            assert_eq!(
                std::fs::read(file(&a, ext)).unwrap(),
                std::fs::read(file(other, ext)).unwrap(),
                "{} {ext}",
                other.display()
            );
        }
    }
    // The soft node limit is half of --nodes unless given; without it
    // (0) the games differ, and are as repeatable, stopped or not.
    let g = dir.0.join("g");
    datagen(&g, &["--games", "3", "--soft-nodes", "250"]);
    assert_eq!(
        std::fs::read(file(&a, ".bin")).unwrap(),
        std::fs::read(file(&g, ".bin")).unwrap()
    );
    let (h, i) = (dir.0.join("h"), dir.0.join("i"));
    datagen(&h, &["--games", "3", "--soft-nodes", "0"]);
    datagen(&i, &["--games", "1", "--soft-nodes", "0"]);
    datagen(&i, &["--games", "3", "--soft-nodes", "0", "--threads", "2"]);
    assert_eq!(
        std::fs::read(file(&h, ".bin")).unwrap(),
        std::fs::read(file(&i, ".bin")).unwrap()
    );
    assert_ne!(
        std::fs::read(file(&a, ".bin")).unwrap(),
        std::fs::read(file(&h, ".bin")).unwrap()
    );
    // Another seed plays other games.
    let c = dir.0.join("c");
    datagen(&c, &["--games", "3", "--seed", "8"]);
    assert_ne!(
        std::fs::read(file(&a, ".bin")).unwrap(),
        std::fs::read(file(&c, ".bin")).unwrap()
    );
}

#[test]
fn book_openings_and_text_conversion() {
    let dir = Scratch::new("book");
    let out = dir.out();
    datagen(
        &out,
        &[
            "--games",
            "2",
            "--openings",
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/data/openings/8moves_v3-every97.epd"
            ),
            "--random-plies",
            "2",
        ],
    );
    let (records, _) = check_files(&out);
    // 8moves_v3 lines start at move 9; two random plies later is move 10.
    let (pos, _, _) = records[0].unpack().unwrap();
    assert!(pos.fullmove_number() >= 10, "{}", pos.fen());
    let converted = forsyth(&["datagen", "text", &file(&out, ".bin").to_string_lossy()]);
    assert!(converted.status.success());
    assert_eq!(
        converted.stdout,
        std::fs::read(file(&out, ".txt")).unwrap(),
        "datagen text prints the text file"
    );
}

#[test]
fn bad_invocations_fail_without_writing() {
    let dir = Scratch::new("bad");
    let out = dir.out();
    let out_text = out.to_string_lossy();
    for args in [
        vec!["datagen", "--games", "2"],
        vec!["datagen", "--out", &out_text, "--nodes", "zero"],
        vec!["datagen", "--out", &out_text, "--threads", "0"],
        vec![
            "datagen",
            "--out",
            &out_text,
            "--openings",
            "no/such/file.epd",
        ],
        vec!["datagen", "text", "no/such/file.bin"],
        vec!["datagen", "--out", &out_text, "--syzygy", "no/such/dir"],
        vec![
            "datagen",
            "--out",
            &out_text,
            "--syzygy",
            "tests/data/openings",
        ],
    ] {
        let output = forsyth(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(!output.stderr.is_empty(), "{args:?}");
    }
    assert!(!file(&out, ".bin").exists());
    // A record file that is not ours is not overwritten.
    std::fs::write(file(&out, ".bin"), [1u8; 64]).unwrap();
    let output = forsyth(&["datagen", "--out", &out_text, "--games", "1"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(std::fs::read(file(&out, ".bin")).unwrap(), [1u8; 64]);
    // Nor is a corrupt record printed as a position.
    let output = forsyth(&["datagen", "text", &file(&out, ".bin").to_string_lossy()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("record 0"));
}

/// `--eval-file` chooses the network that plays and scores: the built-in
/// network's own file plays the default's games, another network other
/// games, and a file that is no network is refused before anything is
/// written.
#[test]
fn eval_file_chooses_the_network() {
    let dir = Scratch::new("evalfile");
    let (a, b) = (dir.0.join("a"), dir.0.join("b"));
    let default = datagen(&a, &["--games", "2"]);
    let embedded = concat!(env!("CARGO_MANIFEST_DIR"), "/net/forsyth.nnue");
    let same = datagen(&b, &["--games", "2", "--eval-file", embedded]);
    assert_eq!(
        std::fs::read(file(&a, ".bin")).unwrap(),
        std::fs::read(file(&b, ".bin")).unwrap()
    );
    let header = |o: &Output| -> String {
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        let line = err.lines().next().unwrap_or_default().to_string();
        line.rsplit_once(", network ")
            .map(|(_, hash)| hash.to_string())
            .unwrap_or_else(|| panic!("no network in {line:?}"))
    };
    assert_eq!(header(&default), header(&same));
    assert_eq!(header(&default).len(), 16);

    // A network of its own, trained on those two games in a moment.
    let net = dir.0.join("tiny.nnue");
    let bin = file(&a, ".bin");
    let trained = forsyth(&[
        "train",
        "--data",
        &bin.to_string_lossy(),
        "--out",
        &net.to_string_lossy(),
        "--epochs",
        "1",
        "--min-ply",
        "0",
        "--validation-every",
        "0",
    ]);
    assert!(
        trained.status.success(),
        "{}",
        String::from_utf8_lossy(&trained.stderr)
    );
    let c = dir.0.join("c");
    let other = datagen(&c, &["--games", "2", "--eval-file", &net.to_string_lossy()]);
    assert_ne!(header(&other), header(&default));
    assert_ne!(
        std::fs::read(file(&a, ".bin")).unwrap(),
        std::fs::read(file(&c, ".bin")).unwrap()
    );

    // Not a network, or no file at all: exit status 2, nothing written.
    let text = dir.0.join("text.nnue");
    std::fs::write(&text, "not a network\n").unwrap();
    for bad in [text.clone(), dir.0.join("missing.nnue")] {
        let d = dir.0.join("d");
        let output = forsyth(&[
            "datagen",
            "--out",
            &d.to_string_lossy(),
            "--games",
            "1",
            "--eval-file",
            &bad.to_string_lossy(),
        ]);
        assert_eq!(output.status.code(), Some(2));
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(
            err.contains(&format!("--eval-file {}: ", bad.display())),
            "{err}"
        );
        for ext in [".bin", ".txt", ".progress"] {
            assert!(!file(&d, ext).exists(), "{ext}");
        }
    }
}

#[test]
fn game_files_keep_every_ply_resume_and_match_the_records() {
    use forsyth::tools::datagen::games::GameReader;
    use forsyth::tools::train::data::{self, DataOptions};
    let dir = Scratch::new("games");
    let (a, r) = (dir.0.join("a"), dir.0.join("r"));
    datagen(&a, &["--games", "3", "--format", "games"]);
    datagen(&r, &["--games", "3"]);
    // Games are the default.
    let b = dir.0.join("b");
    let out = forsyth(&[
        "datagen",
        "--out",
        &b.to_string_lossy(),
        "--nodes",
        "500",
        "--seed",
        "7",
        "--games",
        "3",
    ]);
    assert!(out.status.success());
    assert_eq!(
        std::fs::read(file(&b, ".bin")).unwrap(),
        std::fs::read(file(&a, ".bin")).unwrap()
    );
    let progress = Progress::read(&file(&a, ".progress")).unwrap();
    let bytes = std::fs::read(file(&a, ".bin")).unwrap();
    let games: Vec<_> = GameReader::new(&bytes[..])
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(games.len(), 3);
    assert_eq!(progress.games, 3);
    let plies: usize = games.iter().map(|g| g.plies.len()).sum();
    assert_eq!(plies as u64, progress.positions);
    for g in &games {
        // The default 8 random plies, flagged, with no score.
        assert_eq!(g.opening_plies, 8);
        assert!(g.plies[..8].iter().all(|p| p.score == 0));
        assert_eq!(
            g.start.fen(),
            forsyth::engine::chess::Position::startpos().fen()
        );
    }
    // One text line a ply, and `datagen text` prints the same.
    let text = std::fs::read_to_string(file(&a, ".txt")).unwrap();
    assert_eq!(text.lines().count(), plies);
    let first: Vec<&str> = text.lines().next().unwrap().split(" | ").collect();
    assert_eq!(first[0], forsyth::engine::chess::Position::startpos().fen());
    assert_eq!(first[1], "-");
    let converted = forsyth(&["datagen", "text", &file(&a, ".bin").to_string_lossy()]);
    assert!(converted.status.success());
    assert_eq!(String::from_utf8(converted.stdout).unwrap(), text);
    // Loaded with the default filters, the games give exactly the records
    // a record run with the same seed writes: the same positions, scores
    // and results, so a net trained on either is the same net.
    let opts = DataOptions {
        min_ply: 0,
        validation_every: 0,
        ..DataOptions::default()
    };
    let from_games = data::load(&[file(&a, ".bin")], &opts).ok().unwrap();
    let from_records = data::load(&[file(&r, ".bin")], &opts).ok().unwrap();
    assert_eq!(from_games.train, from_records.train);
    assert_eq!(from_games.games, 3);
    assert_eq!(from_games.drops.opening, 24);
    // `datagen convert` writes the record file of the same seed.
    let converted = dir.0.join("converted.bin");
    let out = forsyth(&[
        "datagen",
        "convert",
        &file(&a, ".bin").to_string_lossy(),
        &converted.to_string_lossy(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read(&converted).unwrap(),
        std::fs::read(file(&r, ".bin")).unwrap()
    );
    // Not over an existing file, and not from a record file.
    for (from, to) in [
        (file(&a, ".bin"), converted.clone()),
        (file(&r, ".bin"), dir.0.join("x")),
    ] {
        let out = forsyth(&[
            "datagen",
            "convert",
            &from.to_string_lossy(),
            &to.to_string_lossy(),
        ]);
        assert_eq!(out.status.code(), Some(2));
    }
    assert!(!dir.0.join("x").exists());

    // Stopped after one game and resumed, on two threads, with a torn
    // tail: the same bytes.
    let d = dir.0.join("d");
    datagen(&d, &["--games", "1", "--format", "games"]);
    let mut f = OpenOptions::new()
        .append(true)
        .open(file(&d, ".bin"))
        .unwrap();
    f.write_all(&bytes[..45]).unwrap();
    drop(f);
    let mut f = OpenOptions::new()
        .append(true)
        .open(file(&d, ".txt"))
        .unwrap();
    f.write_all(b"8/8/8/8/8/8/8/8 w").unwrap();
    drop(f);
    datagen(&d, &["--games", "3", "--format", "games", "--threads", "2"]);
    assert_eq!(std::fs::read(file(&d, ".bin")).unwrap(), bytes);
    assert_eq!(std::fs::read_to_string(file(&d, ".txt")).unwrap(), text);
    // Resuming in the other format is refused.
    let out_text = d.to_string_lossy();
    let output = forsyth(&[
        "datagen", "--out", &out_text, "--games", "4", "--seed", "7", "--format", "records",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("holds games: resume it with --format games"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(file(&d, ".bin")).unwrap(), bytes);
}

/// `--syzygy`: a game ends at the first position a move reaches in the
/// tables, with their result. From a book line of five pieces, White takes
/// the knight with check and reaches KRvKR, which the tables call a win
/// (the check skewers the king and the rook behind it): one searched ply.
/// Without the tables the game goes on.
#[test]
fn syzygy_ends_games_with_the_tables_result() {
    use forsyth::tools::datagen::games::GameReader;
    let dir = Scratch::new("syzygy");
    let book = dir.0.join("book.epd");
    std::fs::write(&book, "r3k2n/8/8/8/8/8/8/4K2R w - - 0 1\n").unwrap();
    let tables = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy");
    let play = |name: &str, extra: &[&str]| {
        let out = dir.0.join(name);
        let mut args = vec![
            "--games",
            "1",
            "--format",
            "games",
            "--random-plies",
            "0",
            "--openings",
            book.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let output = datagen(&out, &args);
        let bytes = std::fs::read(file(&out, ".bin")).unwrap();
        let games: Vec<_> = GameReader::new(&bytes[..])
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(games.len(), 1);
        (
            games[0].clone(),
            String::from_utf8_lossy(&output.stderr).to_string(),
        )
    };
    let (game, stderr) = play("tb", &["--syzygy", tables]);
    assert!(stderr.contains("70 table files up to 4 pieces"), "{stderr}");
    assert_eq!(game.plies.len(), 1);
    assert_eq!(game.plies[0].mv.uci(false).to_string(), "h1h8");
    assert_eq!(game.result, GameResult::WhiteWin);
    let (after, _) =
        forsyth::engine::chess::Position::from_fen("r3k2R/8/8/8/8/8/8/4K3 b - - 0 1").unwrap();
    let (tb, _) = forsyth::engine::tablebase::Tablebases::load(tables);
    assert_eq!(
        tb.probe_wdl(&after),
        Some(forsyth::engine::tablebase::Wdl::Loss)
    );
    let (game, _) = play("no-tb", &[]);
    assert!(game.plies.len() > 1);
    assert_eq!(game.plies[0].mv.uci(false).to_string(), "h1h8");
}
