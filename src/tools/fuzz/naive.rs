//! A slow move generator that shares nothing with `chess::movegen`: no
//! attack tables, no pins, no check masks. It walks the board square by
//! square, makes every pseudo-legal move on a plain array and keeps those
//! after which its own king is not attacked, by a naive ray scan. The
//! property tests and the FEN fuzz target compare the real generator with
//! it, so a bug would have to be made twice, in two different ways.
//!
//! From the position it reads only the pieces, the side to move, the
//! en-passant square and the castling rooks; the moves are built with the
//! public `Move` constructors.

use crate::engine::chess::{Color, Move, MoveKind, Piece, PieceType, Position, Square};

type Board = [Option<Piece>; 64];

const KNIGHT: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const KING: [(i8, i8); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];
const ORTHOGONAL: [(i8, i8); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];
const DIAGONAL: [(i8, i8); 4] = [(1, 1), (-1, 1), (-1, -1), (1, -1)];
const PROMOTIONS: [PieceType; 4] = [
    PieceType::Knight,
    PieceType::Bishop,
    PieceType::Rook,
    PieceType::Queen,
];

/// The square `(df, dr)` away, if it is on the board.
fn step(sq: Square, df: i8, dr: i8) -> Option<Square> {
    let f = sq.file() as i8 + df;
    let r = sq.rank() as i8 + dr;
    ((0..8).contains(&f) && (0..8).contains(&r)).then(|| Square::from_coords(f as u8, r as u8))
}

fn board_of(pos: &Position) -> Board {
    let mut b = [None; 64];
    for sq in Square::all() {
        b[sq.index()] = pos.piece_at(sq);
    }
    b
}

fn forward(c: Color) -> i8 {
    match c {
        Color::White => 1,
        Color::Black => -1,
    }
}

/// Whether a piece of `by` attacks `sq` on this board.
pub fn attacked(board: &Board, sq: Square, by: Color) -> bool {
    let is = |s: Option<Square>, kinds: &[PieceType]| {
        s.and_then(|s| board[s.index()])
            .is_some_and(|p| p.color() == by && kinds.contains(&p.kind()))
    };
    // A pawn of `by` attacks diagonally forward, so it stands one rank behind.
    if [-1, 1]
        .iter()
        .any(|&df| is(step(sq, df, -forward(by)), &[PieceType::Pawn]))
    {
        return true;
    }
    if KNIGHT
        .iter()
        .any(|&(df, dr)| is(step(sq, df, dr), &[PieceType::Knight]))
    {
        return true;
    }
    if KING
        .iter()
        .any(|&(df, dr)| is(step(sq, df, dr), &[PieceType::King]))
    {
        return true;
    }
    let rays = [
        (&ORTHOGONAL, [PieceType::Rook, PieceType::Queen]),
        (&DIAGONAL, [PieceType::Bishop, PieceType::Queen]),
    ];
    for (dirs, kinds) in rays {
        for &(df, dr) in dirs {
            let mut s = step(sq, df, dr);
            while let Some(t) = s {
                if let Some(p) = board[t.index()] {
                    if p.color() == by && kinds.contains(&p.kind()) {
                        return true;
                    }
                    break;
                }
                s = step(t, df, dr);
            }
        }
    }
    false
}

fn king_of(board: &Board, c: Color) -> Option<Square> {
    Square::all().find(|s| board[s.index()] == Some(Piece::new(c, PieceType::King)))
}

/// The board after a move (castling given as king-takes-rook).
fn apply(board: &Board, m: Move, us: Color) -> Board {
    let mut b = *board;
    let (from, to) = (m.from(), m.to());
    match m.kind() {
        MoveKind::Normal => {
            b[to.index()] = b[from.index()];
            b[from.index()] = None;
        }
        MoveKind::Promotion => {
            b[to.index()] = m.promo().map(|k| Piece::new(us, k));
            b[from.index()] = None;
        }
        MoveKind::EnPassant => {
            b[to.index()] = b[from.index()];
            b[from.index()] = None;
            b[Square::from_coords(to.file(), from.rank()).index()] = None;
        }
        MoveKind::Castling => {
            let (king_file, rook_file) = castle_files(from, to);
            b[from.index()] = None;
            b[to.index()] = None;
            b[Square::from_coords(king_file, from.rank()).index()] =
                Some(Piece::new(us, PieceType::King));
            b[Square::from_coords(rook_file, from.rank()).index()] =
                Some(Piece::new(us, PieceType::Rook));
        }
    }
    b
}

/// Where king and rook end up: g and f files on the king side (rook to the
/// right of the king), c and d on the queen side.
fn castle_files(king: Square, rook: Square) -> (u8, u8) {
    if rook.file() > king.file() {
        (6, 5)
    } else {
        (2, 3)
    }
}

