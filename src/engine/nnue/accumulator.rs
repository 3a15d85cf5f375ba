//! Accumulators: the feature transformer's output for both perspectives,
//! computed from scratch at the root and updated move by move below it.
//!
//! The search keeps one accumulator per ply ([`NnueStack`]). Making a move
//! only records what it changes (a [`Delta`]: at most two features added
//! and two removed) and marks the ply stale; the accumulator is brought up
//! to date only when the node is evaluated, from the nearest ply above that
//! is up to date. Nodes cut off before their evaluation (hash hits, mate
//! distance, repetitions) cost nothing, and going back up the tree costs
//! nothing either: the parent's accumulator is still in its slot. A null
//! move changes no feature, so its ply is a copy of its parent's.
//!
//! With a mirrored network (see [`super::network`]) a king that crosses
//! between files d and e changes every feature of its own perspective, so
//! that perspective is rebuilt instead of updated. Each perspective is
//! kept up to date on its own, and a rebuild starts from the last board
//! rebuilt for the same perspective and the same side of the board (a
//! "Finny table"): only the pieces that moved since then are added or
//! taken away, not all of them.

use super::{HIDDEN, Network, feature, simd};
use crate::engine::chess::{Bitboard, Color, Move, MoveKind, Piece, PieceType, Position, Square};
use std::sync::Arc;

/// The feature transformer's output: one row of HIDDEN neurons for each
/// perspective, White's first.
#[derive(Clone, PartialEq, Eq, Debug)]
#[repr(C, align(64))]
pub struct Accumulator {
    pub v: [[i16; HIDDEN]; 2],
}

impl Accumulator {
    /// The accumulator of `pos`, from its pieces.
    pub fn refresh(net: &Network, pos: &Position) -> Accumulator {
        let mut acc = Accumulator {
            v: [[0; HIDDEN]; 2],
        };
        for side in Color::BOTH {
            let row = &mut acc.v[side.index()];
            row.copy_from_slice(&net.ft_bias);
            let flip = net.flip(pos.king_square(side));
            for sq in pos.occupied() {
                if let Some(piece) = pos.piece_at(sq) {
                    add_row(row, net.row(feature(side, piece, sq) ^ flip));
                }
            }
        }
        acc
    }

    /// The accumulator of `pos` with the piece on `skip` taken off the
    /// board (for the `eval` command's piece values; not a king).
    pub fn refresh_without(net: &Network, pos: &Position, skip: Square) -> Accumulator {
        let mut acc = Accumulator::refresh(net, pos);
        if let Some(piece) = pos.piece_at(skip) {
            for side in Color::BOTH {
                let flip = net.flip(pos.king_square(side));
                sub_row(
                    &mut acc.v[side.index()],
                    net.row(feature(side, piece, skip) ^ flip),
                );
            }
        }
        acc
    }
}

#[inline(always)]
fn sub_row(dst: &mut [i16; HIDDEN], row: &[i16]) {
    simd::sub_row(dst, arr(row));
}

#[inline(always)]
fn add_row(dst: &mut [i16; HIDDEN], row: &[i16]) {
    simd::add_row(dst, arr(row));
}

/// What a move changes in the features: up to two pieces placed and two
/// taken away, each as its feature index for White's and Black's view, or
/// for a perspective whose king crossed the board's middle (mirrored
/// networks only), that it must be rebuilt.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Delta {
    add: [[u16; 2]; 2],
    sub: [[u16; 2]; 2],
    adds: u8,
    subs: u8,
    /// By perspective (White, Black): rebuild instead of update.
    rebuild: [bool; 2],
}

impl Delta {
    /// The delta of a null move: nothing changes.
    pub const NONE: Delta = Delta {
        add: [[0; 2]; 2],
        sub: [[0; 2]; 2],
        adds: 0,
        subs: 0,
        rebuild: [false; 2],
    };

    fn index(piece: Piece, sq: Square, flip: [usize; 2]) -> [u16; 2] {
        [
            (feature(Color::White, piece, sq) ^ flip[0]) as u16,
            (feature(Color::Black, piece, sq) ^ flip[1]) as u16,
        ]
    }

    fn put(&mut self, piece: Piece, sq: Square, flip: [usize; 2]) {
        self.add[usize::from(self.adds)] = Delta::index(piece, sq, flip);
        self.adds += 1;
    }

    fn take(&mut self, piece: Piece, sq: Square, flip: [usize; 2]) {
        self.sub[usize::from(self.subs)] = Delta::index(piece, sq, flip);
        self.subs += 1;
    }

