//! Entry points for the fuzz targets in `fuzz/` and for the test that
//! replays what they found (`tests/fuzz_regressions.rs`), so that both run
//! the same checks: each takes arbitrary bytes and panics on a broken
//! rule. Refusing bad input is fine; panicking, hanging or accepting
//! something that does not read back is not.
//!
//! - [`fen`]: the FEN reader, on the bytes as given and on a known FEN
//!   mutated under the bytes' control.
//! - [`moves`]: the SAN and UCI move readers.
//! - [`uci_session`]: the UCI line handler over a whole session.
//! - [`epd`]: the EPD reader and writer.
//! - [`polyglot()`]: the Polyglot book reader on arbitrary files.
//! - [`games`]: the game-file reader of training data.
//! - [`pgn`]: the PGN reader (pgn-reader and our visitor), and the book
//!   builder on what it reads.
//!
//! [`naive`] is an independent move generator the checks compare with. It
//! shares nothing with `chess::movegen` (no attack tables, pins or check
//! masks): it steps over the board square by square, plays each move on a
//! plain array and checks the king with a ray scan; castling follows the
//! Chess960 rule. Its own test checks it against the published perft counts
//! of six positions. `tests/properties.rs` compares the two over thousands
//! of random games from [`POSITIONS`], with FEN, SAN, key and copy-make
//! round trips.
//!
//! # The targets
//!
//! `make fuzz` runs each target of `fuzz/` (cargo-fuzz, libFuzzer; nightly
//! only) for `FUZZ_TIME` seconds, niced, one process. Each target is one
//! line calling the function here of the same name:
//!
//! - `fen`: the bytes as a FEN, and a known FEN mutated by them (three bytes
//!   an edit). An accepted FEN must give a position whose FEN and
//!   Shredder-FEN read back equal, whose keys equal keys from scratch, whose
//!   mirror mirrors back, whose moves equal the naive generator's and
//!   `noisy + quiet`, each `is_legal`, with a unique SAN and UCI text that
//!   read back to it, and whose children pass the FEN and key checks.
//! - `moves`: a FEN line, then move text: whatever `parse_san` or
//!   `parse_uci_move` accepts is legal and its own SAN and UCI read back.
//! - `uci`: a session of lines to the real line handler. A node limit of
//!   3,000 is inserted after `go`; `bench`, deep `perft`, `Hash` above 8,
//!   `Threads` above 2 and any `BookFile` or `SyzygyPath` are left out. The
//!   searches run on their own threads while the next lines arrive, so
//!   commands race with them. Every `go`, also a refused one, must get
//!   exactly one `bestmove`, in order, legal in the position its `go`
//!   searched (`0000` only with no position or no legal move), with a legal
//!   ponder move.
//! - `epd`: an accepted record writes as a line that reads back to the same
//!   position fields, key and operations, and writes the same again. (FEN
//!   counters inside a record are written as `hmvc`/`fmvn`, so the check
//!   compares the four position fields.)
//! - `polyglot`: the bytes as a book, opened in memory and from disk; both
//!   agree, every entry is found under its key, probing and following the
//!   book gives legal moves only.
//! - `pgn`: every game read is legal move by move; the book built from it
//!   opens and its probes along the games are legal. Read whole for
//!   `annotate`, every move of every variation is legal where it stands,
//!   and a game as written reads back the same (tags, moves, NAGs,
//!   variations, comments up to their spacing).
//! - `games`: the bytes as a game file (`datagen::games`). Every game read
//!   is legal move by move, its bytes are the ones it was read from (up to
//!   the start position's unused score), and it encodes and reads back
//!   the same; the reader stops after a truncation and never panics; the
//!   file-kind sniffer copes with anything.
//!
//! One convention the `fen` target met: with the king one file from its
//! castling square (only a Chess960 start allows it), castling in standard
//! notation (`f8g8` for the king on f8 and the rook on h8) reads as the
//! ordinary king move, as Stockfish writes it; GUIs send such positions
//! with `UCI_Chess960` on, where castling is king-takes-rook. The check
//! expects the ordinary move in that one case.
//!
//! A crash input, once fixed, goes to `fuzz/regressions/<target>/`;
//! `tests/fuzz_regressions.rs` replays those and the seeds
//! (`fuzz/seeds/<target>/`) through these functions on stable.

pub mod naive;
mod uci;

pub use uci::uci_session;

