//! Legal move generation.
//!
//! Legality is built in rather than filtered afterwards: the king never steps
//! onto an attacked square, pinned pieces move only along their pin line, in
//! check the other pieces only capture the checker or block, and the rare
//! cases (en passant, castling) are checked by playing them out on bitboards.
//!
//! Generation writes into a [`MoveSink`], so that perft can count the moves
//! of a whole piece with one popcount instead of storing them.

use super::attacks;
use super::bitboard::Bitboard;
use super::moves::{Move, MoveKind, MoveList};
use super::position::Position;
use super::types::{Color, PieceType, Square};

/// Which moves to generate. Noisy and quiet moves partition all moves.
pub mod gen_kind {
    /// Every legal move.
    pub const ALL: u8 = 0;
    /// Captures (en passant included) and promotions.
    pub const NOISY: u8 = 1;
    /// Everything else: non-capturing, non-promoting moves and castling.
    pub const QUIET: u8 = 2;
}
use gen_kind::{ALL, NOISY, QUIET};

/// Receives generated moves.
pub trait MoveSink {
    fn push(&mut self, m: Move);

    /// Normal moves from one square to each target.
    #[inline(always)]
    fn push_targets(&mut self, from: Square, targets: Bitboard) {
        for to in targets {
            self.push(Move::new(from, to, MoveKind::Normal));
        }
    }

    /// Normal pawn moves to each target from `delta` squares behind it.
    #[inline(always)]
    fn push_pawn_moves(&mut self, targets: Bitboard, delta: i8) {
        for to in targets {
            self.push(Move::new(to.offset(-delta), to, MoveKind::Normal));
        }
    }

    /// The four promotions of a pawn on each target, from `delta` behind it.
    #[inline(always)]
    fn push_promotions(&mut self, targets: Bitboard, delta: i8) {
        for to in targets {
            let from = to.offset(-delta);
            for p in [
                PieceType::Queen,
                PieceType::Knight,
                PieceType::Rook,
                PieceType::Bishop,
            ] {
                self.push(Move::promotion(from, to, p));
            }
        }
    }
}

impl MoveSink for MoveList {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        // No position has more than 218 legal moves; the list holds 256.
        let _ = self.try_push(m);
    }
}

/// Counts moves without storing them (perft's bulk counting).
pub struct MoveCounter(pub u64);

impl MoveSink for MoveCounter {
    #[inline(always)]
    fn push(&mut self, _m: Move) {
        self.0 += 1;
    }
    #[inline(always)]
    fn push_targets(&mut self, _from: Square, targets: Bitboard) {
        self.0 += targets.count() as u64;
    }
    #[inline(always)]
    fn push_pawn_moves(&mut self, targets: Bitboard, _delta: i8) {
        self.0 += targets.count() as u64;
    }
    #[inline(always)]
    fn push_promotions(&mut self, targets: Bitboard, _delta: i8) {
        self.0 += 4 * targets.count() as u64;
    }
}

#[inline(always)]
fn shift(b: Bitboard, delta: i8) -> Bitboard {
    if delta >= 0 {
        Bitboard(b.0 << delta)
    } else {
        Bitboard(b.0 >> -delta)
    }
}

