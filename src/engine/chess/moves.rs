//! The internal move: 16 bits.
//!
//! ```text
//!  15 14 | 13 12 | 11 ........ 6 | 5 ......... 0
//!  kind  | promo |  from square  |   to square
//! kind:  0 normal, 1 promotion, 2 en passant, 3 castling
//! promo: 0 knight, 1 bishop, 2 rook, 3 queen (meaningful for promotions only)
//! ```
//! Castling is encoded king-takes-rook (`to` is the rook's square), so
//! Chess960 needs nothing special; only the UCI text differs.

use super::types::{PieceType, Square};
use arrayvec::ArrayVec;
use std::fmt;

#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Move(u16);

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum MoveKind {
    Normal = 0,
    Promotion = 1,
    EnPassant = 2,
    Castling = 3,
}

/// The most legal moves any chess position has is 218.
pub const MAX_MOVES: usize = 256;
pub type MoveList = ArrayVec<Move, MAX_MOVES>;

impl Move {
    /// Not a move: a1a1. Printed as `0000`.
    pub const NULL: Move = Move(0);

    #[inline(always)]
    pub const fn new(from: Square, to: Square, kind: MoveKind) -> Move {
        Move((kind as u16) << 14 | (from.index() as u16) << 6 | to.index() as u16)
    }

    /// `promo` must be a knight, bishop, rook or queen.
    #[inline(always)]
    pub const fn promotion(from: Square, to: Square, promo: PieceType) -> Move {
        Move(
            (MoveKind::Promotion as u16) << 14
                | (promo as u16 - 1) << 12
                | (from.index() as u16) << 6
                | to.index() as u16,
        )
    }

    #[inline(always)]
    pub const fn from(self) -> Square {
        Square::new(((self.0 >> 6) & 63) as u8)
    }

    #[inline(always)]
    pub const fn to(self) -> Square {
        Square::new((self.0 & 63) as u8)
    }

    #[inline(always)]
    pub const fn kind(self) -> MoveKind {
        match self.0 >> 14 {
            0 => MoveKind::Normal,
            1 => MoveKind::Promotion,
            2 => MoveKind::EnPassant,
            _ => MoveKind::Castling,
        }
    }

    #[inline(always)]
    pub const fn is_null(self) -> bool {
        self.0 == 0
    }

    /// The piece a promotion makes, or `None`.
    #[inline(always)]
    pub const fn promo(self) -> Option<PieceType> {
        match self.kind() {
            MoveKind::Promotion => Some(PieceType::from_index(((self.0 >> 12) & 3) as usize + 1)),
            _ => None,
        }
    }

    #[inline(always)]
    pub const fn is_castling(self) -> bool {
        matches!(self.kind(), MoveKind::Castling)
    }

    /// The raw 16 bits, for packing into hash entries.
    #[inline(always)]
    pub const fn bits(self) -> u16 {
        self.0
    }

    #[inline(always)]
    pub const fn from_bits(bits: u16) -> Move {
        Move(bits)
    }

    /// Where the king lands when this castling move is played.
    #[inline(always)]
    pub const fn castling_king_to(self) -> Square {
        let file = if self.to().file() > self.from().file() {
            6
        } else {
            2
        };
        Square::from_coords(file, self.from().rank())
    }

    /// Where the rook lands when this castling move is played.
    #[inline(always)]
    pub const fn castling_rook_to(self) -> Square {
        let file = if self.to().file() > self.from().file() {
            5
        } else {
            3
        };
        Square::from_coords(file, self.from().rank())
    }

    /// The UCI text. Castling is `e1g1` (king's destination) unless
    /// `chess960`, where it is king-takes-rook (`e1h1`).
    pub fn uci(self, chess960: bool) -> UciMove {
        UciMove { mv: self, chess960 }
    }
}

/// Display adapter for [`Move::uci`].
pub struct UciMove {
    mv: Move,
    chess960: bool,
}

