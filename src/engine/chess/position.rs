//! The position: bitboards plus a mailbox, side to move, castling rights,
//! en-passant square, counters and Zobrist keys.
//!
//! A `Position` is only built from a validated setup (see `fen.rs`) or by
//! playing legal moves, so every method may assume one king per side and a
//! side not to move that is not in check. Moves are played in place; callers
//! that need to go back keep a copy (copy-make: the struct is small).

use super::attacks;
use super::bitboard::Bitboard;
use super::moves::{Move, MoveKind};
use super::types::{Color, Piece, PieceType, Square};
use super::zobrist;

/// Castling rights are four bits: White king side, White queen side, Black
/// king side, Black queen side. "King side" means the rook on the h-file
/// side of the king, whatever files the king and rook start on (Chess960).
pub const WHITE_KINGSIDE: u8 = 1;
pub const WHITE_QUEENSIDE: u8 = 2;
pub const BLACK_KINGSIDE: u8 = 4;
pub const BLACK_QUEENSIDE: u8 = 8;

/// The index (0..4) of a castling right: colour * 2 + (0 king side, 1 queen side).
#[inline(always)]
pub const fn castle_index(color: Color, kingside: bool) -> usize {
    color.index() * 2 + if kingside { 0 } else { 1 }
}

#[derive(Clone, Debug)]
pub struct Position {
    pub(crate) by_kind: [Bitboard; 6],
    pub(crate) by_color: [Bitboard; 2],
    pub(crate) board: [Option<Piece>; 64],
    pub(crate) side: Color,
    pub(crate) castling: u8,
    /// The rook square of each castling right, by [`castle_index`]; only
    /// meaningful while the right is held.
    pub(crate) castle_rooks: [Square; 4],
    /// The square behind a pawn that has just advanced two squares, as FEN
    /// writes it, whether or not a capture is possible.
    pub(crate) ep: Option<Square>,
    /// Whether an en-passant capture is legal, and so whether `ep` is in the
    /// key: positions that differ only by an impossible capture repeat.
    pub(crate) ep_in_key: bool,
    pub(crate) halfmove: u32,
    pub(crate) fullmove: u32,
    pub(crate) key: u64,
    pub(crate) pawn_key: u64,
    /// The keys of the pieces other than pawns, by colour, and of the
    /// minor (knights, bishops) and major (rooks, queens) pieces of both:
    /// the search's correction histories are indexed by them.
    pub(crate) piece_keys: PieceKeys,
    pub(crate) checkers: Bitboard,
}

/// Zobrist keys of parts of the material (see [`Position::piece_keys`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PieceKeys {
    /// Every piece but the pawns (kings included), White's then Black's.
    pub non_pawn: [u64; 2],
    /// Knights and bishops of both colours.
    pub minor: u64,
    /// Rooks and queens of both colours.
    pub major: u64,
}

impl PieceKeys {
    #[inline(always)]
    fn toggle(&mut self, p: Piece, k: u64) {
        match p.kind() {
            PieceType::Pawn => {}
            PieceType::Knight | PieceType::Bishop => {
                self.minor ^= k;
                self.non_pawn[p.color().index()] ^= k;
            }
            PieceType::Rook | PieceType::Queen => {
                self.major ^= k;
                self.non_pawn[p.color().index()] ^= k;
            }
            PieceType::King => self.non_pawn[p.color().index()] ^= k,
        }
    }
}

/// Equal positions have the same pieces, side, rights, en-passant square,
/// counters and derived state. The rook square of a right that is no
/// longer held means nothing and is left out: a position where the king
/// has moved must equal the same position read from its FEN.
impl PartialEq for Position {
    fn eq(&self, other: &Position) -> bool {
        let held_rooks = |p: &Position| {
            let mut rooks = [None; 4];
            for (i, rook) in rooks.iter_mut().enumerate() {
                if p.castling & (1 << i) != 0 {
                    *rook = Some(p.castle_rooks[i]);
                }
            }
            rooks
        };
        self.by_kind == other.by_kind
            && self.by_color == other.by_color
            && self.board == other.board
            && self.side == other.side
            && self.castling == other.castling
            && held_rooks(self) == held_rooks(other)
            && self.ep == other.ep
            && self.ep_in_key == other.ep_in_key
            && self.halfmove == other.halfmove
            && self.fullmove == other.fullmove
            && self.key == other.key
            && self.pawn_key == other.pawn_key
            && self.piece_keys == other.piece_keys
            && self.checkers == other.checkers
    }
}

impl Eq for Position {}

