//! Forsyth–Edwards Notation: reading (liberal) and writing (exact).
//!
//! Reading happens in two steps, as the style guide asks: the text becomes a
//! [`Setup`] (syntax only), and [`Position::from_setup`] validates it into a
//! position, or says what is wrong with an [`FenError`]. Parts that GUIs send
//! but that cannot hold (a castling right without its rook, an en-passant
//! square no pawn can have made) are dropped with a [`FenWarning`].

use super::bitboard::Bitboard;
use super::position::{Position, castle_index};
use super::types::{Color, Piece, PieceType, Square};
use std::fmt;

pub const STARTPOS: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The six FEN fields, for naming where an error is.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum FenField {
    Placement,
    Side,
    Castling,
    EnPassant,
    Halfmove,
    Fullmove,
}

impl fmt::Display for FenField {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            FenField::Placement => "piece placement",
            FenField::Side => "side to move",
            FenField::Castling => "castling",
            FenField::EnPassant => "en passant",
            FenField::Halfmove => "halfmove clock",
            FenField::Fullmove => "fullmove number",
        })
    }
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub enum FenError {
    /// Fewer than 4 or more than 6 space-separated fields.
    FieldCount(usize),
    RankCount(usize),
    /// `rank` is the rank number 1..=8 as printed on a board.
    RankLength {
        rank: u8,
        squares: usize,
    },
    BadPieceLetter {
        rank: u8,
        letter: char,
    },
    BadDigit {
        rank: u8,
        digit: char,
    },
    KingCount {
        color: Color,
        count: u32,
    },
    TooManyPawns {
        color: Color,
        count: u32,
    },
    TooManyPieces {
        color: Color,
        count: u32,
    },
    PawnOnBackRank(Square),
    OpponentInCheck,
    TooManyCheckers(u32),
    BadSide(String),
    BadCastling {
        text: String,
        reason: &'static str,
    },
    BadEnPassant(String),
    BadCounter {
        field: FenField,
        text: String,
    },
}

impl FenError {
    /// The FEN field the error is in.
    pub fn field(&self) -> Option<FenField> {
        Some(match self {
            FenError::FieldCount(_) => return None,
            FenError::BadSide(_) => FenField::Side,
            FenError::BadCastling { .. } => FenField::Castling,
            FenError::BadEnPassant(_) => FenField::EnPassant,
            FenError::BadCounter { field, .. } => *field,
            _ => FenField::Placement,
        })
    }
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if let Some(field) = self.field() {
            write!(f, "FEN {field} field: ")?;
        }
        match self {
            FenError::FieldCount(n) => write!(f, "FEN needs 4 to 6 fields, found {n}"),
            FenError::RankCount(n) => write!(f, "expected 8 ranks, found {n}"),
            FenError::RankLength { rank, squares } => {
                write!(f, "rank {rank} describes {squares} squares instead of 8")
            }
            FenError::BadPieceLetter { rank, letter } => {
                write!(f, "unknown piece letter '{letter}' on rank {rank}")
            }
            FenError::BadDigit { rank, digit } => {
                write!(
                    f,
                    "digit '{digit}' on rank {rank} is not an empty-square count 1-8"
                )
            }
            FenError::KingCount { color, count } => {
                write!(f, "{} has {count} kings instead of one", color_name(*color))
            }
            FenError::TooManyPawns { color, count } => {
                write!(f, "{} has {count} pawns (at most 8)", color_name(*color))
            }
            FenError::TooManyPieces { color, count } => {
                write!(f, "{} has {count} pieces (at most 16)", color_name(*color))
            }
            FenError::PawnOnBackRank(sq) => write!(f, "pawn on {sq}, on the first or last rank"),
            FenError::OpponentInCheck => f.write_str("the side not to move is in check"),
            FenError::TooManyCheckers(n) => write!(f, "{n} pieces give check (at most 2)"),
            FenError::BadSide(s) => write!(f, "'{s}' is not 'w' or 'b'"),
            FenError::BadCastling { text, reason } => write!(f, "'{text}': {reason}"),
            FenError::BadEnPassant(s) => write!(f, "'{s}' is not '-' or a square such as 'e3'"),
            FenError::BadCounter { text, .. } => {
                write!(f, "'{text}' is not a non-negative integer")
            }
        }
    }
}

impl std::error::Error for FenError {}

