//! Cross-cutting tests of the rules module: keys, make, Chess960 castling.

use super::fen::STARTPOS;
use super::moves::{Move, MoveKind, MoveList};
use super::perft::perft;
use super::position::Position;
use super::types::{Color, Piece, PieceType, Square};
use std::collections::{HashMap, HashSet};

// ----- Helpers -----

fn pos(fen: &str) -> Position {
    match Position::from_fen(fen) {
        Ok((p, warnings)) => {
            assert!(warnings.is_empty(), "{fen:?}: {warnings:?}");
            p
        }
        Err(e) => panic!("{fen:?}: {e}"),
    }
}

fn sq(name: &str) -> Square {
    Square::parse(name).unwrap()
}

/// The legal move with this UCI text (king-takes-rook castling if `chess960`).
fn find(p: &Position, text: &str, chess960: bool) -> Move {
    p.legal_moves()
        .into_iter()
        .find(|m| m.uci(chess960).to_string() == text)
        .unwrap_or_else(|| panic!("{text} is not legal in {}", p.fen()))
}

fn after(fen: &str, moves: &[&str]) -> Position {
    let mut p = pos(fen);
    for m in moves {
        let m = find(&p, m, false);
        p.play(m);
    }
    p
}

fn castling_moves(p: &Position) -> Vec<String> {
    let mut v: Vec<String> = p
        .legal_moves()
        .iter()
        .filter(|m| m.is_castling())
        .map(|m| m.uci(true).to_string())
        .collect();
    v.sort();
    v
}

fn move_set(list: &MoveList) -> HashSet<Move> {
    list.iter().copied().collect()
}

/// Marsaglia's xorshift64: small, deterministic, good enough to pick moves.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Start positions for the random games: standard, the usual perft
/// positions, Chess960 set-ups, and positions rich in promotions and
/// en-passant chances.
const PLAYOUT_FENS: [&str; 13] = [
    STARTPOS,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w KQkq - 0 1",
    "rnkrqbbn/pppppppp/8/8/8/8/PPPPPPPP/RNKRQBBN w KQkq - 0 1",
    "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1",
    "rkqbbnnr/pppppppp/8/8/8/8/PPPPPPPP/RKQBBNNR w KQkq - 0 1",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1",
    "r3k2r/1pp2pp1/8/pP1PpP1p/8/8/2P2P2/R3K2R w KQkq a6 0 20",
];

/// Plays `games` random games of at most `plies` moves from each start
/// position, calling `step(before, move, after)` for every move. Captures
/// and promotions are favoured so that games reach varied material.
fn playouts(games: usize, plies: usize, mut step: impl FnMut(&Position, Move, &Position)) {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for fen in PLAYOUT_FENS {
        let start = pos(fen);
        for _ in 0..games {
            let mut p = start.clone();
            for _ in 0..plies {
                let moves = p.legal_moves();
                if moves.is_empty() || p.halfmove_clock() >= 100 {
                    break;
                }
                let noisy = p.noisy_moves();
                let m = if !noisy.is_empty() && rng.below(3) == 0 {
                    noisy[rng.below(noisy.len())]
                } else {
                    moves[rng.below(moves.len())]
                };
                let mut next = p.clone();
                next.play(m);
                step(&p, m, &next);
                p = next;
            }
        }
    }
}

/// Every position of the random games, start positions included.
fn sample_positions(games: usize, plies: usize) -> Vec<Position> {
    let mut all: Vec<Position> = PLAYOUT_FENS.iter().map(|f| pos(f)).collect();
    playouts(games, plies, |_, _, next| all.push(next.clone()));
    all
}

/// What a position is, for repetition purposes: placement, side, castling
/// rights (with their rooks) and the en-passant file when a capture is legal.
fn identity(p: &Position) -> String {
    let fen = p.fen_shredder();
    let fields: Vec<&str> = fen.split(' ').collect();
    let ep = p
        .legal_moves()
        .iter()
        .find(|m| m.kind() == MoveKind::EnPassant)
        .map_or('-', |m| m.to().file_char());
    format!("{} {} {} {ep}", fields[0], fields[1], fields[2])
}

/// The pawns alone, for the pawn key.
fn pawn_identity(p: &Position) -> String {
    Square::all()
        .map(|s| match p.piece_at(s) {
            Some(Piece::WhitePawn) => 'P',
            Some(Piece::BlackPawn) => 'p',
            _ => '.',
        })
        .collect()
}