impl Position {
    /// All legal moves.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate::<ALL, _>(&mut list);
        list
    }

    /// Legal captures (en passant included) and promotions.
    pub fn noisy_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate::<NOISY, _>(&mut list);
        list
    }

    /// Legal moves that neither capture nor promote (castling included).
    pub fn quiet_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate::<QUIET, _>(&mut list);
        list
    }

    /// The number of legal moves.
    pub fn count_legal(&self) -> u64 {
        let mut c = MoveCounter(0);
        self.generate::<ALL, _>(&mut c);
        c.0
    }

    /// Whether `m` is a legal move here. Works for any 16-bit value (for
    /// example a move from a hash table entry of another position).
    pub fn is_legal(&self, m: Move) -> bool {
        struct Find(Move, bool);
        impl MoveSink for Find {
            #[inline(always)]
            fn push(&mut self, m: Move) {
                self.1 |= m == self.0;
            }
        }
        let Some(piece) = self.piece_at(m.from()) else {
            return false;
        };
        if piece.color() != self.side_to_move() {
            return false;
        }
        let mut f = Find(m, false);
        self.generate::<ALL, _>(&mut f);
        f.1
    }

    /// Our pieces that are the only blocker between our king and an enemy slider.
    pub fn pinned(&self, us: Color) -> Bitboard {
        let them = us.flip();
        let ksq = self.king_square(us);
        let theirs = self.color(them);
        let snipers = (attacks::rook(ksq, theirs) & self.orthogonal_sliders(them))
            | (attacks::bishop(ksq, theirs) & self.diagonal_sliders(them));
        let occ = self.occupied();
        let mut pinned = Bitboard::EMPTY;
        for s in snipers {
            let b = attacks::between(ksq, s) & occ;
            if !b.several() {
                pinned |= b & self.color(us);
            }
        }
        pinned
    }

    /// Generates the legal moves of kind `K` (see [`gen_kind`]) into `sink`.
    pub fn generate<const K: u8, S: MoveSink>(&self, sink: &mut S) {
        let us = self.side_to_move();
        let them = us.flip();
        let occ = self.occupied();
        let ours = self.color(us);
        let theirs = self.color(them);
        let ksq = self.king_square(us);
        let checkers = self.checkers();

        let kind_mask = match K {
            NOISY => theirs,
            QUIET => !occ,
            _ => !ours,
        };

        // King: any square not attacked once the king has left its own.
        let occ_without_king = occ.without(ksq);
        let mut king_targets = Bitboard::EMPTY;
        for to in attacks::king(ksq) & kind_mask {
            if !self.is_attacked(to, them, occ_without_king) {
                king_targets = king_targets.with(to);
            }
        }
        sink.push_targets(ksq, king_targets);

        if checkers.several() {
            return;
        }
        // In check, the other pieces must take the checker or step between.
        let check_mask = match checkers.single() {
            Some(c) => attacks::between(ksq, c).with(c),
            None => Bitboard::ALL,
        };
        let target = kind_mask & check_mask;
        let pinned = self.pinned(us);

        for from in self.pieces(us, PieceType::Knight) & !pinned {
            sink.push_targets(from, attacks::knight(from) & target);
        }
        for from in self.diagonal_sliders(us) {
            let mut t = attacks::bishop(from, occ) & target;
            if pinned.has(from) {
                t &= attacks::line(ksq, from);
            }
            sink.push_targets(from, t);
        }
        for from in self.orthogonal_sliders(us) {
            let mut t = attacks::rook(from, occ) & target;
            if pinned.has(from) {
                t &= attacks::line(ksq, from);
            }
            sink.push_targets(from, t);
        }

        self.generate_pawns::<K, S>(sink, pinned, check_mask);

        if K != NOISY && checkers.is_empty() {
            self.generate_castling(sink);
        }
    }

    fn generate_pawns<const K: u8, S: MoveSink>(
        &self,
        sink: &mut S,
        pinned: Bitboard,
        check_mask: Bitboard,
    ) {
        let us = self.side_to_move();
        let them = us.flip();
        let occ = self.occupied();
        let theirs = self.color(them);
        let empty = !occ;
        let ksq = self.king_square(us);
        let up = us.forward();
        let (up_west, up_east) = (up - 1, up + 1);
        let last_rank = Bitboard::rank(us.relative_rank(7));
        let third_rank = Bitboard::rank(us.relative_rank(2));
        let not_file_a = !Bitboard::FILE_A;
        let not_file_h = !Bitboard::FILE_H;

        let pawns = self.pieces(us, PieceType::Pawn);
        // Pawns pinned on the king's file may still push; on a diagonal they
        // may take the pinner; other pinned pawns cannot move at all. Handle
        // each shape by masking the pawn set per direction.
        let ksq_file = Bitboard::file(ksq.file());
        let push_pawns = pawns & (!pinned | ksq_file);
        let free = pawns & !pinned;

        // Pushes (promotions below).
        if K != NOISY {
            let single = shift(push_pawns, up) & empty;
            let double = shift(single & third_rank, up) & empty & check_mask;
            sink.push_pawn_moves(single & !last_rank & check_mask, up);
            sink.push_pawn_moves(double, 2 * up);
        }
        // Promotions: pushing and capturing.
        if K != QUIET {
            let promo_push = shift(push_pawns, up) & empty & last_rank & check_mask;
            sink.push_promotions(promo_push, up);
        }

        if K != QUIET {
            let west = shift(free & not_file_a, up_west) & theirs & check_mask;
            let east = shift(free & not_file_h, up_east) & theirs & check_mask;
            sink.push_pawn_moves(west & !last_rank, up_west);
            sink.push_pawn_moves(east & !last_rank, up_east);
            sink.push_promotions(west & last_rank, up_west);
            sink.push_promotions(east & last_rank, up_east);

            // Pinned pawns off the king's file can capture only along their diagonal pin.
            for from in pawns & pinned & !ksq_file {
                let caps = attacks::pawn(us, from) & theirs & check_mask & attacks::line(ksq, from);
                for to in caps {
                    if last_rank.has(to) {
                        sink.push_promotions(
                            Bitboard::from_square(to),
                            to.index() as i8 - from.index() as i8,
                        );
                    } else {
                        sink.push(Move::new(from, to, MoveKind::Normal));
                    }
                }
            }

            // En passant: only when the position knows a capture is legal.
            if self.ep_in_key {
                if let Some(ep) = self.ep_square() {
                    let victim = ep.offset(them.forward());
                    for from in attacks::pawn(them, ep) & pawns {
                        if self.ep_is_safe(from, ep, victim) {
                            sink.push(Move::new(from, ep, MoveKind::EnPassant));
                        }
                    }
                }
            }
        }
    }

    /// Whether capturing en passant from `from` leaves our king safe.
    #[inline]
    fn ep_is_safe(&self, from: Square, ep: Square, victim: Square) -> bool {
        let us = self.side_to_move();
        let them = us.flip();
        let ksq = self.king_square(us);
        let occ = (self.occupied() ^ Bitboard::from_square(from) ^ Bitboard::from_square(victim))
            .with(ep);
        let enemies = self.color(them).without(victim);
        (attacks::rook(ksq, occ) & self.orthogonal_sliders(them) & enemies).is_empty()
            && (attacks::bishop(ksq, occ) & self.diagonal_sliders(them) & enemies).is_empty()
            && (attacks::knight(ksq) & self.pieces(them, PieceType::Knight)).is_empty()
            && (attacks::pawn(us, ksq) & self.pieces(them, PieceType::Pawn) & enemies).is_empty()
    }

    fn generate_castling<S: MoveSink>(&self, sink: &mut S) {
        let us = self.side_to_move();
        let them = us.flip();
        let ksq = self.king_square(us);
        let occ = self.occupied();
        for kingside in [true, false] {
            let Some(rook) = self.castling_rook(us, kingside) else {
                continue;
            };
            let m = Move::new(ksq, rook, MoveKind::Castling);
            let (kto, rto) = (m.castling_king_to(), m.castling_rook_to());
            let path = attacks::between(ksq, kto).with(kto) | attacks::between(rook, rto).with(rto);
            let blockers = occ.without(ksq).without(rook);
            if (path & blockers).any() {
                continue;
            }
            // The castling rook may shield the king's path (Chess960), so
            // look at the attacks with it gone.
            let occ_no_rook = occ.without(rook);
            let king_path = attacks::between(ksq, kto).with(kto);
            if Iterator::any(&mut king_path.into_iter(), |sq| {
                self.is_attacked(sq, them, occ_no_rook)
            }) {
                continue;
            }
            sink.push(m);
        }
    }
}