use crate::engine::book::polyglot::{self, Entry, Reader};
use crate::engine::book::{self, Book, Rng};
use crate::engine::chess::epd::Epd;
use crate::engine::chess::{Move, Position, Setup};
use crate::tools::book_build::{BuildOptions, Builder, to_bytes};
use std::collections::HashSet;
use std::path::PathBuf;

/// Positions that reach the corners of the rules: castling both ways and
/// in Chess960, en passant (also pinned), promotions, checks, few moves.
pub const POSITIONS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "8/8/8/K2pP2q/8/8/8/7k w - d6 0 2",
    "4k3/1P6/8/8/8/8/6p1/4K2R b K - 0 1",
    "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 2 3",
    "1k6/8/8/8/8/8/8/R3K2R w KQ - 0 1",
    "7k/5Q2/8/8/8/8/8/K7 b - - 0 1",
    "2r1k2r/8/8/8/8/8/8/1R2K1R1 w GBhc - 0 1",
    "4k3/8/8/2N1N3/8/2N1N3/8/4K3 w - - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
];

/// Everything that must hold for a valid position: it reads back from its
/// own FEN (both castling notations), its keys are those computed from
/// scratch, mirroring twice changes nothing, the generator agrees with
/// [`naive`] and with `is_legal`, and each legal move played on a copy
/// gives a position that is consistent in the same ways and has a SAN and
/// UCI text that read back to the move.
pub fn check_position(pos: &Position) {
    check_state(pos);
    let fen = pos.fen();
    assert_eq!(
        pos.mirrored().mirrored(),
        *pos,
        "mirroring twice changed {fen}"
    );

    let legal = pos.legal_moves();
    let got: HashSet<Move> = legal.iter().copied().collect();
    let want: HashSet<Move> = naive::legal_moves(pos).into_iter().collect();
    assert_eq!(got.len(), legal.len(), "a move generated twice in {fen}");
    assert_eq!(got, want, "legal moves differ from the naive ones in {fen}");
    assert_eq!(pos.count_legal(), legal.len() as u64, "{fen}");
    let split: HashSet<Move> = pos
        .noisy_moves()
        .into_iter()
        .chain(pos.quiet_moves())
        .collect();
    assert_eq!(split, got, "noisy + quiet != legal in {fen}");

    let mut sans = HashSet::new();
    for &m in &legal {
        assert!(pos.is_legal(m), "{m:?} generated but not is_legal in {fen}");
        let san = pos.san(m);
        assert_eq!(pos.parse_san(&san), Ok(m), "SAN {san} in {fen}");
        assert!(sans.insert(san.clone()), "SAN {san} twice in {fen}");
        check_uci_text(pos, m, &legal);
        let mut child = pos.clone();
        child.play(m);
        check_state(&child);
        assert_eq!(
            pos.gives_check(m),
            child.in_check(),
            "gives_check {san} in {fen}"
        );
    }
}

/// The UCI text of a legal move reads back to it, in both castling
/// notations. One exception, by design: in standard notation a Chess960
/// castling whose king steps one file is written as that step (`f8g8`, as
/// Stockfish writes it), which names the ordinary king move where that is
/// legal too; `UCI_Chess960` exists for such positions.
fn check_uci_text(pos: &Position, m: Move, legal: &[Move]) {
    let fen = pos.fen();
    for chess960 in [false, true] {
        let text = m.uci(chess960).to_string();
        let read = pos.parse_uci_move(&text);
        let shadowed = m.is_castling()
            && !chess960
            && legal
                .iter()
                .any(|o| !o.is_castling() && o.uci(false).to_string() == text);
        if shadowed {
            assert!(
                matches!(read, Ok(o) if !o.is_castling()),
                "UCI {text} in {fen}"
            );
        } else {
            assert_eq!(read, Ok(m), "UCI {text} in {fen}");
        }
    }
}

/// The cheap part of [`check_position`]: FEN round trips and keys.
pub fn check_state(pos: &Position) {
    let fen = pos.fen();
    let (again, warnings) =
        Position::from_fen(&fen).unwrap_or_else(|e| panic!("own FEN {fen} refused: {e}"));
    assert!(warnings.is_empty(), "own FEN {fen} gave {warnings:?}");
    assert_eq!(again, *pos, "{fen} does not read back to the same position");
    let shredder = pos.fen_shredder();
    match Position::from_fen(&shredder) {
        Ok((p, _)) => assert_eq!(p, *pos, "{shredder} reads back differently"),
        Err(e) => panic!("own Shredder-FEN {shredder} refused: {e}"),
    }
    assert_eq!(
        pos.compute_keys(),
        (pos.key(), pos.pawn_key()),
        "incremental keys differ from scratch in {fen}"
    );
}