// ----- Zobrist keys -----

#[test]
fn incremental_keys_equal_recomputed_keys() {
    let mut plies = 0;
    let mut ep_keyed = 0;
    playouts(40, 250, |before, m, p| {
        plies += 1;
        assert_eq!(
            (p.key(), p.pawn_key()),
            p.compute_keys(),
            "after {m:?} from {}",
            before.fen()
        );
        assert_eq!(
            *p.piece_keys(),
            p.compute_piece_keys(),
            "after {m:?} from {}",
            before.fen()
        );
        // The counters follow the rules.
        let resets = before.piece_at(m.from()).map(|x| x.kind()) == Some(PieceType::Pawn)
            || before.is_capture(m);
        let clock = if resets {
            0
        } else {
            before.halfmove_clock() + 1
        };
        assert_eq!(
            p.halfmove_clock(),
            clock,
            "after {m:?} from {}",
            before.fen()
        );
        let number = before.fullmove_number() + (before.side_to_move() == Color::Black) as u32;
        assert_eq!(p.fullmove_number(), number);
        assert_eq!(p.side_to_move(), before.side_to_move().flip());
        // The copy played from is untouched (copy-make).
        assert_eq!(before.compute_keys(), (before.key(), before.pawn_key()));
        if p.legal_moves()
            .iter()
            .any(|m| m.kind() == MoveKind::EnPassant)
        {
            ep_keyed += 1;
        }
        // A null move keeps the keys consistent too.
        if !p.in_check() {
            let mut q = p.clone();
            q.play_null();
            assert_eq!((q.key(), q.pawn_key()), q.compute_keys());
            assert_eq!(*q.piece_keys(), *p.piece_keys());
            assert_ne!(q.key(), p.key());
        }
    });
    assert!(plies > 50_000, "only {plies} plies");
    assert!(ep_keyed > 100, "only {ep_keyed} positions with en passant");
}

#[test]
fn equal_keys_mean_equal_positions() {
    let positions = sample_positions(30, 200);
    let mut by_key: HashMap<u64, String> = HashMap::new();
    let mut by_identity: HashMap<String, u64> = HashMap::new();
    let mut by_pawn_key: HashMap<u64, String> = HashMap::new();
    let mut by_pawns: HashMap<String, u64> = HashMap::new();
    for p in &positions {
        let id = identity(p);
        if let Some(old) = by_key.insert(p.key(), id.clone()) {
            assert_eq!(old, id, "same key {:016x}", p.key());
        }
        if let Some(old) = by_identity.insert(id.clone(), p.key()) {
            assert_eq!(old, p.key(), "same position {id}, different keys");
        }
        let pawns = pawn_identity(p);
        if let Some(old) = by_pawn_key.insert(p.pawn_key(), pawns.clone()) {
            assert_eq!(old, pawns);
        }
        if let Some(old) = by_pawns.insert(pawns, p.pawn_key()) {
            assert_eq!(old, p.pawn_key());
        }
    }
    assert!(
        by_key.len() > 30_000,
        "only {} distinct positions",
        by_key.len()
    );
}

#[test]
fn reversed_knight_moves_restore_the_key() {
    let start = Position::startpos();
    let p = after(STARTPOS, &["g1f3", "g8f6", "f3g1", "f6g8"]);
    assert_eq!(p.key(), start.key());
    assert_eq!(p.pawn_key(), start.pawn_key());
    assert_eq!(
        p.fen(),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 4 3"
    );
    // Half way round, the keys differ.
    let half = after(STARTPOS, &["g1f3", "g8f6"]);
    assert_ne!(half.key(), start.key());
    assert_eq!(half.pawn_key(), start.pawn_key());
    // King moves back and forth: same placement, but the rights are gone.
    let a = after(STARTPOS, &["e2e3", "e7e6"]);
    let b = after(STARTPOS, &["e2e3", "e7e6", "e1e2", "e8e7", "e2e1", "e7e8"]);
    assert_eq!(
        b.fen(),
        "rnbqkbnr/pppp1ppp/4p3/8/8/4P3/PPPP1PPP/RNBQKBNR w - - 4 4"
    );
    assert_ne!(a.key(), b.key());
    assert_eq!(b.key(), pos(&b.fen()).key());
}

