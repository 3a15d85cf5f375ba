//! Standard Algebraic Notation: writing exactly, reading liberally
//! (`0-0`, missing or extra `x`, `=`, `+`, `#`, `!?`, a leading `P`).

use super::moves::{Move, MoveKind};
use super::position::Position;
use super::types::{PieceType, Square};
use std::fmt;

#[derive(Clone, PartialEq, Eq, Debug)]
pub enum SanError {
    Syntax(String),
    /// Well-formed, but no legal move matches.
    Illegal(String),
    /// Several legal moves match.
    Ambiguous(String),
}

impl fmt::Display for SanError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            SanError::Syntax(s) => write!(f, "'{s}' is not a move in SAN"),
            SanError::Illegal(s) => write!(f, "'{s}' is not a legal move here"),
            SanError::Ambiguous(s) => write!(f, "'{s}' matches more than one legal move"),
        }
    }
}

impl std::error::Error for SanError {}

impl Position {
    /// The SAN of a legal move, with `+` or `#`.
    pub fn san(&self, m: Move) -> String {
        let mut s = String::with_capacity(8);
        let Some(piece) = self.piece_at(m.from()) else {
            return "--".to_string();
        };
        if m.is_castling() {
            s.push_str(if m.to().file() > m.from().file() {
                "O-O"
            } else {
                "O-O-O"
            });
        } else {
            let kind = piece.kind();
            let capture = self.is_capture(m);
            if kind == PieceType::Pawn {
                if capture {
                    s.push(m.from().file_char());
                }
            } else {
                s.push(kind.letter().to_ascii_uppercase());
                // Disambiguate among same-kind pieces that can reach the square.
                let rivals: Vec<Square> = self
                    .legal_moves()
                    .iter()
                    .filter(|o| {
                        o.to() == m.to()
                            && o.from() != m.from()
                            && !o.is_castling()
                            && self.piece_at(o.from()).map(|p| p.kind()) == Some(kind)
                    })
                    .map(|o| o.from())
                    .collect();
                if !rivals.is_empty() {
                    let file_unique = rivals.iter().all(|r| r.file() != m.from().file());
                    let rank_unique = rivals.iter().all(|r| r.rank() != m.from().rank());
                    if file_unique {
                        s.push(m.from().file_char());
                    } else if rank_unique {
                        s.push(m.from().rank_char());
                    } else {
                        s.push_str(&m.from().to_string());
                    }
                }
            }
            if capture {
                s.push('x');
            }
            s.push_str(&m.to().to_string());
            if let Some(p) = m.promo() {
                s.push('=');
                s.push(p.letter().to_ascii_uppercase());
            }
        }
        let mut after = self.clone();
        after.play(m);
        if after.in_check() {
            s.push(if after.count_legal() == 0 { '#' } else { '+' });
        }
        s
    }

    /// Reads a move in SAN and finds the one legal move it names.
    pub fn parse_san(&self, text: &str) -> Result<Move, SanError> {
        let syntax = || SanError::Syntax(text.to_string());
        let core = text
            .trim()
            .trim_end_matches(['+', '#', '!', '?'])
            .trim_end_matches(" e.p.")
            .trim_end_matches("e.p.");
        if core.is_empty() {
            return Err(syntax());
        }
        let moves = self.legal_moves();
        let pick = |found: Vec<Move>| match found.len() {
            1 => Ok(found[0]),
            0 => Err(SanError::Illegal(text.to_string())),
            _ => Err(SanError::Ambiguous(text.to_string())),
        };

        let castle = match core {
            "O-O" | "0-0" | "o-o" => Some(true),
            "O-O-O" | "0-0-0" | "o-o-o" => Some(false),
            _ => None,
        };
        if let Some(kingside) = castle {
            let found = moves
                .iter()
                .copied()
                .filter(|m| m.is_castling() && (m.to().file() > m.from().file()) == kingside)
                .collect();
            return pick(found);
        }

        let mut chars: Vec<char> = core.chars().collect();
        // Promotion suffix: "=Q", "Q", "=q" or "q" after the destination.
        let mut promo = None;
        if let Some(&last) = chars.last() {
            if chars.len() >= 3
                && "NBRQnbrq".contains(last)
                && chars[chars.len() - 2].is_ascii_digit()
            {
                promo = PieceType::from_letter(last);
                chars.pop();
            } else if chars.len() >= 4 && "NBRQnbrq".contains(last) && chars[chars.len() - 2] == '='
            {
                promo = PieceType::from_letter(last);
                chars.truncate(chars.len() - 2);
            }
        }
        if chars.len() < 2 {
            return Err(syntax());
        }
        let dest: String = chars[chars.len() - 2..].iter().collect();
        let to = Square::parse(&dest).ok_or_else(syntax)?;
        let mut prefix = &chars[..chars.len() - 2];

        let mut kind = PieceType::Pawn;
        if let Some(&c) = prefix.first()
            && "NBRQKP".contains(c)
        {
            kind = PieceType::from_letter(c).ok_or_else(syntax)?;
            prefix = &prefix[1..];
        }
        let mut from_file = None;
        let mut from_rank = None;
        for &c in prefix {
            match c {
                'a'..='h' if from_file.is_none() && from_rank.is_none() => {
                    from_file = Some(c as u8 - b'a')
                }
                '1'..='8' if from_rank.is_none() => from_rank = Some(c as u8 - b'1'),
                'x' | ':' | '-' => {}
                _ => return Err(syntax()),
            }
        }
        if kind != PieceType::Pawn && promo.is_some() {
            return Err(syntax());
        }

        let found = moves
            .iter()
            .copied()
            .filter(|m| {
                m.to() == to
                    && m.kind() != MoveKind::Castling
                    && self.piece_at(m.from()).map(|p| p.kind()) == Some(kind)
                    && m.promo() == promo
                    && from_file.is_none_or(|f| m.from().file() == f)
                    && from_rank.is_none_or(|r| m.from().rank() == r)
            })
            .collect();
        pick(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).unwrap().0
    }