/// A part of a FEN that was dropped because the position cannot support it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum FenWarning {
    CastlingDropped {
        letter: char,
        reason: &'static str,
    },
    EnPassantDropped {
        square: Square,
        reason: &'static str,
    },
}

impl fmt::Display for FenWarning {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            FenWarning::CastlingDropped { letter, reason } => {
                write!(f, "castling right '{letter}' dropped: {reason}")
            }
            FenWarning::EnPassantDropped { square, reason } => {
                write!(f, "en-passant square {square} dropped: {reason}")
            }
        }
    }
}

/// A FEN read for syntax only: not yet known to be a legal position.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Setup {
    pub board: [Option<Piece>; 64],
    pub side: Color,
    /// The castling letters as given (`K`, `Q`, `k`, `q` or file letters).
    pub castling: Vec<char>,
    pub ep: Option<Square>,
    pub halfmove: u32,
    pub fullmove: u32,
}

impl Setup {
    /// Reads 4 to 6 whitespace-separated fields; missing counters are `0 1`.
    pub fn parse(fen: &str) -> Result<Setup, FenError> {
        let fields: Vec<&str> = fen.split_ascii_whitespace().collect();
        if !(4..=6).contains(&fields.len()) {
            return Err(FenError::FieldCount(fields.len()));
        }
        let board = parse_placement(fields[0])?;
        let side = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(FenError::BadSide(other.to_string())),
        };
        let castling = parse_castling(fields[2])?;
        let ep = match fields[3] {
            "-" => None,
            s => Some(Square::parse(s).ok_or_else(|| FenError::BadEnPassant(s.to_string()))?),
        };
        let counter = |i: usize, field: FenField, default: u32| -> Result<u32, FenError> {
            match fields.get(i) {
                None => Ok(default),
                Some(s) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
                    s.parse().map_err(|_| FenError::BadCounter {
                        field,
                        text: s.to_string(),
                    })
                }
                Some(s) => Err(FenError::BadCounter {
                    field,
                    text: s.to_string(),
                }),
            }
        };
        let halfmove = counter(4, FenField::Halfmove, 0)?;
        // Move numbers start at 1; a 0 (seen in the wild) means the first move.
        let fullmove = counter(5, FenField::Fullmove, 1)?.max(1);
        Ok(Setup {
            board,
            side,
            castling,
            ep,
            halfmove,
            fullmove,
        })
    }
}

fn parse_placement(text: &str) -> Result<[Option<Piece>; 64], FenError> {
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != 8 {
        return Err(FenError::RankCount(ranks.len()));
    }
    let mut board = [None; 64];
    for (i, rank_text) in ranks.iter().enumerate() {
        let rank = 7 - i as u8;
        let rank_no = rank + 1;
        let mut file = 0usize;
        for c in rank_text.chars() {
            if let Some(d) = c.to_digit(10) {
                if !(1..=8).contains(&d) {
                    return Err(FenError::BadDigit {
                        rank: rank_no,
                        digit: c,
                    });
                }
                file += d as usize;
            } else {
                let piece = Piece::from_fen_char(c).ok_or(FenError::BadPieceLetter {
                    rank: rank_no,
                    letter: c,
                })?;
                if file < 8 {
                    board[Square::from_coords(file as u8, rank).index()] = Some(piece);
                }
                file += 1;
            }
            if file > 8 {
                // Keep counting for the message, but stop writing squares.
                continue;
            }
        }
        if file != 8 {
            return Err(FenError::RankLength {
                rank: rank_no,
                squares: file,
            });
        }
    }
    Ok(board)
}

fn parse_castling(text: &str) -> Result<Vec<char>, FenError> {
    let bad = |reason| FenError::BadCastling {
        text: text.to_string(),
        reason,
    };
    if text == "-" {
        return Ok(Vec::new());
    }
    let mut letters = Vec::new();
    for c in text.chars() {
        let ok = matches!(c, 'K' | 'Q' | 'k' | 'q' | 'A'..='H' | 'a'..='h');
        if !ok {
            return Err(bad("only '-', 'KQkq' or rook file letters are allowed"));
        }
        if letters.contains(&c) {
            return Err(bad("a letter is repeated"));
        }
        letters.push(c);
    }
    for upper in [true, false] {
        if letters
            .iter()
            .filter(|c| c.is_ascii_uppercase() == upper)
            .count()
            > 2
        {
            return Err(bad("a side cannot have more than two castling rights"));
        }
    }
    Ok(letters)
}