#[test]
fn transpositions_give_equal_keys() {
    let a = after(STARTPOS, &["e2e4", "e7e5", "g1f3"]);
    let b = after(STARTPOS, &["g1f3", "e7e5", "e2e4"]);
    assert_eq!(
        a.fen(),
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    );
    // The double step leaves e3 in the FEN, but no pawn can take there.
    assert_eq!(
        b.fen(),
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq e3 0 2"
    );
    assert_eq!(a.key(), b.key());
    assert_eq!(a.pawn_key(), b.pawn_key());

    let a = after(STARTPOS, &["d2d4", "d7d5", "c2c4"]);
    let b = after(STARTPOS, &["c2c4", "d7d5", "d2d4"]);
    assert_eq!(
        a.fen(),
        "rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq c3 0 2"
    );
    assert_eq!(
        b.fen(),
        "rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq d3 0 2"
    );
    assert_eq!(a.key(), b.key());

    // Here the en-passant square matters: e5 can take on f6 or on d6.
    let a = after(STARTPOS, &["e2e4", "d7d5", "e4e5", "f7f5"]);
    let b = after(STARTPOS, &["e2e4", "f7f5", "e4e5", "d7d5"]);
    let none = pos("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3");
    assert_eq!(
        a.fen(),
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"
    );
    assert_eq!(
        b.fen(),
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3"
    );
    assert_ne!(a.key(), b.key());
    assert_ne!(a.key(), none.key());
    assert_ne!(b.key(), none.key());
    assert_eq!(a.pawn_key(), b.pawn_key());
    assert_eq!(a.pawn_key(), none.pawn_key());
    // One quiet move each later the chance is gone and all three agree.
    let moves = ["g1f3", "g8f6"];
    let keys: Vec<u64> = [a, b, none]
        .into_iter()
        .map(|mut p| {
            for m in moves {
                let m = find(&p, m, false);
                p.play(m);
            }
            p.key()
        })
        .collect();
    assert_eq!(keys[0], keys[1]);
    assert_eq!(keys[0], keys[2]);
}