fn pseudo_legal(pos: &Position, board: &Board, us: Color) -> Vec<Move> {
    let mut out = Vec::new();
    let free_or_theirs = |s: Square| board[s.index()].is_none_or(|p| p.color() != us);
    for from in Square::all() {
        let Some(p) = board[from.index()] else {
            continue;
        };
        if p.color() != us {
            continue;
        }
        match p.kind() {
            PieceType::Pawn => {
                let fwd = forward(us);
                let last = us.relative_rank(7);
                let push = |to: Square, out: &mut Vec<Move>| {
                    if to.rank() == last {
                        out.extend(PROMOTIONS.iter().map(|&k| Move::promotion(from, to, k)));
                    } else {
                        out.push(Move::new(from, to, MoveKind::Normal));
                    }
                };
                if let Some(one) = step(from, 0, fwd)
                    && board[one.index()].is_none()
                {
                    push(one, &mut out);
                    if from.rank() == us.relative_rank(1)
                        && let Some(two) = step(one, 0, fwd)
                        && board[two.index()].is_none()
                    {
                        out.push(Move::new(from, two, MoveKind::Normal));
                    }
                }
                for df in [-1, 1] {
                    let Some(to) = step(from, df, fwd) else {
                        continue;
                    };
                    match board[to.index()] {
                        Some(q) if q.color() != us => push(to, &mut out),
                        Some(_) => {}
                        None => {
                            let victim = Square::from_coords(to.file(), from.rank());
                            if pos.ep_square() == Some(to)
                                && board[victim.index()]
                                    == Some(Piece::new(us.flip(), PieceType::Pawn))
                            {
                                out.push(Move::new(from, to, MoveKind::EnPassant));
                            }
                        }
                    }
                }
            }
            PieceType::Knight | PieceType::King => {
                let offsets = if p.kind() == PieceType::Knight {
                    &KNIGHT
                } else {
                    &KING
                };
                for &(df, dr) in offsets {
                    if let Some(to) = step(from, df, dr)
                        && free_or_theirs(to)
                    {
                        out.push(Move::new(from, to, MoveKind::Normal));
                    }
                }
            }
            kind => {
                let mut dirs = Vec::new();
                if matches!(kind, PieceType::Rook | PieceType::Queen) {
                    dirs.extend_from_slice(&ORTHOGONAL);
                }
                if matches!(kind, PieceType::Bishop | PieceType::Queen) {
                    dirs.extend_from_slice(&DIAGONAL);
                }
                for (df, dr) in dirs {
                    let mut s = step(from, df, dr);
                    while let Some(to) = s {
                        if free_or_theirs(to) {
                            out.push(Move::new(from, to, MoveKind::Normal));
                        }
                        if board[to.index()].is_some() {
                            break;
                        }
                        s = step(to, df, dr);
                    }
                }
            }
        }
    }
    out
}

/// Whether castling with this rook is allowed: the right is held (checked
/// by the caller), every square between the outermost of king, rook and
/// their destinations is empty but for the two, the king is not in check
/// and no square it crosses is attacked.
fn castling_allowed(board: &Board, king: Square, rook: Square, us: Color) -> bool {
    let (king_file, rook_file) = castle_files(king, rook);
    let rank = king.rank();
    let files = [king.file(), rook.file(), king_file, rook_file];
    let (lo, hi) = (
        files.iter().copied().min().unwrap_or(0),
        files.iter().copied().max().unwrap_or(7),
    );
    for f in lo..=hi {
        let s = Square::from_coords(f, rank);
        if s != king && s != rook && board[s.index()].is_some() {
            return false;
        }
    }
    let (a, b) = if king.file() <= king_file {
        (king.file(), king_file)
    } else {
        (king_file, king.file())
    };
    // The destination is judged on the board after the move, with the rook
    // moved away; the squares before it on the board as it is.
    (a..=b)
        .map(|f| Square::from_coords(f, rank))
        .filter(|&s| s.file() != king_file)
        .all(|s| !attacked(board, s, us.flip()))
}

/// The legal moves, found the slow way.
pub fn legal_moves(pos: &Position) -> Vec<Move> {
    let board = board_of(pos);
    let us = pos.side_to_move();
    let mut candidates = pseudo_legal(pos, &board, us);
    if let Some(king) = king_of(&board, us) {
        for kingside in [true, false] {
            if let Some(rook) = pos.castling_rook(us, kingside)
                && board[rook.index()] == Some(Piece::new(us, PieceType::Rook))
                && castling_allowed(&board, king, rook, us)
            {
                candidates.push(Move::new(king, rook, MoveKind::Castling));
            }
        }
    }
    candidates.retain(|&m| {
        let after = apply(&board, m, us);
        king_of(&after, us).is_some_and(|k| !attacked(&after, k, us.flip()))
    });
    candidates
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(fen: &str, depth: u32) -> u64 {
        fn go(pos: &Position, depth: u32) -> u64 {
            if depth == 0 {
                return 1;
            }
            legal_moves(pos)
                .into_iter()
                .map(|m| {
                    let mut child = pos.clone();
                    child.play(m);
                    go(&child, depth - 1)
                })
                .sum()
        }
        let (pos, _) = Position::from_fen(fen).unwrap();
        go(&pos, depth)
    }

    /// The oracle itself must be right: the published perft counts.
    #[test]
    fn naive_generator_matches_known_perft_counts() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(count(start, 3), 8_902);
        let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
        assert_eq!(count(kiwipete, 2), 2_039);
        let position3 = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1";
        assert_eq!(count(position3, 4), 43_238);
        let position4 = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1";
        assert_eq!(count(position4, 3), 9_467);
        let position5 = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8";
        assert_eq!(count(position5, 2), 1_486);
        // Chess960: castling with the rook beside the king, and a rook
        // shielding the king's destination.
        let c960 = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
        assert_eq!(count(c960, 3), 12_189);
    }
}