/// Characters FEN is made of, for the mutations.
const FEN_ALPHABET: &[u8] = b"KQRBNPkqrbnp12345678/ -wbABCDEFGHacdefgh09";

/// A FEN from [`POSITIONS`] changed under the control of `data`: three
/// bytes per edit (what, where, which character), so that the fuzzer
/// explores text close to valid FEN instead of mostly failing at the
/// first field.
pub fn mutate_fen(data: &[u8]) -> String {
    let Some((&pick, edits)) = data.split_first() else {
        return POSITIONS[0].to_string();
    };
    let mut fen: Vec<u8> = POSITIONS[pick as usize % POSITIONS.len()].bytes().collect();
    for edit in edits.chunks_exact(3) {
        let (what, at, c) = (edit[0], edit[1] as usize, edit[2]);
        let c = FEN_ALPHABET[c as usize % FEN_ALPHABET.len()];
        let len = fen.len();
        match what % 4 {
            0 if len > 0 => fen[at % len] = c,
            1 => fen.insert(at % (len + 1), c),
            2 if len > 0 => {
                fen.remove(at % len);
            }
            _ => {
                // Swap two whole fields.
                let mut fields: Vec<Vec<u8>> =
                    fen.split(|&b| b == b' ').map(<[u8]>::to_vec).collect();
                let n = fields.len();
                fields.swap(at % n, c as usize % n);
                fen = fields.join(&b' ');
            }
        }
    }
    String::from_utf8_lossy(&fen).into_owned()
}

fn check_fen_text(text: &str) {
    let setup = Setup::parse(text);
    match Position::from_fen(text) {
        Ok((pos, _)) => {
            assert!(setup.is_ok(), "{text:?}: position but no setup");
            check_position(&pos);
        }
        Err(e) => {
            // The message and field must be producible for any error.
            let _ = (e.to_string(), e.field());
        }
    }
}

/// FEN target: the bytes as a FEN, then a known FEN mutated by them.
pub fn fen(data: &[u8]) {
    check_fen_text(&String::from_utf8_lossy(data));
    check_fen_text(&mutate_fen(data));
}

/// The position a move-reader input starts from: its first line as a FEN
/// if that is valid, else one of [`POSITIONS`] picked by the first byte.
fn position_and_rest(data: &[u8]) -> (Position, String) {
    let text = String::from_utf8_lossy(data).into_owned();
    if let Some((first, rest)) = text.split_once('\n')
        && let Ok((pos, _)) = Position::from_fen(first)
    {
        return (pos, rest.to_string());
    }
    let pick = data.first().copied().unwrap_or(0) as usize;
    let fen = POSITIONS[pick % POSITIONS.len()];
    match Position::from_fen(fen) {
        Ok((pos, _)) => (pos, text.chars().skip(1).collect()),
        Err(e) => unreachable!("{fen}: {e}"),
    }
}

/// Move target: each line of the text read as SAN and as UCI. A move
/// either reader accepts must be legal, and its own SAN and UCI text
/// must read back to it.
pub fn moves(data: &[u8]) {
    let (pos, text) = position_and_rest(data);
    let fen = pos.fen();
    let legal = pos.legal_moves();
    for line in text.split('\n').take(64) {
        if let Ok(m) = pos.parse_san(line) {
            assert!(
                legal.contains(&m),
                "SAN {line:?} gave {m:?}, illegal in {fen}"
            );
            assert_eq!(pos.parse_san(&pos.san(m)), Ok(m), "{line:?} in {fen}");
        }
        if let Ok(m) = pos.parse_uci_move(line) {
            assert!(
                legal.contains(&m),
                "UCI {line:?} gave {m:?}, illegal in {fen}"
            );
            check_uci_text(&pos, m, &legal);
        }
    }
}

