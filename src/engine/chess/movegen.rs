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

/// Which moves give check, for one position: the squares from which each
/// piece type attacks the enemy king, and our pieces whose departure from
/// a line uncovers one of our sliders on it.
#[derive(Clone, Copy, Debug)]
pub struct CheckInfo {
    pub squares: [Bitboard; 6],
    pub discoverers: Bitboard,
    pub king: Square,
}

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
    /// example a move from a hash table entry of another position) without
    /// generating the moves.
    pub fn is_legal(&self, m: Move) -> bool {
        let us = self.side_to_move();
        let them = us.flip();
        let (from, to) = (m.from(), m.to());
        let Some(piece) = self.piece_at(from) else {
            return false;
        };
        // Promotion bits on anything but a promotion make a different move.
        if piece.color() != us
            || from == to
            || (m.kind() != MoveKind::Promotion && m.bits() & 0x3000 != 0)
        {
            return false;
        }
        let kind = piece.kind();
        let ksq = self.king_square(us);
        match m.kind() {
            MoveKind::Castling => {
                let kingside = to.file() > from.file();
                return kind == PieceType::King
                    && self.checkers().is_empty()
                    && self.castling_rook(us, kingside) == Some(to)
                    && self.castling_allowed(ksq, to);
            }
            MoveKind::EnPassant => {
                return kind == PieceType::Pawn
                    && self.ep_in_key
                    && self.ep_square() == Some(to)
                    && attacks::pawn(us, from).has(to)
                    && self.ep_is_safe(from, to, to.offset(them.forward()));
            }
            MoveKind::Normal | MoveKind::Promotion => {}
        }
        let occ = self.occupied();
        if self.color(us).has(to) {
            return false;
        }
        if kind == PieceType::Pawn {
            let promoting = to.rank() == us.relative_rank(7);
            if promoting != (m.kind() == MoveKind::Promotion) {
                return false;
            }
            let up = us.forward();
            let single = from.offset(up);
            let reachable = (to == single && !occ.has(to))
                || (from.rank() == us.relative_rank(1)
                    && to == single.offset(up)
                    && !occ.has(single)
                    && !occ.has(to))
                || (attacks::pawn(us, from).has(to) && self.color(them).has(to));
            if !reachable {
                return false;
            }
        } else if m.kind() == MoveKind::Promotion || !attacks::piece(kind, from, occ).has(to) {
            return false;
        }
        if kind == PieceType::King {
            return !self.is_attacked(to, them, occ.without(from));
        }
        let checkers = self.checkers();
        if checkers.several() {
            return false;
        }
        if let Some(c) = checkers.single()
            && !attacks::between(ksq, c).with(c).has(to)
        {
            return false;
        }
        !attacks::line(ksq, from).any()
            || !self.pinned(us).has(from)
            || attacks::line(ksq, from).has(to)
    }

    /// Whether the legal move `m` gives check, directly or by discovery.
    pub fn gives_check(&self, m: Move) -> bool {
        let us = self.side_to_move();
        let them = us.flip();
        let ksq = self.king_square(them);
        let (from, to) = (m.from(), m.to());
        match m.kind() {
            // Rare: settle them by playing the move.
            MoveKind::Castling | MoveKind::EnPassant => {
                let mut after = self.clone();
                after.play(m);
                return after.in_check();
            }
            MoveKind::Normal | MoveKind::Promotion => {}
        }
        let Some(piece) = self.piece_at(from) else {
            return false;
        };
        let kind = m.promo().unwrap_or(piece.kind());
        let occ = self.occupied().without(from).with(to);
        let direct = match kind {
            PieceType::Pawn => attacks::pawn(us, to).has(ksq),
            PieceType::King => false,
            k => attacks::piece(k, to, occ).has(ksq),
        };
        direct
            || (attacks::bishop(ksq, occ) & self.diagonal_sliders(us).without(from)).any()
            || (attacks::rook(ksq, occ) & self.orthogonal_sliders(us).without(from)).any()
    }

    /// What [`Position::gives_check_with`] needs, computed once per position.
    pub fn check_info(&self) -> CheckInfo {
        let us = self.side_to_move();
        let ksq = self.king_square(us.flip());
        let occ = self.occupied();
        let b = attacks::bishop(ksq, occ);
        let r = attacks::rook(ksq, occ);
        CheckInfo {
            squares: [
                attacks::pawn(us.flip(), ksq),
                attacks::knight(ksq),
                b,
                r,
                b | r,
                Bitboard::EMPTY,
            ],
            discoverers: self.line_blockers(us.flip(), us) & self.color(us),
            king: ksq,
        }
    }

    /// Like [`Position::gives_check`], faster for many moves of one position.
    #[inline]
    pub fn gives_check_with(&self, m: Move, ci: &CheckInfo) -> bool {
        if m.kind() != MoveKind::Normal {
            return self.gives_check(m);
        }
        let (from, to) = (m.from(), m.to());
        let Some(piece) = self.piece_at(from) else {
            return false;
        };
        ci.squares[piece.kind().index()].has(to)
            || (ci.discoverers.has(from) && !attacks::line(ci.king, from).has(to))
    }

    /// Our pieces that are the only blocker between our king and an enemy slider.
    pub fn pinned(&self, us: Color) -> Bitboard {
        self.line_blockers(us, us.flip()) & self.color(us)
    }

    /// Pieces of either colour that alone stand between the king of
    /// `king_color` and a slider of `slider_color` aimed at it.
    fn line_blockers(&self, king_color: Color, slider_color: Color) -> Bitboard {
        let ksq = self.king_square(king_color);
        let snipers = (attacks::rook(ksq, Bitboard::EMPTY) & self.orthogonal_sliders(slider_color))
            | (attacks::bishop(ksq, Bitboard::EMPTY) & self.diagonal_sliders(slider_color));
        let occ = self.occupied();
        let mut blockers = Bitboard::EMPTY;
        for s in snipers {
            let b = attacks::between(ksq, s) & occ;
            if !b.several() {
                blockers |= b;
            }
        }
        blockers
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
            if self.ep_in_key
                && let Some(ep) = self.ep_square()
            {
                let victim = ep.offset(them.forward());
                for from in attacks::pawn(them, ep) & pawns {
                    if self.ep_is_safe(from, ep, victim) {
                        sink.push(Move::new(from, ep, MoveKind::EnPassant));
                    }
                }
            }
        }
    }

    /// Whether capturing en passant from `from` leaves our king safe.
    #[inline]
    pub(crate) fn ep_is_safe(&self, from: Square, ep: Square, victim: Square) -> bool {
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
        let ksq = self.king_square(us);
        for kingside in [true, false] {
            if let Some(rook) = self.castling_rook(us, kingside)
                && self.castling_allowed(ksq, rook)
            {
                sink.push(Move::new(ksq, rook, MoveKind::Castling));
            }
        }
    }

    /// Whether the king on `ksq` may castle with the rook on `rook` (the
    /// right is held and the king is not in check): the squares both pass
    /// through are empty and the king's path is not attacked.
    fn castling_allowed(&self, ksq: Square, rook: Square) -> bool {
        let them = self.side_to_move().flip();
        let occ = self.occupied();
        let m = Move::new(ksq, rook, MoveKind::Castling);
        let (kto, rto) = (m.castling_king_to(), m.castling_rook_to());
        let king_path = attacks::between(ksq, kto).with(kto);
        let path = king_path | attacks::between(rook, rto).with(rto);
        if (path & occ.without(ksq).without(rook)).any() {
            return false;
        }
        // The castling rook may shield the king's path (Chess960), so look
        // at the attacks with it gone.
        let occ_no_rook = occ.without(rook);
        !Iterator::any(&mut king_path.into_iter(), |sq| {
            self.is_attacked(sq, them, occ_no_rook)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Calls `check` on every position of a 40..60-ply pseudo-random
    /// playout from each FEN.
    fn playouts(fens: &[&str], plies: usize, mut check: impl FnMut(&Position, &MoveList)) {
        let mut rng = 0x9E37_79B9_7F4A_7C15u64;
        for fen in fens {
            let mut pos = Position::from_fen(fen).unwrap().0;
            for _ply in 0..plies {
                let legal = pos.legal_moves();
                check(&pos, &legal);
                if legal.is_empty() {
                    break;
                }
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                pos.play(legal[(rng % legal.len() as u64) as usize]);
            }
        }
    }

    /// `gives_check` agrees with playing the move, on every legal move of
    /// positions rich in discovered checks, promotions and castling.
    #[test]
    fn gives_check_matches_playing_the_move() {
        let fens = [
            crate::engine::chess::fen::STARTPOS,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
            "3k4/8/8/2pP4/8/8/8/B3K3 w - c6 0 1",
            "4k3/8/4N3/8/8/8/4R3/4K3 w - - 0 1",
        ];
        playouts(&fens, 60, |pos, legal| {
            for &m in legal {
                let mut after = pos.clone();
                after.play(m);
                assert_eq!(
                    pos.gives_check(m),
                    after.in_check(),
                    "{m:?} in {}",
                    pos.fen()
                );
                let ci = pos.check_info();
                assert_eq!(
                    pos.gives_check_with(m, &ci),
                    after.in_check(),
                    "{m:?} in {}",
                    pos.fen()
                );
            }
        });
    }

    /// `is_legal` agrees with generation on every one of the 65536 move
    /// encodings, over positions reached by pseudo-random play from
    /// positions rich in pins, checks, en passant and Chess960 castling.
    #[test]
    fn is_legal_matches_generation_on_every_encoding() {
        let fens = [
            crate::engine::chess::fen::STARTPOS,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "2r1kr2/8/8/8/8/8/8/1R2K1R1 w GBfc - 0 1",
        ];
        playouts(&fens, 40, |pos, legal| {
            for bits in 0..=u16::MAX {
                let m = Move::from_bits(bits);
                assert_eq!(
                    pos.is_legal(m),
                    legal.contains(&m),
                    "{m:?} in {}",
                    pos.fen()
                );
            }
        });
    }
}