impl Position {
    /// The standard starting position.
    pub fn startpos() -> Position {
        match Position::from_fen(super::fen::STARTPOS) {
            Ok((pos, _)) => pos,
            Err(e) => unreachable!("the start position is valid: {e}"),
        }
    }

    pub(crate) fn empty() -> Position {
        Position {
            by_kind: [Bitboard::EMPTY; 6],
            by_color: [Bitboard::EMPTY; 2],
            board: [None; 64],
            side: Color::White,
            castling: 0,
            castle_rooks: [Square::H1, Square::A1, Square::H8, Square::A8],
            ep: None,
            ep_in_key: false,
            halfmove: 0,
            fullmove: 1,
            key: 0,
            pawn_key: 0,
            piece_keys: PieceKeys::default(),
            checkers: Bitboard::EMPTY,
        }
    }

    // ----- Queries -----

    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    #[inline(always)]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    #[inline(always)]
    pub fn kind(&self, kind: PieceType) -> Bitboard {
        self.by_kind[kind.index()]
    }

    #[inline(always)]
    pub fn color(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    #[inline(always)]
    pub fn pieces(&self, color: Color, kind: PieceType) -> Bitboard {
        self.by_kind[kind.index()] & self.by_color[color.index()]
    }

    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    #[inline(always)]
    pub fn king_square(&self, color: Color) -> Square {
        self.pieces(color, PieceType::King).lsb()
    }

    /// Bishops and queens.
    #[inline(always)]
    pub fn diagonal_sliders(&self, color: Color) -> Bitboard {
        (self.by_kind[PieceType::Bishop.index()] | self.by_kind[PieceType::Queen.index()])
            & self.by_color[color.index()]
    }

    /// Rooks and queens.
    #[inline(always)]
    pub fn orthogonal_sliders(&self, color: Color) -> Bitboard {
        (self.by_kind[PieceType::Rook.index()] | self.by_kind[PieceType::Queen.index()])
            & self.by_color[color.index()]
    }

    /// The enemy pieces that attack the king of the side to move.
    #[inline(always)]
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }

    #[inline(always)]
    pub fn in_check(&self) -> bool {
        self.checkers.any()
    }

    /// The Zobrist key of the whole position.
    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// The Zobrist key of the pawns alone (for a pawn-structure cache).
    #[inline(always)]
    pub fn pawn_key(&self) -> u64 {
        self.pawn_key
    }

    /// The keys of the non-pawn pieces by colour and of the minor and
    /// major pieces ([`PieceKeys`]), kept up to date by every move.
    #[inline(always)]
    pub fn piece_keys(&self) -> &PieceKeys {
        &self.piece_keys
    }

