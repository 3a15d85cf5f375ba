//! Properties that must hold in every position reached by random play:
//! thousands of games of uniformly random legal moves (at most 200 plies)
//! from the positions of `forsyth::tools::fuzz::POSITIONS`, which include castling
//! both ways, Chess960, en passant and promotions. The seed is fixed, so a
//! failure names a game and ply that reproduce; the message gives the FEN.
//!
//! The legality oracle is `forsyth::tools::fuzz::naive`, a square-by-square
//! generator sharing nothing with the real one.

use forsyth::engine::chess::{Move, MoveKind, Position};
use forsyth::engine::rng::Rng;
use forsyth::tools::fuzz::{POSITIONS, naive};
use std::collections::HashSet;

const MAX_PLIES: usize = 200;

/// Plays `games` random games and calls `visit` on every position reached
/// (the start included) with its legal moves.
fn random_play(seed: u64, games: usize, mut visit: impl FnMut(&Position, &[Move])) -> usize {
    let mut rng = Rng::new(seed);
    let mut positions = 0;
    for game in 0..games {
        let fen = POSITIONS[game % POSITIONS.len()];
        let (mut pos, _) = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        for _ in 0..MAX_PLIES {
            let legal = pos.legal_moves();
            visit(&pos, &legal);
            positions += 1;
            if legal.is_empty() || pos.halfmove_clock() >= 100 {
                break;
            }
            pos.play(legal[rng.below(legal.len())]);
        }
    }
    positions
}

fn reread(fen: &str) -> Position {
    match Position::from_fen(fen) {
        Ok((pos, warnings)) => {
            assert!(warnings.is_empty(), "{fen}: {warnings:?}");
            pos
        }
        Err(e) => panic!("own FEN {fen} refused: {e}"),
    }
}

#[test]
fn fen_write_then_read_is_the_identity() {
    let positions = random_play(1, 2500, |pos, _| {
        let fen = pos.fen();
        let again = reread(&fen);
        // Equality covers every field: board, bitboards, rights, rooks,
        // en-passant square and flag, counters, keys and checkers.
        assert_eq!(again, *pos, "{fen}");
        assert_eq!(again.fen(), fen);
        let shredder = pos.fen_shredder();
        assert_eq!(reread(&shredder), *pos, "{shredder}");
    });
    assert!(positions > 150_000, "{positions}");
}

#[test]
fn keys_kept_up_to_date_equal_keys_computed_from_scratch() {
    let mut null_moves = 0;
    random_play(2, 3000, |pos, _| {
        assert_eq!(
            pos.compute_keys(),
            (pos.key(), pos.pawn_key()),
            "{}",
            pos.fen()
        );
        if !pos.in_check() {
            let mut passed = pos.clone();
            passed.play_null();
            assert_eq!(
                passed.compute_keys().0,
                passed.key(),
                "null in {}",
                pos.fen()
            );
            null_moves += 1;
        }
    });
    assert!(null_moves > 100_000);
}

/// Copy-make: a move is played on a copy; the original must be untouched
/// and the copy must be exactly what reading its FEN from scratch gives
/// (so the incremental update of pieces, rights, en passant, counters,
/// keys and checkers agrees with the full one).
#[test]
fn playing_on_a_copy_leaves_the_original_and_matches_a_rebuild() {
    let mut children = 0;
    random_play(3, 400, |pos, legal| {
        let before = pos.clone();
        let key = pos.key();
        for &m in legal {
            let mut child = pos.clone();
            child.play(m);
            let fen = child.fen();
            assert_eq!(child, reread(&fen), "{m:?} from {} gave {fen}", pos.fen());
            assert_eq!(
                child.compute_keys(),
                (child.key(), child.pawn_key()),
                "{m:?} from {}",
                pos.fen()
            );
            children += 1;
        }
        assert_eq!(*pos, before);
        assert_eq!(pos.key(), key);
    });
    assert!(children > 800_000, "{children}");
}

#[test]
fn generated_moves_are_exactly_the_naive_legal_moves() {
    let (mut castles, mut en_passant, mut promotions, mut checks) = (0, 0, 0, 0);
    random_play(4, 1000, |pos, legal| {
        let fen = pos.fen();
        let got: HashSet<Move> = legal.iter().copied().collect();
        assert_eq!(got.len(), legal.len(), "duplicate move in {fen}");
        let want: HashSet<Move> = naive::legal_moves(pos).into_iter().collect();
        if got != want {
            let extra: Vec<_> = got.difference(&want).collect();
            let missing: Vec<_> = want.difference(&got).collect();
            panic!("{fen}: generated but illegal {extra:?}, legal but missing {missing:?}");
        }
        for &m in legal {
            assert!(pos.is_legal(m), "{m:?} in {fen}");
            match m.kind() {
                MoveKind::Castling => castles += 1,
                MoveKind::EnPassant => en_passant += 1,
                MoveKind::Promotion => promotions += 1,
                MoveKind::Normal => {}
            }
        }
        checks += usize::from(pos.in_check());
    });
    // The games must have reached the rare cases for the test to mean much.
    assert!(castles > 1000, "{castles} castling moves");
    assert!(en_passant > 100, "{en_passant} en-passant captures");
    assert!(promotions > 1000, "{promotions} promotions");
    assert!(checks > 1000, "{checks} positions in check");
}

#[test]
fn san_write_then_read_is_the_identity() {
    random_play(5, 800, |pos, legal| {
        let mut seen = HashSet::new();
        for &m in legal {
            let san = pos.san(m);
            assert_eq!(pos.parse_san(&san), Ok(m), "{san} in {}", pos.fen());
            assert!(seen.insert(san.clone()), "{san} twice in {}", pos.fen());
        }
    });
}

/// The perft suites hold positions random play seldom reaches (Chess960
/// castling in every arrangement): the naive generator must agree on each
/// and on every position one move later.
#[test]
fn generated_moves_equal_naive_moves_on_the_perft_suites() {
    let mut checked = 0;
    for name in ["standard.epd", "chess960.epd"] {
        let path = format!("{}/tests/data/perft/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let fen = line.split(';').next().unwrap_or(line);
            let (pos, _) = Position::from_fen(fen).unwrap_or_else(|e| panic!("{line}: {e}"));
            let mut all = vec![pos.clone()];
            for m in pos.legal_moves() {
                let mut child = pos.clone();
                child.play(m);
                all.push(child);
            }
            for p in all {
                let got: HashSet<Move> = p.legal_moves().into_iter().collect();
                let want: HashSet<Move> = naive::legal_moves(&p).into_iter().collect();
                assert_eq!(got, want, "{}", p.fen());
                checked += 1;
            }
        }
    }
    assert!(checked > 20_000, "{checked}");
}