/// EPD target: every line that reads must write back as a line that reads
/// to the same record (position fields and operations), and writing that
/// again changes nothing.
pub fn epd(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for line in text.lines().take(64) {
        let Ok(record) = Epd::parse(line) else {
            continue;
        };
        check_state(&record.position);
        let written = record.to_string();
        let again = Epd::parse(&written)
            .unwrap_or_else(|e| panic!("{line:?} wrote {written:?}, which is refused: {e}"));
        // Four fields: FEN counters are not part of EPD and are not
        // written (by design, see tests/epd.rs); `hmvc`/`fmvn` are.
        let fields = |p: &Position| p.fen().rsplitn(3, ' ').last().map(str::to_string);
        assert_eq!(
            fields(&again.position),
            fields(&record.position),
            "{line:?} -> {written:?}"
        );
        assert_eq!(again.position.key(), record.position.key(), "{line:?}");
        assert_eq!(again.ops, record.ops, "{line:?} -> {written:?}");
        assert_eq!(again.to_string(), written, "{line:?}");
        // The accessors must cope with whatever was read.
        for opcode in ["bm", "am", "pv", "id", "dm", "acd", "ce"] {
            let _ = (
                record.moves(opcode),
                record.int(opcode),
                record.text(opcode),
            );
        }
        let _ = record.perft_counts();
        let pv = record.moves("pv");
        let _ = Epd::san_line(&record.position, &pv);
    }
}

/// A file of this process's own for the readers that want a path.
fn scratch_file(name: &str, bytes: &[u8]) -> PathBuf {
    let path = std::env::temp_dir().join(format!("forsyth-fuzz-{}-{name}", std::process::id()));
    if let Err(e) = std::fs::write(&path, bytes) {
        panic!("cannot write {}: {e}", path.display());
    }
    path
}

/// Polyglot target: the bytes as a book file. A book read into memory and
/// one read from disk (where only a sample of the key order is checked)
/// must agree where both open; every entry of an accepted book is found
/// under its key; probes give legal moves only, in any position, and the
/// move chosen is one of them.
pub fn polyglot(data: &[u8]) {
    let path = scratch_file("book.bin", data);
    let memory = Book::open(&path);
    let disk = Reader::open_with_limit(&path, 0);
    let _ = std::fs::remove_file(&path);
    if let Err(e) = &memory {
        let _ = e.to_string();
    }
    let entries: Vec<Entry> = data
        .chunks_exact(polyglot::ENTRY_SIZE)
        .map(|c| {
            let mut b = [0u8; polyglot::ENTRY_SIZE];
            b.copy_from_slice(c);
            Entry::from_bytes(&b)
        })
        .collect();
    if let (Ok(book), Ok(disk)) = (&memory, &disk) {
        assert_eq!(book.len(), entries.len() as u64);
        assert_eq!(disk.len(), entries.len() as u64);
        for e in &entries {
            let found = disk
                .entries(e.key)
                .unwrap_or_else(|err| panic!("entries({:#x}): {err}", e.key));
            assert!(found.contains(e), "entry {e:?} not found under its key");
            assert!(found.iter().all(|f| f.key == e.key));
        }
    }
    let mut rng = Rng::new(entries.len() as u64);
    for fen in POSITIONS {
        let Ok((mut pos, _)) = Position::from_fen(fen) else {
            continue;
        };
        for e in entries.iter().take(256) {
            if let Some(m) = polyglot::decode_move(&pos, e.mv) {
                assert!(pos.is_legal(m), "decoded {:#06x} to illegal {m:?}", e.mv);
                // Castling may be read from the king's step as well.
                if !m.is_castling() {
                    assert_eq!(polyglot::encode_move(m), e.mv & 0x7fff, "{m:?} in {fen}");
                }
            }
        }
        // Follow the book from here for a few moves.
        let Ok(book) = &memory else {
            continue;
        };
        for _ in 0..8 {
            let found = book.probe(&pos).unwrap_or_else(|e| panic!("probe: {e}"));
            if let Ok(disk) = &disk {
                let raw = disk.entries(polyglot::key(&pos)).unwrap_or_default();
                assert!(found.len() <= raw.len());
            }
            for b in &found {
                assert!(pos.is_legal(b.mv), "book move {:?} illegal in {fen}", b.mv);
            }
            let variety = (rng.next_u64() % 101) as u32;
            let Some(m) = book::choose(&found, variety, &mut rng) else {
                break;
            };
            assert!(found.iter().any(|b| b.mv == m && b.weight > 0));
            pos.play(m);
        }
    }
}

/// Every move of `line` and of its variations legal where it stands.
fn annotate_line_is_legal(start: &crate::engine::chess::Position, line: &crate::tools::pgn::Line) {
    let mut pos = start.clone();
    for node in &line.nodes {
        for v in &node.variations {
            annotate_line_is_legal(&pos, v);
        }
        assert!(
            pos.is_legal(node.mv),
            "{:?} illegal in {}",
            node.mv,
            pos.fen()
        );
        assert_eq!(pos.san(node.mv), node.san);
        pos.play(node.mv);
    }
}