    #[inline(always)]
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove
    }

    #[inline(always)]
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove
    }

    /// The FEN en-passant square: set after every double pawn step.
    #[inline(always)]
    pub fn ep_square(&self) -> Option<Square> {
        self.ep
    }

    /// The castling-rights bits (see [`WHITE_KINGSIDE`] and friends).
    #[inline(always)]
    pub fn castling_rights(&self) -> u8 {
        self.castling
    }

    /// The rook that castles for this right, if the right is held.
    #[inline(always)]
    pub fn castling_rook(&self, color: Color, kingside: bool) -> Option<Square> {
        let i = castle_index(color, kingside);
        if self.castling & (1 << i) != 0 {
            Some(self.castle_rooks[i])
        } else {
            None
        }
    }

    /// All pieces of both colours that attack `sq`, given an occupancy.
    #[inline]
    pub fn attackers_to(&self, sq: Square, occ: Bitboard) -> Bitboard {
        let bishops =
            self.by_kind[PieceType::Bishop.index()] | self.by_kind[PieceType::Queen.index()];
        let rooks = self.by_kind[PieceType::Rook.index()] | self.by_kind[PieceType::Queen.index()];
        (attacks::pawn(Color::White, sq) & self.pieces(Color::Black, PieceType::Pawn))
            | (attacks::pawn(Color::Black, sq) & self.pieces(Color::White, PieceType::Pawn))
            | (attacks::knight(sq) & self.by_kind[PieceType::Knight.index()])
            | (attacks::king(sq) & self.by_kind[PieceType::King.index()])
            | (attacks::bishop(sq, occ) & bishops)
            | (attacks::rook(sq, occ) & rooks)
    }

    /// Whether `by` attacks `sq` with the given occupancy.
    #[inline]
    pub fn is_attacked(&self, sq: Square, by: Color, occ: Bitboard) -> bool {
        let them = self.by_color[by.index()];
        (attacks::pawn(by.flip(), sq) & self.by_kind[PieceType::Pawn.index()] & them).any()
            || (attacks::knight(sq) & self.by_kind[PieceType::Knight.index()] & them).any()
            || (attacks::king(sq) & self.by_kind[PieceType::King.index()] & them).any()
            || (attacks::bishop(sq, occ) & self.diagonal_sliders(by)).any()
            || (attacks::rook(sq, occ) & self.orthogonal_sliders(by)).any()
    }

    /// Whether the move takes a piece (en passant included; castling is not a capture).
    #[inline(always)]
    pub fn is_capture(&self, m: Move) -> bool {
        match m.kind() {
            MoveKind::EnPassant => true,
            MoveKind::Castling => false,
            _ => self.board[m.to().index()].is_some(),
        }
    }

    /// The piece type a move captures, if any.
    #[inline(always)]
    pub fn captured(&self, m: Move) -> Option<PieceType> {
        match m.kind() {
            MoveKind::EnPassant => Some(PieceType::Pawn),
            MoveKind::Castling => None,
            _ => self.board[m.to().index()].map(|p| p.kind()),
        }
    }

    /// Neither side has material that could ever mate: K v K, K+minor v K,
    /// and kings with bishops all on squares of one colour.
    pub fn insufficient_material(&self) -> bool {
        let heavy =
            self.kind(PieceType::Pawn) | self.kind(PieceType::Rook) | self.kind(PieceType::Queen);
        if heavy.any() {
            return false;
        }
        let knights = self.kind(PieceType::Knight);
        let bishops = self.kind(PieceType::Bishop);
        let minors = knights | bishops;
        if minors.count() <= 1 {
            return true;
        }
        knights.is_empty()
            && ((bishops & Bitboard::DARK_SQUARES).is_empty()
                || (bishops & !Bitboard::DARK_SQUARES).is_empty())
    }

    // ----- Making moves -----

    #[inline(always)]
    pub(crate) fn put(&mut self, p: Piece, sq: Square) {
        let bb = Bitboard::from_square(sq);
        self.by_kind[p.kind().index()] |= bb;
        self.by_color[p.color().index()] |= bb;
        self.board[sq.index()] = Some(p);
        let k = zobrist::piece(p, sq);
        self.key ^= k;
        if p.kind() == PieceType::Pawn {
            self.pawn_key ^= k;
        } else {
            self.piece_keys.toggle(p, k);
        }
    }

    #[inline(always)]
    fn remove(&mut self, p: Piece, sq: Square) {
        let bb = Bitboard::from_square(sq);
        self.by_kind[p.kind().index()] ^= bb;
        self.by_color[p.color().index()] ^= bb;
        self.board[sq.index()] = None;
        let k = zobrist::piece(p, sq);
        self.key ^= k;
        if p.kind() == PieceType::Pawn {
            self.pawn_key ^= k;
        } else {
            self.piece_keys.toggle(p, k);
        }
    }

    /// Plays a legal move. The result for an illegal move is unspecified
    /// (but memory-safe); check legality first for moves from outside.
    pub fn play(&mut self, m: Move) {
        let us = self.side;
        let them = us.flip();
        let from = m.from();
        let to = m.to();
        let Some(piece) = self.board[from.index()] else {
            debug_assert!(false, "no piece on {from} for {m:?}");
            return;
        };

        self.clear_ep();
        self.halfmove = self.halfmove.saturating_add(1);

        match m.kind() {
            MoveKind::Normal => {
                if let Some(victim) = self.board[to.index()] {
                    self.remove(victim, to);
                    self.halfmove = 0;
                }
                self.remove(piece, from);
                self.put(piece, to);
                if piece.kind() == PieceType::Pawn {
                    self.halfmove = 0;
                    if from.index() ^ to.index() == 16 {
                        self.ep = Some(from.offset(us.forward()));
                    }
                }
            }
            MoveKind::Promotion => {
                if let Some(victim) = self.board[to.index()] {
                    self.remove(victim, to);
                }
                self.remove(piece, from);
                let promo = m.promo().unwrap_or(PieceType::Queen);
                self.put(Piece::new(us, promo), to);
                self.halfmove = 0;
            }
            MoveKind::EnPassant => {
                let victim_sq = to.offset(them.forward());
                self.remove(Piece::new(them, PieceType::Pawn), victim_sq);
                self.remove(piece, from);
                self.put(piece, to);
                self.halfmove = 0;
            }
            MoveKind::Castling => {
                let rook = Piece::new(us, PieceType::Rook);
                self.remove(piece, from);
                self.remove(rook, to);
                self.put(piece, m.castling_king_to());
                self.put(rook, m.castling_rook_to());
            }
        }

        if self.castling != 0 {
            self.update_castling(piece, from, to);
        }

        self.side = them;
        self.key ^= zobrist::side();
        if us == Color::Black {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        self.checkers =
            self.attackers_to(self.king_square(them), self.occupied()) & self.by_color[us.index()];
        // The en-passant capturability test needs the new side to move and checkers.
        if let Some(ep) = self.ep
            && self.ep_capture_possible(ep)
        {
            self.ep_in_key = true;
            self.key ^= zobrist::en_passant(ep.file());
        }
    }

    /// Forgets the en-passant square (and takes it out of the key).
    #[inline(always)]
    fn clear_ep(&mut self) {
        if self.ep_in_key
            && let Some(ep) = self.ep
        {
            self.key ^= zobrist::en_passant(ep.file());
        }
        self.ep = None;
        self.ep_in_key = false;
    }

    /// Passes the move to the opponent (for null-move pruning). Not legal in check.
    pub fn play_null(&mut self) {
        self.clear_ep();
        self.halfmove = self.halfmove.saturating_add(1);
        if self.side == Color::Black {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        self.side = self.side.flip();
        self.key ^= zobrist::side();
        self.checkers = Bitboard::EMPTY;
    }

    fn update_castling(&mut self, piece: Piece, from: Square, to: Square) {
        let mut lost = 0u8;
        if piece.kind() == PieceType::King {
            lost |= match piece.color() {
                Color::White => WHITE_KINGSIDE | WHITE_QUEENSIDE,
                Color::Black => BLACK_KINGSIDE | BLACK_QUEENSIDE,
            };
        }
        for i in 0..4 {
            if self.castling & (1 << i) != 0
                && (self.castle_rooks[i] == from || self.castle_rooks[i] == to)
            {
                lost |= 1 << i;
            }
        }
        let lost = lost & self.castling;
        if lost != 0 {
            self.key ^= zobrist::castling(self.castling);
            self.castling &= !lost;
            self.key ^= zobrist::castling(self.castling);
        }
    }

    /// Whether the side to move has a legal en-passant capture onto `ep`.
    /// Assumes `self.checkers` is up to date.
    pub(crate) fn ep_capture_possible(&self, ep: Square) -> bool {
        let us = self.side;
        let victim = ep.offset(us.flip().forward());
        let capturers = attacks::pawn(us.flip(), ep) & self.pieces(us, PieceType::Pawn);
        Iterator::any(&mut capturers.into_iter(), |from| {
            self.ep_is_safe(from, ep, victim)
        })
    }

    /// Recomputes the keys from scratch; the incremental keys must equal these.
    pub fn compute_keys(&self) -> (u64, u64) {
        let mut key = 0u64;
        let mut pawn_key = 0u64;
        for sq in Square::all() {
            if let Some(p) = self.board[sq.index()] {
                key ^= zobrist::piece(p, sq);
                if p.kind() == PieceType::Pawn {
                    pawn_key ^= zobrist::piece(p, sq);
                }
            }
        }
        key ^= zobrist::castling(self.castling);
        if self.side == Color::Black {
            key ^= zobrist::side();
        }
        if let Some(ep) = self.ep
            && self.ep_capture_possible(ep)
        {
            key ^= zobrist::en_passant(ep.file());
        }
        (key, pawn_key)
    }

    /// Recomputes the [`PieceKeys`] from scratch; the incremental ones must
    /// equal these.
    pub fn compute_piece_keys(&self) -> PieceKeys {
        let mut keys = PieceKeys::default();
        for sq in Square::all() {
            if let Some(p) = self.board[sq.index()] {
                keys.toggle(p, zobrist::piece(p, sq));
            }
        }
        keys
    }

    /// Fills in the derived state (checkers, en-passant key flag, keys) after
    /// the pieces, side, rights and square have been set.
    pub(crate) fn finish_setup(&mut self) {
        let us = self.side;
        self.checkers =
            self.attackers_to(self.king_square(us), self.occupied()) & self.color(us.flip());
        self.ep_in_key = self.ep.is_some_and(|ep| self.ep_capture_possible(ep));
        let (key, pawn_key) = self.compute_keys();
        self.key = key;
        self.pawn_key = pawn_key;
        self.piece_keys = self.compute_piece_keys();
    }
}
