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

use super::{HIDDEN, Network, feature, simd};
use crate::engine::chess::{Color, Move, MoveKind, Piece, PieceType, Position, Square};
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
            for sq in pos.occupied() {
                if let Some(piece) = pos.piece_at(sq) {
                    add_row(row, net.row(feature(side, piece, sq)));
                }
            }
        }
        acc
    }

    /// The accumulator of `pos` with the piece on `skip` taken off the
    /// board (for the `eval` command's piece values).
    pub fn refresh_without(net: &Network, pos: &Position, skip: Square) -> Accumulator {
        let mut acc = Accumulator::refresh(net, pos);
        if let Some(piece) = pos.piece_at(skip) {
            for side in Color::BOTH {
                sub_row(
                    &mut acc.v[side.index()],
                    net.row(feature(side, piece, skip)),
                );
            }
        }
        acc
    }
}

#[inline(always)]
fn add_row(dst: &mut [i16; HIDDEN], row: &[i16]) {
    simd::add_row(dst, arr(row));
}

#[inline(always)]
fn sub_row(dst: &mut [i16; HIDDEN], row: &[i16]) {
    simd::sub_row(dst, arr(row));
}

/// What a move changes in the features: up to two pieces placed and two
/// taken away, each as its feature index for White's and Black's view.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Delta {
    add: [[u16; 2]; 2],
    sub: [[u16; 2]; 2],
    adds: u8,
    subs: u8,
}

impl Delta {
    /// The delta of a null move: nothing changes.
    pub const NONE: Delta = Delta {
        add: [[0; 2]; 2],
        sub: [[0; 2]; 2],
        adds: 0,
        subs: 0,
    };

    fn put(&mut self, piece: Piece, sq: Square) {
        let i = usize::from(self.adds);
        self.add[i] = [
            feature(Color::White, piece, sq) as u16,
            feature(Color::Black, piece, sq) as u16,
        ];
        self.adds += 1;
    }

    fn take(&mut self, piece: Piece, sq: Square) {
        let i = usize::from(self.subs);
        self.sub[i] = [
            feature(Color::White, piece, sq) as u16,
            feature(Color::Black, piece, sq) as u16,
        ];
        self.subs += 1;
    }

    /// The delta of legal move `m` in `pos` (before it is played).
    pub fn of_move(pos: &Position, m: Move) -> Delta {
        let mut d = Delta::NONE;
        let us = pos.side_to_move();
        let (from, to) = (m.from(), m.to());
        let Some(piece) = pos.piece_at(from) else {
            debug_assert!(false, "no piece on {from} for {m:?}");
            return d;
        };
        match m.kind() {
            MoveKind::Normal | MoveKind::Promotion => {
                if let Some(victim) = pos.piece_at(to) {
                    d.take(victim, to);
                }
                d.take(piece, from);
                let placed = match m.promo() {
                    Some(kind) if m.kind() == MoveKind::Promotion => Piece::new(us, kind),
                    _ => piece,
                };
                d.put(placed, to);
            }
            MoveKind::EnPassant => {
                let them = us.flip();
                d.take(Piece::new(them, PieceType::Pawn), to.offset(them.forward()));
                d.take(piece, from);
                d.put(piece, to);
            }
            MoveKind::Castling => {
                // King takes rook: `to` is the rook's square. In Chess960
                // the king or the rook may end where it began; taking a
                // feature away and putting it back is then no change.
                let rook = Piece::new(us, PieceType::Rook);
                d.take(piece, from);
                d.take(rook, to);
                d.put(piece, m.castling_king_to());
                d.put(rook, m.castling_rook_to());
            }
        }
        d
    }

    /// `dst = src` with this delta applied, for both perspectives.
    pub fn apply(&self, net: &Network, src: &Accumulator, dst: &mut Accumulator) {
        for side in 0..2 {
            let (s, d) = (&src.v[side], &mut dst.v[side]);
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

/// One search thread's accumulators, by ply.
pub struct NnueStack {
    net: Arc<Network>,
    accs: Vec<Accumulator>,
    deltas: Vec<Delta>,
    /// Whether `accs[ply]` is up to date with the position at that ply.
    fresh: Vec<bool>,
}

impl NnueStack {
    /// A stack for plies 0..`plies` with the network `net`.
    pub fn new(net: Arc<Network>, plies: usize) -> NnueStack {
        let plies = plies.max(1);
        NnueStack {
            accs: vec![
                Accumulator {
                    v: [[0; HIDDEN]; 2]
                };
                plies
            ],
            deltas: vec![Delta::NONE; plies],
            fresh: vec![false; plies],
            net,
        }
    }

    pub fn net(&self) -> &Arc<Network> {
        &self.net
    }

    /// Starts from `root` at ply 0 with network `net`.
    pub fn reset(&mut self, net: Arc<Network>, root: &Position) {
        self.net = net;
        self.accs[0] = Accumulator::refresh(&self.net, root);
        self.fresh.fill(false);
        self.fresh[0] = true;
    }

    /// The position at `ply` is the one at `ply - 1` after `m`.
    #[inline]
    pub fn push(&mut self, ply: usize, parent: &Position, m: Move) {
        if ply < self.deltas.len() {
            self.deltas[ply] = Delta::of_move(parent, m);
            self.fresh[ply] = false;
        }
    }

    /// The position at `ply` is the one at `ply - 1` after a null move.
    #[inline]
    pub fn push_null(&mut self, ply: usize) {
        if ply < self.deltas.len() {
            self.deltas[ply] = Delta::NONE;
            self.fresh[ply] = false;
        }
    }

    /// Brings `accs[ply]` up to date and returns it.
    pub fn accumulator(&mut self, ply: usize) -> &Accumulator {
        let ply = ply.min(self.accs.len() - 1);
        if !self.fresh[ply] {
            let mut base = ply;
            while base > 0 && !self.fresh[base] {
                base -= 1;
            }
            for k in base + 1..=ply {
                let (done, rest) = self.accs.split_at_mut(k);
                self.deltas[k].apply(&self.net, &done[k - 1], &mut rest[0]);
                self.fresh[k] = true;
            }
        }
        &self.accs[ply]
    }

    /// The evaluation of `pos`, the position at `ply`, for its side to move.
    #[inline]
    pub fn evaluate(&mut self, ply: usize, pos: &Position) -> i32 {
        let stm = pos.side_to_move();
        self.accumulator(ply);
        let ply = ply.min(self.accs.len() - 1);
        debug_assert_eq!(
            self.accs[ply],
            Accumulator::refresh(&self.net, pos),
            "incremental accumulator differs at ply {ply}: {}",
            pos.fen()
        );
        self.net.evaluate(&self.accs[ply], stm)
    }
}