    #[test]
    fn writes_san() {
        let p = Position::startpos();
        let m = p.parse_san("Nf3").unwrap();
        assert_eq!(m.uci(false).to_string(), "g1f3");
        assert_eq!(p.san(m), "Nf3");
        // Disambiguation by file, by rank, and by both.
        let p = pos("6k1/8/8/8/8/8/4K3/R6R w - - 0 1");
        let m = p
            .legal_moves()
            .into_iter()
            .find(|m| m.uci(false).to_string() == "a1d1")
            .unwrap();
        assert_eq!(p.san(m), "Rad1");
        let p = pos("7k/8/8/8/R7/8/R7/4K3 w - - 0 1");
        let m = p
            .legal_moves()
            .into_iter()
            .find(|m| m.uci(false).to_string() == "a2a3")
            .unwrap();
        assert_eq!(p.san(m), "R2a3");
        let p = pos("7k/8/8/8/Q1Q5/8/Q7/4K3 w - - 0 1");
        let m = p
            .legal_moves()
            .into_iter()
            .find(|m| m.uci(false).to_string() == "a4b3")
            .unwrap();
        assert_eq!(p.san(m), "Qa4b3");
    }

    #[test]
    fn castling_promotion_mate() {
        let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        assert_eq!(p.san(p.parse_san("O-O").unwrap()), "O-O");
        assert_eq!(p.san(p.parse_san("0-0-0").unwrap()), "O-O-O");
        let p = pos("k7/4P3/1K6/8/8/8/8/8 w - - 0 1");
        let m = p.parse_san("e8=Q").unwrap();
        assert_eq!(p.san(m), "e8=Q#");
        assert_eq!(p.parse_san("e8Q#").unwrap(), m);
        assert_eq!(p.san(p.parse_san("e8=N").unwrap()), "e8=N");
        let p = pos("6k1/5ppp/8/8/8/8/8/R3K3 w Q - 0 1");
        assert_eq!(p.san(p.parse_san("Ra8").unwrap()), "Ra8#");
    }

    #[test]
    fn pawn_captures_and_errors() {
        let p = pos("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2");
        let m = p.parse_san("exd5").unwrap();
        assert_eq!(p.san(m), "exd5");
        assert_eq!(p.parse_san("ed5").unwrap(), m);
        assert!(matches!(p.parse_san("Qxd5"), Err(SanError::Illegal(_))));
        assert!(matches!(p.parse_san("Zz9"), Err(SanError::Syntax(_))));
        assert!(matches!(p.parse_san(""), Err(SanError::Syntax(_))));
        let p = pos("7k/8/8/8/R7/8/R7/4K3 w - - 0 1");
        assert!(matches!(p.parse_san("Ra3"), Err(SanError::Ambiguous(_))));
    }

    #[test]
    fn en_passant_san() {
        let p = pos("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
        let m = p.parse_san("exd6").unwrap();
        assert_eq!(m.kind(), MoveKind::EnPassant);
        assert_eq!(p.san(m), "exd6");
    }
}