impl Position {
    /// Reads and validates a FEN (4 to 6 fields, X-FEN and Shredder-FEN castling).
    pub fn from_fen(fen: &str) -> Result<(Position, Vec<FenWarning>), FenError> {
        Position::from_setup(&Setup::parse(fen)?)
    }

    /// Validates a setup into a position.
    pub fn from_setup(setup: &Setup) -> Result<(Position, Vec<FenWarning>), FenError> {
        let mut pos = Position::empty();
        for sq in Square::all() {
            if let Some(p) = setup.board[sq.index()] {
                pos.put(p, sq);
            }
        }
        for color in Color::BOTH {
            let count = pos.pieces(color, PieceType::King).count();
            if count != 1 {
                return Err(FenError::KingCount { color, count });
            }
            let count = pos.pieces(color, PieceType::Pawn).count();
            if count > 8 {
                return Err(FenError::TooManyPawns { color, count });
            }
            let count = pos.color(color).count();
            if count > 16 {
                return Err(FenError::TooManyPieces { color, count });
            }
        }
        let back_pawns = pos.kind(PieceType::Pawn) & (Bitboard::RANK_1 | Bitboard::RANK_8);
        if let Some(sq) = back_pawns.into_iter().next() {
            return Err(FenError::PawnOnBackRank(sq));
        }
        pos.side = setup.side;
        let them = setup.side.flip();
        if pos.is_attacked(pos.king_square(them), setup.side, pos.occupied()) {
            return Err(FenError::OpponentInCheck);
        }
        let checkers =
            pos.attackers_to(pos.king_square(setup.side), pos.occupied()) & pos.color(them);
        if checkers.count() > 2 {
            return Err(FenError::TooManyCheckers(checkers.count()));
        }

        let mut warnings = Vec::new();
        for &letter in &setup.castling {
            if let Err(reason) = add_castling_right(&mut pos, letter) {
                warnings.push(FenWarning::CastlingDropped { letter, reason });
            }
        }
        if let Some(sq) = setup.ep {
            match check_ep_square(&pos, sq) {
                Ok(()) => pos.ep = Some(sq),
                Err(reason) => warnings.push(FenWarning::EnPassantDropped { square: sq, reason }),
            }
        }
        pos.halfmove = setup.halfmove;
        pos.fullmove = setup.fullmove;
        pos.finish_setup();
        Ok((pos, warnings))
    }

    /// Writes the position as FEN. Castling rights are `KQkq` where the rook
    /// is the outermost one on its side, its file letter otherwise (X-FEN),
    /// so standard positions come out in standard notation.
    pub fn fen(&self) -> String {
        self.fen_with(false)
    }

    /// Writes FEN with castling rights as rook file letters (`HAha`).
    pub fn fen_shredder(&self) -> String {
        self.fen_with(true)
    }