    /// The delta of legal move `m` in `pos` (before it is played) for `net`.
    pub fn of_move(net: &Network, pos: &Position, m: Move) -> Delta {
        let mut d = Delta::NONE;
        let us = pos.side_to_move();
        let (from, to) = (m.from(), m.to());
        let Some(piece) = pos.piece_at(from) else {
            debug_assert!(false, "no piece on {from} for {m:?}");
            return d;
        };
        let flip = [
            net.flip(pos.king_square(Color::White)),
            net.flip(pos.king_square(Color::Black)),
        ];
        if piece.kind() == PieceType::King {
            let king_to = match m.kind() {
                MoveKind::Castling => m.castling_king_to(),
                _ => to,
            };
            d.rebuild[us.index()] = net.flip(king_to) != flip[us.index()];
        }
        match m.kind() {
            MoveKind::Normal | MoveKind::Promotion => {
                if let Some(victim) = pos.piece_at(to) {
                    d.take(victim, to, flip);
                }
                d.take(piece, from, flip);
                let placed = match m.promo() {
                    Some(kind) if m.kind() == MoveKind::Promotion => Piece::new(us, kind),
                    _ => piece,
                };
                d.put(placed, to, flip);
            }
            MoveKind::EnPassant => {
                let them = us.flip();
                d.take(
                    Piece::new(them, PieceType::Pawn),
                    to.offset(them.forward()),
                    flip,
                );
                d.take(piece, from, flip);
                d.put(piece, to, flip);
            }
            MoveKind::Castling => {
                // King takes rook: `to` is the rook's square. In Chess960
                // the king or the rook may end where it began; taking a
                // feature away and putting it back is then no change.
                let rook = Piece::new(us, PieceType::Rook);
                d.take(piece, from, flip);
                d.take(rook, to, flip);
                d.put(piece, m.castling_king_to(), flip);
                d.put(rook, m.castling_rook_to(), flip);
            }
        }
        d
    }

    /// `dst = src` with this delta applied, for perspective `side` (one
    /// that need not be rebuilt).
    pub fn apply(&self, net: &Network, side: usize, s: &[i16; HIDDEN], d: &mut [i16; HIDDEN]) {
        let add = |k: usize| net.row(usize::from(self.add[k][side]));
        let sub = |k: usize| net.row(usize::from(self.sub[k][side]));
        match (self.adds, self.subs) {
            (0, 0) => d.copy_from_slice(s),
            (1, 1) => add1_sub1(d, s, add(0), sub(0)),
            (1, 2) => add1_sub2(d, s, add(0), sub(0), sub(1)),
            (2, 2) => add2_sub2(d, s, add(0), add(1), sub(0), sub(1)),
            (adds, subs) => {
                d.copy_from_slice(s);
                for k in 0..usize::from(adds) {
                    add_row(d, add(k));
                }
                for k in 0..usize::from(subs) {
                    sub_row(d, sub(k));
                }
            }
        }
    }
}

// The fused updates: one pass that reads the parent and writes the child,
// at the widest SIMD this CPU has (`simd.rs`, which has the loops).

#[inline(always)]
fn arr(row: &[i16]) -> &[i16; HIDDEN] {
    row.try_into().unwrap_or(&[0; HIDDEN])
}

#[inline(always)]
fn add1_sub1(d: &mut [i16; HIDDEN], s: &[i16; HIDDEN], a: &[i16], r: &[i16]) {
    simd::add1_sub1(d, s, arr(a), arr(r));
}

#[inline(always)]
fn add1_sub2(d: &mut [i16; HIDDEN], s: &[i16; HIDDEN], a: &[i16], r1: &[i16], r2: &[i16]) {
    simd::add1_sub2(d, s, arr(a), arr(r1), arr(r2));
}

#[inline(always)]
fn add2_sub2(
    d: &mut [i16; HIDDEN],
    s: &[i16; HIDDEN],
    a1: &[i16],
    a2: &[i16],
    r1: &[i16],
    r2: &[i16],
) {
    simd::add2_sub2(d, s, arr(a1), arr(a2), arr(r1), arr(r2));
}

/// A perspective's accumulator of the last board rebuilt for it on one
/// side of the board, and that board's pieces.
#[derive(Clone)]
struct Rebuilt {
    acc: [i16; HIDDEN],
    /// The squares of each piece (by [`Piece::index`]).
    pieces: [u64; 12],
}

/// One search thread's accumulators, by ply.
pub struct NnueStack {
    net: Arc<Network>,
    accs: Vec<Accumulator>,
    deltas: Vec<Delta>,
    /// Whether each perspective of `accs[ply]` (White's, Black's) is up to
    /// date with the position at that ply.
    fresh: Vec<[bool; 2]>,
    /// The Finny table, by perspective and by its flip (0 or 7, as 0 or 1).
    rebuilt: Box<[[Rebuilt; 2]; 2]>,
}