/// The line with each comment's spacing made single (as it is written).
fn annotate_spacing(line: &crate::tools::pgn::Line) -> crate::tools::pgn::Line {
    let single = |cs: &[String]| -> Vec<String> {
        cs.iter()
            .map(|c| c.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect()
    };
    let mut out = line.clone();
    out.comments = single(&line.comments);
    for (n, o) in line.nodes.iter().zip(out.nodes.iter_mut()) {
        o.comments = single(&n.comments);
        o.variations = n.variations.iter().map(annotate_spacing).collect();
    }
    out
}

/// The games of `annotate`: legal in every line, and the same once
/// written and read again.
fn annotate_pgn(data: &[u8]) {
    use crate::tools::annotate::write;
    use crate::tools::pgn as game;
    let Ok(games) = game::read_games(data) else {
        return;
    };
    for g in games.into_iter().take(100).flatten() {
        annotate_line_is_legal(&g.start, &g.main);
        let text = write::game_pgn(&g);
        let again = match game::read_games(text.as_bytes()) {
            Ok(mut gs) if gs.len() == 1 => gs.remove(0),
            other => panic!("game {} written as\n{text}\nreads as {other:?}", g.number),
        };
        let again = again.unwrap_or_else(|e| panic!("{e} in\n{text}"));
        assert_eq!(again.tags, g.tags, "{text}");
        assert_eq!(again.start.fen(), g.start.fen());
        assert_eq!(
            annotate_spacing(&again.main),
            annotate_spacing(&g.main),
            "{text}"
        );
    }
}

/// PGN target: the bytes as a PGN text. Every game read is legal move by
/// move from its start; the book built from the text opens, and probing
/// it along the games gives legal moves; the games as `annotate` reads
/// and writes them hold too (`annotate_pgn`).
pub fn pgn(data: &[u8]) {
    annotate_pgn(data);
    let mut games = Vec::new();
    for game in crate::tools::pgn::games(data).take(100) {
        match game {
            Ok(g) => {
                let mut pos = g.start.clone();
                for m in g.moves() {
                    assert!(pos.is_legal(m), "game {}: {m:?} illegal", g.number);
                    pos.play(m);
                }
                games.push(g);
            }
            Err(e) => {
                let _ = (e.to_string(), e.game());
            }
        }
    }
    let mut builder = Builder::new(BuildOptions::default());
    let _ = builder.add_pgn(data);
    let bytes = to_bytes(&builder.entries());
    if bytes.is_empty() {
        return;
    }
    let path = scratch_file("built.bin", &bytes);
    let opened = Book::open(&path);
    let _ = std::fs::remove_file(&path);
    let book = opened.unwrap_or_else(|e| panic!("the built book does not open: {e}"));
    for g in &games {
        let mut pos = g.start.clone();
        for m in g.moves().take(24) {
            let found = book.probe(&pos).unwrap_or_else(|e| panic!("probe: {e}"));
            assert!(found.iter().all(|b| pos.is_legal(b.mv)));
            pos.play(m);
        }
    }
}

/// The game-file reader (`datagen::games`) on arbitrary bytes.
pub fn games(data: &[u8]) {
    use crate::tools::datagen::games::{GameReader, encode_games, sniff};
    let _ = sniff(data);
    let mut reader = GameReader::new(data);
    let mut truncated = false;
    loop {
        let from = reader.offset() as usize;
        let Some(item) = reader.next() else {
            break;
        };
        assert!(!truncated, "a game after a truncation");
        let to = reader.offset() as usize;
        assert!(
            from < to && to <= data.len(),
            "{from}..{to} of {}",
            data.len()
        );
        let game = match item {
            Ok(game) => game,
            Err(e) => {
                truncated |= e.is_truncation();
                let _ = e.to_string();
                continue;
            }
        };
        let mut pos = game.start.clone();
        for ply in &game.plies {
            assert!(pos.legal_moves().contains(&ply.mv), "{}", pos.fen());
            pos.play(ply.mv);
        }
        let bytes = encode_games(std::slice::from_ref(&game));
        let mut original = data[from..to].to_vec();
        original[28] = 0;
        original[29] = 0;
        assert_eq!(bytes, original, "game {}", reader.games() - 1);
        let again: Vec<_> = GameReader::new(&bytes[..]).collect();
        assert_eq!(again.len(), 1);
        let again = again[0].as_ref().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(again.start.fen_shredder(), game.start.fen_shredder());
        assert_eq!(
            (again.result, again.opening_plies),
            (game.result, game.opening_plies)
        );
        assert_eq!(again.plies, game.plies);
    }
}