    fn fen_with(&self, shredder: bool) -> String {
        let mut s = String::with_capacity(90);
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match self.board[Square::from_coords(file, rank).index()] {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            s.push((b'0' + empty) as char);
                            empty = 0;
                        }
                        s.push(p.fen_char());
                    }
                }
            }
            if empty > 0 {
                s.push((b'0' + empty) as char);
            }
            if rank > 0 {
                s.push('/');
            }
        }
        s.push_str(if self.side == Color::White {
            " w "
        } else {
            " b "
        });
        let before = s.len();
        for color in Color::BOTH {
            for kingside in [true, false] {
                if let Some(rook) = self.castling_rook(color, kingside) {
                    let letter = if !shredder && self.is_outermost_rook(color, rook, kingside) {
                        if kingside { 'k' } else { 'q' }
                    } else {
                        rook.file_char()
                    };
                    s.push(match color {
                        Color::White => letter.to_ascii_uppercase(),
                        Color::Black => letter,
                    });
                }
            }
        }
        if s.len() == before {
            s.push('-');
        }
        s.push(' ');
        match self.ep {
            Some(sq) => s.push_str(&sq.to_string()),
            None => s.push('-'),
        }
        s.push_str(&format!(" {} {}", self.halfmove, self.fullmove));
        s
    }

    /// The same position with colours swapped and the board turned top to
    /// bottom: White's pieces become Black's on the mirrored squares.
    pub fn mirrored(&self) -> Position {
        let mut board = [None; 64];
        for sq in Square::all() {
            if let Some(p) = self.piece_at(sq) {
                board[sq.flip_rank().index()] = Some(Piece::new(p.color().flip(), p.kind()));
            }
        }
        let mut castling = Vec::new();
        for color in Color::BOTH {
            for kingside in [true, false] {
                if let Some(rook) = self.castling_rook(color, kingside) {
                    let c = rook.file_char();
                    castling.push(if color == Color::Black {
                        c.to_ascii_uppercase()
                    } else {
                        c
                    });
                }
            }
        }
        let setup = Setup {
            board,
            side: self.side.flip(),
            castling,
            ep: self.ep.map(Square::flip_rank),
            halfmove: self.halfmove,
            fullmove: self.fullmove,
        };
        match Position::from_setup(&setup) {
            Ok((pos, _)) => pos,
            Err(e) => unreachable!("the mirror of a valid position is valid: {e}"),
        }
    }

    /// The board as text art with the FEN, key and checkers (the `d` command).
    pub fn pretty(&self) -> String {
        let mut s = String::new();
        let border = " +---+---+---+---+---+---+---+---+\n";
        s.push_str(border);
        for rank in (0..8).rev() {
            s.push_str(" |");
            for file in 0..8 {
                let c = self
                    .piece_at(Square::from_coords(file, rank))
                    .map_or(' ', Piece::fen_char);
                s.push_str(&format!(" {c} |"));
            }
            s.push_str(&format!(" {}\n", rank + 1));
            s.push_str(border);
        }
        s.push_str("   a   b   c   d   e   f   g   h\n\n");
        s.push_str(&format!("Fen: {}\n", self.fen()));
        s.push_str(&format!("Key: {:016X}\n", self.key()));
        let checkers: Vec<String> = self.checkers().map(|sq| sq.to_string()).collect();
        s.push_str(&format!("Checkers: {}", checkers.join(" ")));
        s
    }

    /// No other rook of this colour stands beyond `rook` on its back rank.
    fn is_outermost_rook(&self, color: Color, rook: Square, kingside: bool) -> bool {
        let rooks = self.pieces(color, PieceType::Rook) & Bitboard::rank(rook.rank());
        let beyond = if kingside {
            Bitboard((!0u64 << rook.index()) << 1)
        } else {
            Bitboard((1u64 << rook.index()) - 1)
        };
        (rooks & beyond).is_empty()
    }
}

/// Resolves one castling letter against the board and records the right.
fn add_castling_right(pos: &mut Position, letter: char) -> Result<(), &'static str> {
    let color = if letter.is_ascii_uppercase() {
        Color::White
    } else {
        Color::Black
    };
    let back = color.relative_rank(0);
    let king = pos.king_square(color);
    if king.rank() != back {
        return Err("the king is not on its first rank");
    }
    let rooks = pos.pieces(color, PieceType::Rook) & Bitboard::rank(back);
    let rook = match letter.to_ascii_lowercase() {
        'k' => (king.file() + 1..8)
            .rev()
            .map(|f| Square::from_coords(f, back))
            .find(|&sq| rooks.has(sq))
            .ok_or("no rook on the king side of the king")?,
        'q' => (0..king.file())
            .map(|f| Square::from_coords(f, back))
            .find(|&sq| rooks.has(sq))
            .ok_or("no rook on the queen side of the king")?,
        c => {
            let sq = Square::from_coords(c as u8 - b'a', back);
            if !rooks.has(sq) {
                return Err("no rook of that colour on that file");
            }
            if sq.file() == king.file() {
                return Err("the rook is on the king's file");
            }
            sq
        }
    };
    let kingside = rook.file() > king.file();
    let i = castle_index(color, kingside);
    if pos.castling & (1 << i) != 0 {
        return Err("that side already has a castling right on this wing");
    }
    pos.castling |= 1 << i;
    pos.castle_rooks[i] = rook;
    Ok(())
}

/// Could a pawn of the side not to move just have stepped past `sq`?
fn check_ep_square(pos: &Position, sq: Square) -> Result<(), &'static str> {
    let us = pos.side;
    let them = us.flip();
    if sq.rank() != us.relative_rank(5) {
        return Err("wrong rank for the side to move");
    }
    let pawn_sq = sq.offset(them.forward());
    if pos.piece_at(pawn_sq) != Some(Piece::new(them, PieceType::Pawn)) {
        return Err("no pawn in front of it");
    }
    let origin = sq.offset(us.forward());
    if pos.piece_at(sq).is_some() || pos.piece_at(origin).is_some() {
        return Err("the squares the pawn passed are not empty");
    }
    Ok(())
}

#[cfg(test)]
mod tests;