impl fmt::Display for UciMove {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let m = self.mv;
        if m.is_null() {
            return f.write_str("0000");
        }
        let to = if m.is_castling() && !self.chess960 {
            m.castling_king_to()
        } else {
            m.to()
        };
        write!(f, "{}{}", m.from(), to)?;
        if let Some(p) = m.promo() {
            write!(f, "{}", p.letter())?;
        }
        Ok(())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}", self.uci(true))?;
        match self.kind() {
            MoveKind::Castling => f.write_str("(castle)"),
            MoveKind::EnPassant => f.write_str("(ep)"),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing() {
        let e7 = Square::parse("e7").unwrap();
        let d8 = Square::parse("d8").unwrap();
        let m = Move::promotion(e7, d8, PieceType::Knight);
        assert_eq!((m.from(), m.to(), m.kind()), (e7, d8, MoveKind::Promotion));
        assert_eq!(m.promo(), Some(PieceType::Knight));
        assert_eq!(m.uci(false).to_string(), "e7d8n");
        assert_eq!(std::mem::size_of::<Move>(), 2);
        assert_eq!(Move::NULL.uci(false).to_string(), "0000");
    }

    #[test]
    fn castling_text() {
        let m = Move::new(Square::E1, Square::H1, MoveKind::Castling);
        assert_eq!(m.uci(false).to_string(), "e1g1");
        assert_eq!(m.uci(true).to_string(), "e1h1");
        let q = Move::new(Square::E8, Square::A8, MoveKind::Castling);
        assert_eq!(q.uci(false).to_string(), "e8c8");
        assert_eq!(q.uci(true).to_string(), "e8a8");
        // Chess960: king b1, rook a1 castles queenside to c1/d1.
        let b1 = Square::parse("b1").unwrap();
        let c = Move::new(b1, Square::A1, MoveKind::Castling);
        assert_eq!(c.castling_king_to(), Square::C1);
        assert_eq!(c.castling_rook_to(), Square::D1);
    }
}

/// Why a UCI move text was refused.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum UciMoveError {
    /// Not of the form `e2e4`/`e7e8q` (including the null move `0000`).
    Syntax(String),
    /// Well-formed but not legal in the position.
    Illegal(String),
}

impl fmt::Display for UciMoveError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            UciMoveError::Syntax(s) => write!(f, "'{s}' is not a move in UCI notation"),
            UciMoveError::Illegal(s) => write!(f, "'{s}' is not a legal move"),
        }
    }
}

impl std::error::Error for UciMoveError {}

impl super::Position {
    /// Finds the legal move that UCI text names. Castling is accepted both
    /// as the king's two-square step (`e1g1`) and as king-takes-rook
    /// (`e1h1`), in standard chess and Chess960 alike; where a Chess960 king
    /// step is also an ordinary king move, the ordinary move is meant.
    pub fn parse_uci_move(&self, text: &str) -> Result<Move, UciMoveError> {
        let syntax = || UciMoveError::Syntax(text.chars().take(40).collect());
        let b = text.as_bytes();
        if !(b.len() == 4 || b.len() == 5) || !text.is_ascii() {
            return Err(syntax());
        }
        let from = Square::parse(&text[0..2]).ok_or_else(syntax)?;
        let to = Square::parse(&text[2..4]).ok_or_else(syntax)?;
        let promo = match b.get(4) {
            None => None,
            Some(&c) => match PieceType::from_letter(c as char) {
                Some(
                    p
                    @ (PieceType::Knight | PieceType::Bishop | PieceType::Rook | PieceType::Queen),
                ) if (c as char).is_ascii_lowercase() => Some(p),
                _ => return Err(syntax()),
            },
        };
        let legal = self.legal_moves();
        let plain = legal
            .iter()
            .find(|m| !m.is_castling() && m.from() == from && m.to() == to && m.promo() == promo);
        if let Some(&m) = plain {
            return Ok(m);
        }
        if promo.is_none() {
            let castle = legal.iter().find(|m| {
                m.is_castling() && m.from() == from && (m.to() == to || m.castling_king_to() == to)
            });
            if let Some(&m) = castle {
                return Ok(m);
            }
        }
        Err(UciMoveError::Illegal(text.to_string()))
    }
}
