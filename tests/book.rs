//! Opening books end to end: the default book is what its sources build,
//! `forsyth book build` and `probe` agree, and the UCI engine plays book
//! moves exactly when it should.

mod common;

use common::{BIN, Engine, TIMEOUT, TempFile, position};
use forsyth::engine::book::{Book, DEFAULT_BOOK};
use forsyth::engine::chess::Position;
use forsyth::tools::book_build::{self, BuildOptions, Builder};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn forsyth(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {BIN}: {e}"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `book/forsyth.bin` is exactly what `make book` builds from `book/*.pgn`,
/// and it is what the binary carries.
#[test]
fn default_book_is_built_from_its_sources() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("book");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the book folder")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "pgn"))
        .collect();
    sources.sort();
    assert!(sources.len() >= 5, "{sources:?}");
    let mut builder = Builder::new(BuildOptions::default());
    for file in &sources {
        let pgn = std::fs::read_to_string(file).expect("a readable PGN file");
        let errors = builder.add_pgn(&pgn);
        assert!(errors.is_empty(), "{}: {errors:?}", file.display());
    }
    assert!(builder.games() >= 300, "{} lines", builder.games());
    let built = book_build::to_bytes(&builder.entries());
    let committed = std::fs::read(dir.join("forsyth.bin")).expect("book/forsyth.bin");
    assert!(
        built == committed,
        "book/forsyth.bin is out of date: run `make book`"
    );
    assert!(
        built == DEFAULT_BOOK,
        "rebuild the binary after `make book`"
    );
}

const SMALL_PGN: &str = r#"[Event "one"]
[Result "1-0"]
1. e4 e5 2. Nf3 Nc6 {main line} 3. Bb5 1-0

[Event "two"]
[Result "1/2-1/2"]
1. e4 c5 (1... e5 2. Nf3) 2. Nf3 $1 d6 1/2-1/2

[Event "three"]
[Result "0-1"]
1. d4 d5 2. c4 e6 0-1

[Event "four"]
1. e4 e5 2. Nf3 Nf6 *
"#;