impl NnueStack {
    /// A stack for plies 0..`plies` with the network `net`.
    pub fn new(net: Arc<Network>, plies: usize) -> NnueStack {
        let plies = plies.max(1);
        let empty = Rebuilt {
            acc: [0; HIDDEN],
            pieces: [0; 12],
        };
        let mut stack = NnueStack {
            accs: vec![
                Accumulator {
                    v: [[0; HIDDEN]; 2]
                };
                plies
            ],
            deltas: vec![Delta::NONE; plies],
            fresh: vec![[false; 2]; plies],
            rebuilt: Box::new([[empty.clone(), empty.clone()], [empty.clone(), empty]]),
            net,
        };
        stack.clear_rebuilt();
        stack
    }

    pub fn net(&self) -> &Arc<Network> {
        &self.net
    }

    /// Empties the Finny table: each entry is the empty board of `net`.
    fn clear_rebuilt(&mut self) {
        for entry in self.rebuilt.iter_mut().flatten() {
            entry.acc.copy_from_slice(&self.net.ft_bias);
            entry.pieces = [0; 12];
        }
    }

    /// Starts from `root` at ply 0 with network `net`.
    pub fn reset(&mut self, net: Arc<Network>, root: &Position) {
        if !Arc::ptr_eq(&net, &self.net) {
            self.net = net;
            self.clear_rebuilt();
        }
        self.accs[0] = Accumulator::refresh(&self.net, root);
        self.fresh.fill([false; 2]);
        self.fresh[0] = [true; 2];
    }

    /// The position at `ply` is the one at `ply - 1` after `m`.
    #[inline]
    pub fn push(&mut self, ply: usize, parent: &Position, m: Move) {
        if ply < self.deltas.len() {
            self.deltas[ply] = Delta::of_move(&self.net, parent, m);
            self.fresh[ply] = [false; 2];
        }
    }

    /// The position at `ply` is the one at `ply - 1` after a null move.
    #[inline]
    pub fn push_null(&mut self, ply: usize) {
        if ply < self.deltas.len() {
            self.deltas[ply] = Delta::NONE;
            self.fresh[ply] = [false; 2];
        }
    }

    /// Brings `accs[ply]` up to date with `pos`, the position at `ply`,
    /// and returns it. Each perspective is updated from the nearest ply
    /// above that is up to date for it, or rebuilt from `pos` when a move
    /// on the way needs it.
    pub fn accumulator(&mut self, ply: usize, pos: &Position) -> &Accumulator {
        let ply = ply.min(self.accs.len() - 1);
        for side in 0..2 {
            if self.fresh[ply][side] {
                continue;
            }
            let mut base = ply;
            while base > 0 && !self.fresh[base][side] {
                base -= 1;
            }
            let rebuild = !self.fresh[base][side]
                || self.deltas[base + 1..=ply].iter().any(|d| d.rebuild[side]);
            if rebuild {
                self.rebuild(ply, side, pos);
            } else {
                for k in base + 1..=ply {
                    let (done, rest) = self.accs.split_at_mut(k);
                    let (src, dst) = (&done[k - 1].v[side], &mut rest[0].v[side]);
                    self.deltas[k].apply(&self.net, side, src, dst);
                    self.fresh[k][side] = true;
                }
            }
        }
        &self.accs[ply]
    }

    /// Rebuilds perspective `side` of `accs[ply]` for `pos` from the Finny
    /// table's entry of the same side of the board.
    fn rebuild(&mut self, ply: usize, side: usize, pos: &Position) {
        let color = if side == 0 {
            Color::White
        } else {
            Color::Black
        };
        let flip = self.net.flip(pos.king_square(color));
        let entry = &mut self.rebuilt[side][flip & 1];
        for piece in Piece::ALL {
            let now = pos.pieces(piece.color(), piece.kind()).0;
            let was = entry.pieces[piece.index()];
            for (bits, add) in [(now & !was, true), (was & !now, false)] {
                for sq in Bitboard(bits) {
                    let row = self.net.row(feature(color, piece, sq) ^ flip);
                    if add {
                        add_row(&mut entry.acc, row);
                    } else {
                        sub_row(&mut entry.acc, row);
                    }
                }
            }
            entry.pieces[piece.index()] = now;
        }
        self.accs[ply].v[side].copy_from_slice(&entry.acc);
        self.fresh[ply][side] = true;
    }

    /// The evaluation of `pos`, the position at `ply`, for its side to move.
    #[inline]
    pub fn evaluate(&mut self, ply: usize, pos: &Position) -> i32 {
        self.accumulator(ply, pos);
        let ply = ply.min(self.accs.len() - 1);
        debug_assert_eq!(
            self.accs[ply],
            Accumulator::refresh(&self.net, pos),
            "incremental accumulator differs at ply {ply}: {}",
            pos.fen()
        );
        self.net.evaluate(&self.accs[ply], pos)
    }
}