#[test]
fn different_positions_give_different_keys() {
    let mut keys = HashSet::new();
    // Every subset of castling rights, with either side to move.
    for side in ["w", "b"] {
        for mask in 0..16 {
            let rights: String = ['K', 'Q', 'k', 'q']
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, c)| *c)
                .collect();
            let rights = if rights.is_empty() {
                "-".into()
            } else {
                rights
            };
            let fen = format!("r3k2r/8/8/8/8/8/8/R3K2R {side} {rights} - 0 1");
            assert!(keys.insert(pos(&fen).key()), "{fen}");
        }
    }
    // The counters are not part of the key.
    assert!(!keys.insert(pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 17 30").key()));
    // One piece on each square, of each kind and colour (kings kept apart).
    let mut placements = HashSet::new();
    for piece in ["Q", "R", "B", "N", "P", "q", "r", "b", "n", "p"] {
        for s in Square::all() {
            let (file, rank) = (s.file() as usize, s.rank() as usize);
            if (rank == 0 || rank == 7) && piece.eq_ignore_ascii_case("p") {
                continue;
            }
            if (rank == 7 && file == 0) || (rank == 0 && file == 7) {
                continue;
            }
            let mut ranks = vec![String::new(); 8];
            for (r, text) in ranks.iter_mut().enumerate() {
                let mut row = ['1'; 8];
                if r == 7 {
                    row[0] = 'k';
                }
                if r == 0 {
                    row[7] = 'K';
                }
                if r == rank {
                    row[file] = piece.chars().next().unwrap();
                }
                *text = row.iter().collect();
            }
            let placement: Vec<&str> = ranks.iter().rev().map(|s| s.as_str()).collect();
            for side in ["w", "b"] {
                let fen = format!("{} {side} - - 0 1", placement.join("/"));
                if let Ok((p, _)) = Position::from_fen(&fen) {
                    assert!(placements.insert(p.key()), "{fen}");
                }
            }
        }
    }
    assert!(placements.len() > 1000);
    assert!(keys.is_disjoint(&placements));
}

// ----- FEN and SAN round trips -----

#[test]
fn fen_round_trips_on_random_games() {
    for p in sample_positions(25, 200) {
        let fen = p.fen();
        let q = pos(&fen);
        assert_eq!(q.fen(), fen);
        assert_eq!(q.fen_shredder(), p.fen_shredder());
        assert_eq!((q.key(), q.pawn_key()), (p.key(), p.pawn_key()), "{fen}");
        assert_eq!(q.checkers(), p.checkers(), "{fen}");
        assert_eq!(
            move_set(&q.legal_moves()),
            move_set(&p.legal_moves()),
            "{fen}"
        );
        let shredder = pos(&p.fen_shredder());
        assert_eq!(shredder.fen(), fen);
        assert_eq!(shredder.key(), p.key());
        // Castling rights always have their king and rook in place.
        for color in Color::BOTH {
            for kingside in [true, false] {
                if let Some(rook) = p.castling_rook(color, kingside) {
                    let king = p.king_square(color);
                    assert_eq!(p.piece_at(rook), Some(Piece::new(color, PieceType::Rook)));
                    assert_eq!(king.rank(), color.relative_rank(0), "{fen}");
                    assert_eq!(rook.rank(), king.rank(), "{fen}");
                    assert_eq!(rook.file() > king.file(), kingside, "{fen}");
                }
            }
        }
    }
}

#[test]
fn san_round_trips_on_random_games() {
    let mut mates = 0;
    for p in sample_positions(12, 200) {
        for m in p.legal_moves() {
            let san = p.san(m);
            assert_eq!(p.parse_san(&san), Ok(m), "{san} in {}", p.fen());
            let mut q = p.clone();
            q.play(m);
            let mate = q.in_check() && q.count_legal() == 0;
            assert_eq!(san.ends_with('#'), mate, "{san} in {}", p.fen());
            assert_eq!(san.ends_with('+'), q.in_check() && !mate, "{san}");
            mates += mate as u32;
        }
    }
    assert!(mates > 10, "only {mates} mates seen");
}

// ----- Move generation -----

#[test]
fn noisy_and_quiet_moves_partition_the_legal_moves() {
    for p in sample_positions(25, 200) {
        let all = move_set(&p.legal_moves());
        let noisy = move_set(&p.noisy_moves());
        let quiet = move_set(&p.quiet_moves());
        let fen = p.fen();
        assert_eq!(all.len(), p.legal_moves().len(), "duplicates in {fen}");
        assert_eq!(noisy.len(), p.noisy_moves().len(), "duplicates in {fen}");
        assert_eq!(quiet.len(), p.quiet_moves().len(), "duplicates in {fen}");
        assert!(noisy.is_disjoint(&quiet), "{fen}");
        assert_eq!(&noisy | &quiet, all, "{fen}");
        for &m in &noisy {
            assert!(p.is_capture(m) || m.promo().is_some(), "{m:?} in {fen}");
        }
        for &m in &quiet {
            assert!(!p.is_capture(m) && m.promo().is_none(), "{m:?} in {fen}");
        }
        assert_eq!(p.count_legal(), all.len() as u64, "{fen}");
        for &m in &all {
            assert!(p.is_legal(m), "{m:?} in {fen}");
        }
        // The moves of the other side are never legal.
        let mut other = p.clone();
        if !p.in_check() {
            other.play_null();
            for m in other.legal_moves() {
                assert!(!p.is_legal(m), "{m:?} in {fen}");
            }
        }
    }
}

/// `is_legal` must refuse a non-promotion whose two promotion bits are not
/// zero: generation never makes such a move, and a hash move with stray bits
/// would pass `is_legal` yet match no generated move.
#[test]
fn is_legal_agrees_with_generation_on_random_bits() {
    let p = Position::startpos();
    let c2c3 = Move::new(sq("c2"), sq("c3"), MoveKind::Normal);
    assert_eq!(c2c3.bits(), 0x0292);
    assert!(p.is_legal(c2c3));
    assert!(
        !p.is_legal(Move::from_bits(0x3292)),
        "c2c3 with promotion bits 3"
    );
    assert!(!p.is_legal(Move::from_bits(c2c3.bits() | 0x1000)));

    let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
    for p in sample_positions(10, 200) {
        let all = move_set(&p.legal_moves());
        // Any 16 bits, as from a hash entry: legal exactly when generated.
        // Half of them reuse a generated move's squares with other flags.
        for i in 0..32 {
            let bits = rng.next() as u16;
            let bits = match p.legal_moves().get(i % 8) {
                Some(m) if i % 2 == 0 => (m.bits() & 0x0FFF) | (bits & 0xF000),
                _ => bits,
            };
            let m = Move::from_bits(bits);
            assert_eq!(
                p.is_legal(m),
                all.contains(&m),
                "{m:?} (bits {bits:#06x}) in {}",
                p.fen()
            );
        }
    }
}

#[test]
fn made_up_moves_are_not_legal() {
    let p = Position::startpos();
    let n = |a: &str, b: &str, kind| Move::new(sq(a), sq(b), kind);
    assert!(p.is_legal(n("e2", "e4", MoveKind::Normal)));
    assert!(p.is_legal(n("g1", "f3", MoveKind::Normal)));
    for m in [
        Move::NULL,
        n("a1", "a1", MoveKind::Normal),
        n("e4", "e5", MoveKind::Normal),
        n("e7", "e5", MoveKind::Normal),
        n("g8", "f6", MoveKind::Normal),
        n("e2", "e5", MoveKind::Normal),
        n("e1", "e2", MoveKind::Normal),
        n("e1", "h1", MoveKind::Castling),
        n("e1", "g1", MoveKind::Normal),
        n("e2", "e4", MoveKind::Castling),
        n("e2", "e4", MoveKind::EnPassant),
        n("g1", "f3", MoveKind::Promotion),
        Move::promotion(sq("g1"), sq("f3"), PieceType::Queen),
    ] {
        assert!(!p.is_legal(m), "{m:?}");
    }
    // En passant only onto the square, only when just made possible.
    let p = pos("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3");
    assert!(p.is_legal(n("e5", "f6", MoveKind::EnPassant)));
    assert!(!p.is_legal(n("e5", "d6", MoveKind::EnPassant)));
    assert!(!p.is_legal(n("e5", "f6", MoveKind::Normal)));
    // Promotions need the right piece and kind.
    let p = pos("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
    assert!(p.is_legal(Move::promotion(sq("b7"), sq("b8"), PieceType::Knight)));
    assert!(!p.is_legal(n("b7", "b8", MoveKind::Normal)));
    assert_eq!(p.count_legal(), 9);
}

#[test]
fn chess960_perft() {
    // Counts checked against Stockfish with UCI_Chess960.
    for (fen, counts) in [
        (
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            [21, 528, 12189],
        ),
        (
            "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9",
            [21, 807, 18002],
        ),
        (
            "b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w GE - 1 9",
            [20, 479, 10471],
        ),
        (
            "qbbnnrkr/2pp2pp/p7/1p2pp2/8/P3PP2/1PPP1KPP/QBBNNR1R w hf - 0 9",
            [22, 593, 13440],
        ),
    ] {
        let p = pos(fen);
        for (depth, &n) in (1..).zip(counts.iter()) {
            assert_eq!(perft(&p, depth), n, "{fen} depth {depth}");
        }
    }
}

// ----- Castling -----

struct CastleCase {
    fen: &'static str,
    /// King takes rook, as in Chess960 UCI.
    uci960: &'static str,
    /// The king's destination, as in standard UCI.
    uci: &'static str,
    after: &'static str,
}

#[test]
fn chess960_castling_in_both_notations() {
    let cases = [
        // King b1, rook a1: queen side, king to c1, rook to d1.
        CastleCase {
            fen: "rk6/8/8/8/8/8/8/RK6 w Aa - 0 1",
            uci960: "b1a1",
            uci: "b1c1",
            after: "rk6/8/8/8/8/8/8/2KR4 b q - 1 1",
        },
        // Then Black does the same; the d-file rook attacks d8, which only
        // the castling rook passes.
        CastleCase {
            fen: "rk6/8/8/8/8/8/8/2KR4 b q - 1 1",
            uci960: "b8a8",
            uci: "b8c8",
            after: "2kr4/8/8/8/8/8/8/2KR4 w - - 2 2",
        },
        // The king does not move: g1 with rook h1.
        CastleCase {
            fen: "4k3/8/8/8/8/8/8/6KR w H - 0 1",
            uci960: "g1h1",
            uci: "g1g1",
            after: "4k3/8/8/8/8/8/8/5RK1 b - - 1 1",
        },
        // The rook does not move: king e1, rook d1.
        CastleCase {
            fen: "4k3/8/8/8/8/8/8/3RK3 w D - 0 1",
            uci960: "e1d1",
            uci: "e1c1",
            after: "4k3/8/8/8/8/8/8/2KR4 b - - 1 1",
        },
        // The king passes over the rook: king f1, rook c1.
        CastleCase {
            fen: "4k3/8/8/8/8/8/8/2R2K2 w C - 0 1",
            uci960: "f1c1",
            uci: "f1c1",
            after: "4k3/8/8/8/8/8/8/2KR4 b - - 1 1",
        },
        // King c1 between rooks a1 and e1: both rights go with either castling.
        CastleCase {
            fen: "2k5/8/8/8/8/8/8/R1K1R3 w KQ - 0 1",
            uci960: "c1e1",
            uci: "c1g1",
            after: "2k5/8/8/8/8/8/8/R4RK1 b - - 1 1",
        },
        CastleCase {
            fen: "2k5/8/8/8/8/8/8/R1K1R3 w KQ - 0 1",
            uci960: "c1a1",
            uci: "c1c1",
            after: "2k5/8/8/8/8/8/8/2KRR3 b - - 1 1",
        },
        // Black's king does not move either; White keeps its right.
        CastleCase {
            fen: "6kr/8/8/8/8/8/8/6KR b Kk - 5 20",
            uci960: "g8h8",
            uci: "g8g8",
            after: "5rk1/8/8/8/8/8/8/6KR w K - 6 21",
        },
    ];
    for c in cases {
        let p = pos(c.fen);
        let m = find(&p, c.uci960, true);
        assert!(m.is_castling(), "{}", c.fen);
        assert_eq!(m.uci(true).to_string(), c.uci960);
        assert_eq!(m.uci(false).to_string(), c.uci);
        assert_eq!(p.parse_san(&p.san(m)), Ok(m));
        let mut q = p.clone();
        q.play(m);
        assert_eq!(q.fen(), c.after, "{} after {}", c.fen, c.uci960);
        assert_eq!((q.key(), q.pawn_key()), q.compute_keys());
        assert_eq!(q.key(), pos(c.after).key());
    }
}

#[test]
fn chess960_castling_legality() {
    // (FEN, castling moves as king-takes-rook, number of legal moves), the
    // counts checked against Stockfish.
    let cases: [(&str, &[&str], u64); 8] = [
        // Legal when nothing is on the back rank...
        ("4k3/8/8/8/8/8/8/1R2K3 w Q - 0 1", &["e1b1"], 16),
        // ...but not when the castling rook shields c1 from a rook or queen
        // on a1: once the rook leaves b1, c1 is attacked.
        ("4k3/8/8/8/8/8/8/rR2K3 w Q - 0 1", &[], 8),
        ("4k3/8/8/8/8/8/8/qR2K3 w Q - 0 1", &[], 8),
        // The castling rook on e1 shields e1 from the rook on e8; the king
        // must pass e1 on its way to g1. The queen-side castling stays.
        ("r1k1r3/8/8/8/8/8/8/R1K1R3 w KQkq - 0 1", &["c1a1"], 25),
        // A piece on the rook's destination blocks.
        ("4k3/8/8/8/8/8/8/R1KN4 w Q - 0 1", &[], 16),
        // A piece on the king's path blocks.
        ("4k3/8/8/8/8/8/8/1K2NR2 w K - 0 1", &[], 18),
        // The king's destination attacked.
        ("4k1r1/8/8/8/8/8/8/1K3R2 w K - 0 1", &[], 17),
        // In check: no castling.
        ("1r2k3/8/8/8/8/8/8/RK5R w KQ - 0 1", &[], 3),
    ];
    for (fen, castles, count) in cases {
        let p = pos(fen);
        assert_eq!(castling_moves(&p), castles.to_vec(), "{fen}");
        assert_eq!(p.count_legal(), count, "{fen}");
    }
}

/// Found by tests/properties.rs: once a right was lost, its rook square
/// (meaningless without the right) still took part in `==`, so a Chess960
/// position whose king had moved differed from its own FEN read back.
#[test]
fn positions_equal_their_fen_after_rights_are_lost() {
    let p = after(
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        &["g1f2"],
    );
    assert_eq!(p, pos(&p.fen()));
    assert_eq!(p.mirrored().mirrored(), p);
}

#[test]
fn standard_castling() {
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert_eq!(castling_moves(&p), vec!["e1a1", "e1h1"]);
    let short = find(&p, "e1g1", false);
    assert_eq!(short.uci(true).to_string(), "e1h1");
    assert_eq!(p.san(short), "O-O");
    let mut q = p.clone();
    q.play(short);
    assert_eq!(q.fen(), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    let long = find(&q, "e8c8", false);
    assert_eq!(long.uci(true).to_string(), "e8a8");
    q.play(long);
    assert_eq!(q.fen(), "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2");
    let mut q = p.clone();
    q.play(find(&p, "e1c1", false));
    assert_eq!(q.fen(), "r3k2r/8/8/8/8/8/8/2KR3R b kq - 1 1");

    // Losing rights: a rook moves, the king moves, a rook is taken.
    for (m, fen) in [
        ("a1a2", "r3k2r/8/8/8/8/8/R7/4K2R b Kkq - 1 1"),
        ("h1h2", "r3k2r/8/8/8/8/8/7R/R3K3 b Qkq - 1 1"),
        ("e1e2", "r3k2r/8/8/8/8/8/4K3/R6R b kq - 1 1"),
        ("h1h8", "r3k2R/8/8/8/8/8/8/R3K3 b Qq - 0 1"),
        ("a1a8", "R3k2r/8/8/8/8/8/8/4K2R b Kk - 0 1"),
    ] {
        let mut q = p.clone();
        q.play(find(&p, m, false));
        assert_eq!(q.fen(), fen);
        assert_eq!(q.key(), pos(fen).key());
    }

    // (FEN, castling moves, legal move count checked against Stockfish)
    let cases: [(&str, &[&str], u64); 4] = [
        // f1 attacked by the bishop: no short castling.
        ("r3k2r/8/8/8/2b5/8/8/R3K2R w KQkq - 0 1", &["e1a1"], 23),
        // b1 and the h1 rook attacked: both castlings stay legal.
        (
            "r3k2r/8/8/8/4b3/8/8/R3K2R w KQkq - 0 1",
            &["e1a1", "e1h1"],
            26,
        ),
        // d1 attacked: no long castling.
        ("r2rk3/8/8/8/8/8/8/R3K2R w KQq - 0 1", &["e1h1"], 23),
        // In check: no castling at all.
        ("r3k2r/8/8/8/4r3/8/8/R3K2R w KQkq - 0 1", &[], 4),
    ];
    for (fen, castles, count) in cases {
        let p = pos(fen);
        assert_eq!(castling_moves(&p), castles.to_vec(), "{fen}");
        assert_eq!(p.count_legal(), count, "{fen}");
    }
}

// ----- Draws by material -----

#[test]
fn insufficient_material() {
    for (fen, expected) in [
        ("8/8/4k3/8/8/4K3/8/8 w - - 0 1", true),
        ("8/8/4k3/8/8/4K3/3B4/8 w - - 0 1", true),
        ("8/8/4k3/8/8/4K3/8/b7 b - - 0 1", true),
        ("8/8/4k3/8/8/4K3/3N4/8 w - - 0 1", true),
        ("8/8/4k3/2n5/8/4K3/8/8 w - - 0 1", true),
        // Bishops on squares of one colour: c1 and f8 are both dark.
        ("5b2/8/4k3/8/8/4K3/8/2B5 w - - 0 1", true),
        ("5b2/8/4k3/8/8/4K3/4B3/2B5 w - - 0 1", false),
        ("5b2/8/4k3/8/8/4K3/1B6/2B5 w - - 0 1", true),
        // Opposite colours: c1 dark, c8 light.
        ("2b5/8/4k3/8/8/4K3/8/2B5 w - - 0 1", false),
        ("8/8/4k3/8/8/4K3/8/2BN4 w - - 0 1", false),
        ("8/8/4k3/8/8/4K3/4N3/3N4 w - - 0 1", false),
        ("8/8/4k3/2n5/8/4K3/3N4/8 w - - 0 1", false),
        ("8/8/4k3/8/8/4K3/4P3/8 w - - 0 1", false),
        ("8/4p3/4k3/8/8/4K3/8/8 w - - 0 1", false),
        ("8/8/4k3/8/8/4K3/8/3R4 w - - 0 1", false),
        ("8/8/4k3/8/8/4K3/8/3q4 w - - 0 1", false),
        (STARTPOS, false),
    ] {
        assert_eq!(pos(fen).insufficient_material(), expected, "{fen}");
    }
}