#[test]
fn build_then_probe_round_trip() {
    let pgn = TempFile::new("small.pgn", SMALL_PGN.as_bytes());
    let bin = TempFile::new("small.bin", b"");
    let out = forsyth(&[
        "book",
        "build",
        "--pgn",
        pgn.path(),
        "--out",
        bin.path(),
        "--max-ply",
        "3",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("4 games read, 0 skipped; 6 entries written"),
        "{}",
        text(&out.stderr)
    );
    // Start: e4 = 2 (win) + 1 (draw) + 1 (unknown), d4 = 0 (loss): dropped.
    let out = forsyth(&["book", "probe", "--book", bin.path()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<String> = text(&out.stdout).lines().map(str::to_owned).collect();
    assert_eq!(
        lines[0],
        format!("book {} key 463b96181691fc9c", bin.path())
    );
    assert_eq!(lines[1..], ["e2e4   e4       weight     4 100.0%"]);
    // After 1. e4: Black's e5 lost once (0) and was unknown once (1); c5
    // drew (1). Equal weights come in the order of the file.
    let out = forsyth(&[
        "book",
        "probe",
        "--book",
        bin.path(),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
    ]);
    let lines: Vec<String> = text(&out.stdout).lines().map(str::to_owned).collect();
    assert_eq!(
        lines[1..],
        [
            "c7c5   c5       weight     1  50.0%",
            "e7e5   e5       weight     1  50.0%",
        ]
    );
    // --max-ply 3: nothing after the third ply.
    let out = forsyth(&[
        "book",
        "probe",
        "--book",
        bin.path(),
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    ]);
    assert_eq!(text(&out.stdout).lines().nth(1), Some("no book moves"));
    // The default book knows the start position.
    let out = forsyth(&["book", "probe"]);
    assert!(
        text(&out.stdout).contains("e2e4   e4"),
        "{}",
        text(&out.stdout)
    );
    // A bad FEN: one line that names the fault, status 2.
    let out = forsyth(&["book", "probe", "8/8/8/8", "w", "-", "-", "0", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "forsyth: bad FEN: FEN piece placement field: expected 8 ranks, found 4\n"
    );
}

#[test]
fn malformed_games_are_reported_and_skipped() {
    let pgn = TempFile::new(
        "bad.pgn",
        b"1. e4 e5 *\n\n1. d4 d5 2. Kd2 Kd7 3. Qxh7 *\n\n1. c4 {a comment} e5 *\n",
    );
    let bin = TempFile::new("bad.bin", b"");
    let out = forsyth(&["book", "build", "--pgn", pgn.path(), "--out", bin.path()]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("game 2: move 3. 'Qxh7'") && err.contains("game skipped"),
        "{err}"
    );
    assert!(err.contains("3 games read"), "{err}");
    let book = Book::open(&bin.0).expect("a book");
    let start = book.probe(&Position::startpos()).expect("a probe");
    let firsts: Vec<String> = start.iter().map(|b| b.mv.uci(false).to_string()).collect();
    assert_eq!(firsts, ["c2c4", "e2e4"], "the bad game's d4 is not in");
    // --strict refuses to write a book from sources with a bad game.
    let strict = TempFile::new("strict.bin", b"old");
    let out = forsyth(&[
        "book",
        "build",
        "--strict",
        "--pgn",
        pgn.path(),
        "--out",
        strict.path(),
    ]);
    assert!(!out.status.success());
    assert_eq!(std::fs::read(&strict.0).expect("the old file"), b"old");
}

/// The moves the default book has for the start position, heaviest first.
fn default_book_moves(pos: &Position) -> Vec<String> {
    let book = Book::default_book().expect("the default book");
    book.probe(pos)
        .expect("a probe")
        .iter()
        .map(|b| b.mv.uci(false).to_string())
        .collect()
}

#[test]
fn book_moves_only_with_own_book() {
    let mut e = Engine::started();
    let start = Position::startpos();
    // Off by default: a search.
    let s = e.go(&start, "go wtime 2000 btime 2000");
    assert!(
        s.lines.iter().all(|l| !l.contains("book move")),
        "{:?}",
        s.lines
    );
    assert!(!s.pv_lines().is_empty(), "{:?}", s.lines);
    e.send("setoption name OwnBook value true");
    let known = default_book_moves(&start);
    for go in ["go wtime 2000 btime 2000", "go movetime 5000"] {
        let s = e.go(&start, go);
        assert_eq!(s.lines.len(), 2, "{:?}", s.lines);
        assert_eq!(s.lines[0], format!("info string book move {}", s.best));
        assert!(known.contains(&s.best), "{} not in {known:?}", s.best);
        assert!(
            s.elapsed < std::time::Duration::from_millis(1000),
            "{:?}",
            s.elapsed
        );
    }
    e.send("setoption name OwnBook value false");
    let s = e.go(&start, "go movetime 100");
    assert!(s.lines.iter().all(|l| !l.contains("book move")));
    e.finish();
}

#[test]
fn analysis_and_deep_games_are_searched() {
    let mut e = Engine::started();
    e.send("setoption name OwnBook value true");
    let start = Position::startpos();
    for go in [
        "go depth 3",
        "go nodes 5000",
        "go mate 2 wtime 1000 btime 1000",
        "go wtime 1000 btime 1000 searchmoves a2a3 h2h3",
    ] {
        let s = e.go(&start, go);
        assert!(
            s.lines.iter().all(|l| !l.contains("book move")),
            "{go}: {:?}",
            s.lines
        );
    }
    // `go infinite` and a bare `go` wait for `stop`, `go ponder` for
    // `ponderhit`, and then answer with a search result.
    for (go, end) in [
        ("go infinite", "stop"),
        ("go", "stop"),
        ("go ponder wtime 1000 btime 1000", "ponderhit"),
    ] {
        e.send(go);
        let early = e.expect_none(
            |l| l.starts_with("bestmove") || l.contains("book move"),
            std::time::Duration::from_millis(150),
            go,
        );
        assert!(
            early.iter().all(|l| l.starts_with("info depth")),
            "{early:?}"
        );
        e.send(end);
        let lines = e.read_until("bestmove", TIMEOUT);
        assert!(
            lines.iter().all(|l| !l.contains("book move")),
            "{go}: {lines:?}"
        );
    }
    // Book Depth 2: the third ply is searched even though it is in the book.
    e.send("setoption name Book Depth value 2");
    e.send("position startpos moves e2e4 e7e5");
    let s = e.go(&position(None, &["e2e4", "e7e5"]), "go movetime 100");
    assert!(s.lines.iter().all(|l| !l.contains("book move")));
    e.send("position startpos moves e2e4");
    let s = e.go(&position(None, &["e2e4"]), "go movetime 100");
    assert!(
        s.lines[0].starts_with("info string book move"),
        "{:?}",
        s.lines
    );
    e.finish();
}

#[test]
fn a_bad_book_file_gives_one_error_and_a_normal_search() {
    let corrupt = TempFile::new("corrupt.bin", [7u8; 17]);
    let mut e = Engine::started();
    e.send("setoption name OwnBook value true");
    e.send(&format!("setoption name BookFile value {}", corrupt.path()));
    let lines = e.sync();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("info string error: BookFile: book '")
            && lines[0].contains(corrupt.path())
            && lines[0].contains("not a Polyglot book"),
        "{lines:?}"
    );
    let start = Position::startpos();
    let s = e.go(&start, "go movetime 100");
    assert!(s.error_lines().is_empty(), "{:?}", s.lines);
    assert!(!s.pv_lines().is_empty(), "{:?}", s.lines);
    assert!(s.lines.iter().all(|l| !l.contains("book move")));
    // A missing file too.
    e.send("setoption name BookFile value /no/such/dir/book.bin");
    let lines = e.sync();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("/no/such/dir/book.bin"), "{lines:?}");
    // Back to the default book: book moves again.
    e.send("setoption name BookFile value <empty>");
    assert_eq!(e.sync(), Vec::<String>::new());
    let s = e.go(&start, "go movetime 100");
    assert!(
        s.lines[0].starts_with("info string book move"),
        "{:?}",
        s.lines
    );
    e.finish();
}

#[test]
fn variety_zero_always_plays_the_heaviest_move() {
    let mut e = Engine::started();
    e.send("setoption name OwnBook value true");
    e.send("setoption name Book Variety value 0");
    for moves in [
        &[][..],
        &["e2e4"],
        &["d2d4", "g8f6"],
        &["e2e4", "c7c5", "g1f3"],
    ] {
        let pos = position(None, moves);
        let heaviest = default_book_moves(&pos)[0].clone();
        if moves.is_empty() {
            e.send("position startpos");
        } else {
            e.send(&format!("position startpos moves {}", moves.join(" ")));
        }
        for _ in 0..5 {
            let s = e.go(&pos, "go wtime 60000 btime 60000");
            assert_eq!(s.best, heaviest, "after {moves:?}");
        }
    }
    e.finish();
}

#[test]
fn book_castling_follows_uci_chess960() {
    let pgn = TempFile::new("castle.pgn", b"1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O *\n");
    let bin = TempFile::new("castle.bin", b"");
    let out = forsyth(&["book", "build", "--pgn", pgn.path(), "--out", bin.path()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let moves = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"];
    let pos = position(None, &moves);
    let mut e = Engine::started();
    e.send("setoption name OwnBook value true");
    e.send(&format!("setoption name BookFile value {}", bin.path()));
    e.send(&format!("position startpos moves {}", moves.join(" ")));
    let s = e.go(&pos, "go wtime 1000 btime 1000");
    assert_eq!(s.best, "e1g1", "{:?}", s.lines);
    e.send("setoption name UCI_Chess960 value true");
    e.chess960 = true;
    let s = e.go(&pos, "go wtime 1000 btime 1000");
    assert_eq!(s.best, "e1h1", "{:?}", s.lines);
    e.finish();
}
