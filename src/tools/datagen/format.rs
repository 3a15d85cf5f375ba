//! The training record: one position, its search score and the game's
//! result in 32 bytes, and readers for files of them.
//!
//! ```text
//!  byte  0 ..  8  occupancy, u64 little endian: bit i = square i (a1 = 0, h8 = 63)
//!  byte  8 .. 24  one 4-bit piece code per occupied square, in ascending
//!                 square order, low nibble first; unused nibbles are 0
//!                   bit 3     colour (0 White, 1 Black)
//!                   bits 0-2  0 pawn, 1 knight, 2 bishop, 3 rook, 4 queen,
//!                             5 king, 6 rook that still has a castling right
//!  byte 24        bit 7: Black to move; bits 0-6: en-passant square as the
//!                 position stores it (set after every double step), 64 = none
//!  byte 25        halfmove clock, saturating at 255
//!  byte 26 .. 28  fullmove number, u16 little endian, saturating
//!  byte 28 .. 30  score, i16 little endian, centipawns from White's point of view
//!  byte 30        result for White: 0 lost, 1 draw, 2 won
//!  byte 31        reserved, 0
//! ```
//!
//! Castling rights are carried by marking the rooks that may still castle
//! rather than by four flags, so Chess960 rights (any rook file) survive
//! without extra fields. A record is read back through the same validation
//! as a FEN ([`Position::from_setup`]): bytes that do not describe a legal
//! position are an error, never a panic.

use crate::engine::chess::{Color, FenError, Piece, PieceType, Position, Setup, Square};
use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;

/// Bytes per record.
pub const RECORD_BYTES: usize = 32;

/// The piece-code kind of a rook with a castling right (see the layout).
const CASTLING_ROOK: u8 = 6;
/// The en-passant field's value when there is no en-passant square.
const NO_EP: u8 = 64;

/// How the game ended, for White.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum GameResult {
    BlackWin = 0,
    Draw = 1,
    WhiteWin = 2,
}

impl GameResult {
    /// White's score as the text format writes it.
    pub fn as_text(self) -> &'static str {
        match self {
            GameResult::BlackWin => "0.0",
            GameResult::Draw => "0.5",
            GameResult::WhiteWin => "1.0",
        }
    }

    /// White's score: 0, 0.5 or 1.
    pub fn white_score(self) -> f32 {
        self as u8 as f32 / 2.0
    }

    fn from_byte(b: u8) -> Result<GameResult, FormatError> {
        match b {
            0 => Ok(GameResult::BlackWin),
            1 => Ok(GameResult::Draw),
            2 => Ok(GameResult::WhiteWin),
            other => Err(FormatError::BadResult(other)),
        }
    }
}

/// Why a record does not describe a position.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum FormatError {
    /// More occupied squares than the 32 piece codes a record holds.
    TooManyPieces(u32),
    /// A piece code with kind 7.
    BadPieceCode(u8),
    /// A nibble after the last occupied square's code is not 0.
    StrayPieceCode,
    BadEnPassant(u8),
    BadResult(u8),
    ZeroFullmove,
    ReservedByte(u8),
    /// The board or its castling rights are not a legal position.
    Position(FenError),
    /// A castling right or en-passant square that validation would drop.
    Dropped(String),
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            FormatError::TooManyPieces(n) => write!(f, "{n} occupied squares (at most 32)"),
            FormatError::BadPieceCode(c) => write!(f, "piece code {c} is not a piece"),
            FormatError::StrayPieceCode => f.write_str("piece code after the last piece"),
            FormatError::BadEnPassant(b) => write!(f, "en-passant field {b} is not a square"),
            FormatError::BadResult(b) => write!(f, "result byte {b} is not 0, 1 or 2"),
            FormatError::ZeroFullmove => f.write_str("fullmove number 0"),
            FormatError::ReservedByte(b) => write!(f, "reserved byte is {b}, not 0"),
            FormatError::Position(e) => write!(f, "not a legal position: {e}"),
            FormatError::Dropped(w) => write!(f, "inconsistent position: {w}"),
        }
    }
}

impl std::error::Error for FormatError {}

/// One record, as stored on disk.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct PackedPosition(pub [u8; RECORD_BYTES]);

impl PackedPosition {
    pub fn pack(pos: &Position, score_white: i16, result: GameResult) -> PackedPosition {
        let mut b = [0u8; RECORD_BYTES];
        let occupied = pos.occupied();
        b[0..8].copy_from_slice(&occupied.0.to_le_bytes());
        let castling_rooks: Vec<Square> = Color::BOTH
            .into_iter()
            .flat_map(|c| [true, false].map(|kingside| pos.castling_rook(c, kingside)))
            .flatten()
            .collect();
        for (i, sq) in occupied.enumerate() {
            let Some(piece) = pos.piece_at(sq) else {
                continue;
            };
            let kind = if castling_rooks.contains(&sq) {
                CASTLING_ROOK
            } else {
                piece.kind() as u8
            };
            let code = (piece.color() as u8) << 3 | kind;
            b[8 + i / 2] |= code << (4 * (i % 2));
        }
        let side = match pos.side_to_move() {
            Color::White => 0,
            Color::Black => 0x80,
        };
        b[24] = side | pos.ep_square().map_or(NO_EP, |sq| sq.index() as u8);
        b[25] = pos.halfmove_clock().min(255) as u8;
        let fullmove = pos.fullmove_number().min(u16::MAX as u32) as u16;
        b[26..28].copy_from_slice(&fullmove.to_le_bytes());
        b[28..30].copy_from_slice(&score_white.to_le_bytes());
        b[30] = result as u8;
        PackedPosition(b)
    }

    /// The search score, centipawns from White's point of view.
    pub fn score_white(&self) -> i16 {
        i16::from_le_bytes([self.0[28], self.0[29]])
    }

    /// The game's result for White (cheap: no position is built).
    pub fn result(&self) -> Result<GameResult, FormatError> {
        GameResult::from_byte(self.0[30])
    }

    /// The position, score and result; an error for bytes that are not a
    /// legal position.
    pub fn unpack(&self) -> Result<(Position, i16, GameResult), FormatError> {
        let b = &self.0;
        if b[31] != 0 {
            return Err(FormatError::ReservedByte(b[31]));
        }
        let result = self.result()?;
        let mut occ = [0u8; 8];
        occ.copy_from_slice(&b[0..8]);
        let occupied = u64::from_le_bytes(occ);
        let count = occupied.count_ones();
        if count > 32 {
            return Err(FormatError::TooManyPieces(count));
        }
        let nibble = |i: usize| (b[8 + i / 2] >> (4 * (i % 2))) & 15;
        if (count as usize..32).any(|i| nibble(i) != 0) {
            return Err(FormatError::StrayPieceCode);
        }

        let mut board = [None; 64];
        let mut castling = Vec::new();
        let mut rest = occupied;
        let mut i = 0;
        while rest != 0 {
            let sq = Square::new(rest.trailing_zeros() as u8);
            rest &= rest - 1;
            let code = nibble(i);
            i += 1;
            let color = if code & 8 == 0 {
                Color::White
            } else {
                Color::Black
            };
            let kind = match code & 7 {
                CASTLING_ROOK => {
                    let letter = sq.file_char();
                    castling.push(match color {
                        Color::White => letter.to_ascii_uppercase(),
                        Color::Black => letter,
                    });
                    PieceType::Rook
                }
                7 => return Err(FormatError::BadPieceCode(code)),
                k => PieceType::from_index(k as usize),
            };
            board[sq.index()] = Some(Piece::new(color, kind));
        }

        let side = if b[24] & 0x80 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let ep = match b[24] & 0x7f {
            NO_EP => None,
            s if s < 64 => Some(Square::new(s)),
            s => return Err(FormatError::BadEnPassant(s)),
        };
        let fullmove = u16::from_le_bytes([b[26], b[27]]) as u32;
        if fullmove == 0 {
            return Err(FormatError::ZeroFullmove);
        }
        let setup = Setup {
            board,
            side,
            castling,
            ep,
            halfmove: b[25] as u32,
            fullmove,
        };
        let (pos, warnings) = Position::from_setup(&setup).map_err(FormatError::Position)?;
        // What the writer packed always validates cleanly; a dropped part
        // means the bytes were damaged.
        if let Some(w) = warnings.first() {
            return Err(FormatError::Dropped(w.to_string()));
        }
        Ok((pos, self.score_white(), result))
    }

    /// The text form of the record: `FEN | score | result`.
    pub fn to_text(&self) -> Result<String, FormatError> {
        let (pos, score, result) = self.unpack()?;
        Ok(text_line(&pos, score, result))
    }
}

/// One line of the text format (without the newline).
pub fn text_line(pos: &Position, score_white: i16, result: GameResult) -> String {
    format!("{} | {score_white} | {}", pos.fen(), result.as_text())
}

/// Reads records one at a time from any reader (a trainer streams millions
/// of them this way without holding them all).
pub struct Records<R: Read> {
    reader: R,
    done: bool,
}

impl<R: Read> Records<R> {
    pub fn new(reader: R) -> Records<R> {
        Records {
            reader,
            done: false,
        }
    }

    /// Appends up to `max` records to `buf`; returns how many were read
    /// (0 at the end of the data).
    pub fn read_chunk(&mut self, buf: &mut Vec<PackedPosition>, max: usize) -> io::Result<usize> {
        let mut n = 0;
        while n < max {
            match self.next() {
                Some(Ok(rec)) => {
                    buf.push(rec);
                    n += 1;
                }
                Some(Err(e)) => return Err(e),
                None => break,
            }
        }
        Ok(n)
    }
}

impl<R: Read> Iterator for Records<R> {
    type Item = io::Result<PackedPosition>;

    fn next(&mut self) -> Option<io::Result<PackedPosition>> {
        if self.done {
            return None;
        }
        let mut rec = [0u8; RECORD_BYTES];
        let mut filled = 0;
        while filled < RECORD_BYTES {
            match self.reader.read(&mut rec[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
        match filled {
            0 => {
                self.done = true;
                None
            }
            RECORD_BYTES => Some(Ok(PackedPosition(rec))),
            n => {
                self.done = true;
                Some(Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("file ends inside a record ({n} of {RECORD_BYTES} bytes)"),
                )))
            }
        }
    }
}

/// Opens a record file for streaming.
pub fn open(path: &Path) -> io::Result<Records<BufReader<File>>> {
    Ok(Records::new(BufReader::with_capacity(
        1 << 16,
        File::open(path)?,
    )))
}

/// Reads a whole record file; an error if its length is not a multiple of
/// the record size.
pub fn read_file(path: &Path) -> io::Result<Vec<PackedPosition>> {
    let bytes = std::fs::read(path)?;
    if bytes.len() % RECORD_BYTES != 0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{}: {} bytes is not a whole number of {RECORD_BYTES}-byte records",
                path.display(),
                bytes.len()
            ),
        ));
    }
    Ok(bytes
        .chunks_exact(RECORD_BYTES)
        .map(|c| {
            let mut rec = [0u8; RECORD_BYTES];
            rec.copy_from_slice(c);
            PackedPosition(rec)
        })
        .collect())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A position from a FEN that must read without warnings (also for the
    /// game format's tests).
    pub(in crate::tools::datagen) fn position(fen: &str) -> Position {
        match Position::from_fen(fen) {
            Ok((pos, warnings)) if warnings.is_empty() => pos,
            Ok((_, warnings)) => panic!("{fen}: {warnings:?}"),
            Err(e) => panic!("{fen}: {e}"),
        }
    }

    fn round_trip(pos: &Position) {
        let rec = PackedPosition::pack(pos, -123, GameResult::Draw);
        let (back, score, result) = rec
            .unpack()
            .unwrap_or_else(|e| panic!("{}: {e}", pos.fen()));
        assert_eq!(back.fen(), pos.fen());
        assert_eq!(back.fen_shredder(), pos.fen_shredder());
        assert_eq!(back.key(), pos.key());
        assert_eq!((score, result), (-123, GameResult::Draw));
    }

    #[test]
    fn layout_of_the_start_position() {
        let rec = PackedPosition::pack(&Position::startpos(), 35, GameResult::WhiteWin);
        let b = rec.0;
        assert_eq!(
            u64::from_le_bytes(b[0..8].try_into().unwrap()),
            0xFFFF_0000_0000_FFFF
        );
        // a1 rook (may castle) then b1 knight; the last pair is g8 knight, h8 castling rook.
        assert_eq!(b[8], 0x16);
        assert_eq!(b[23], 0xE9);
        assert_eq!(b[24], NO_EP);
        assert_eq!((b[25], b[26], b[27]), (0, 1, 0));
        assert_eq!(i16::from_le_bytes([b[28], b[29]]), 35);
        assert_eq!((b[30], b[31]), (2, 0));
        assert_eq!(rec.score_white(), 35);
        assert_eq!(rec.result(), Ok(GameResult::WhiteWin));
    }

    #[test]
    fn en_passant_castling_and_counters_survive() {
        for fen in [
            "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3",
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w Kq - 7 40",
            "r3k2r/8/8/8/8/8/8/R3K2R b Qk - 99 300",
            "8/8/4k3/8/2KQ4/8/8/8 w - - 0 1",
            "4k3/8/8/8/8/8/8/4K3 b - - 12 60000",
            // Castling rook inside a pair of rooks (X-FEN letter).
            "1r2k1rr/8/8/8/8/8/8/RR2K2R w HBgb - 0 1",
        ] {
            round_trip(&position(fen));
        }
    }

    #[test]
    fn every_chess960_suite_position_survives() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/perft/chess960.epd");
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut n = 0;
        for line in text.lines() {
            let fen = line.split(';').next().unwrap_or("").trim();
            if fen.is_empty() {
                continue;
            }
            let pos = position(fen);
            round_trip(&pos);
            // And a few plies in, where castling rights and en passant change.
            let mut p = pos.clone();
            for _ in 0..6 {
                let moves = p.legal_moves();
                let Some(&m) = moves.get(n % moves.len().max(1)) else {
                    break;
                };
                p.play(m);
                round_trip(&p);
            }
            n += 1;
        }
        assert_eq!(n, 960);
    }

    #[test]
    fn large_counters_saturate() {
        let pos = position("4k3/8/8/8/8/8/8/4K3 w - - 300 70000");
        let (back, _, _) = PackedPosition::pack(&pos, 0, GameResult::Draw)
            .unpack()
            .unwrap();
        assert_eq!(back.halfmove_clock(), 255);
        assert_eq!(back.fullmove_number(), 65535);
    }

    #[test]
    fn corrupt_records_are_errors() {
        let good = PackedPosition::pack(&Position::startpos(), 0, GameResult::Draw);
        assert!(good.unpack().is_ok());
        let corrupt = |f: &dyn Fn(&mut [u8; 32])| {
            let mut b = good.0;
            f(&mut b);
            PackedPosition(b).unpack()
        };
        assert_eq!(corrupt(&|b| b[31] = 1), Err(FormatError::ReservedByte(1)));
        assert_eq!(corrupt(&|b| b[30] = 3), Err(FormatError::BadResult(3)));
        assert_eq!(corrupt(&|b| b[24] = 65), Err(FormatError::BadEnPassant(65)));
        assert_eq!(
            corrupt(&|b| b[26..28].copy_from_slice(&[0, 0])),
            Err(FormatError::ZeroFullmove)
        );
        assert_eq!(corrupt(&|b| b[8] = 0x17), Err(FormatError::BadPieceCode(7)));
        // A 33rd occupied square has no code.
        assert_eq!(
            corrupt(&|b| b[0..8].copy_from_slice(&u64::MAX.to_le_bytes())),
            Err(FormatError::TooManyPieces(64))
        );
        // One square fewer leaves a code behind the last piece.
        assert_eq!(corrupt(&|b| b[0] = 0xFE), Err(FormatError::StrayPieceCode));
        // Both kings turned into queens.
        assert!(matches!(
            corrupt(&|b| {
                b[10] = (b[10] & 0xF0) | 4;
                b[22] = (b[22] & 0xF0) | 0xC;
            }),
            Err(FormatError::Position(FenError::KingCount { .. }))
        ));
        // A double step that no pawn made.
        assert!(matches!(
            corrupt(&|b| b[24] = 20),
            Err(FormatError::Dropped(_))
        ));
        // Every single-bit flip is either an error or a legal position
        // that packs back to exactly the flipped bytes.
        let mut accepted = 0;
        for byte in 0..32 {
            for bit in 0..8 {
                let mut b = good.0;
                b[byte] ^= 1 << bit;
                if let Ok((pos, score, result)) = PackedPosition(b).unpack() {
                    assert_eq!(PackedPosition::pack(&pos, score, result).0, b);
                    accepted += 1;
                }
            }
        }
        // Score bits, some counter bits, a result bit: far from all 256.
        assert!((16..256).contains(&accepted), "{accepted}");
    }

    #[test]
    fn readers_agree_and_reject_a_torn_record() {
        let recs: Vec<PackedPosition> = (0..5)
            .map(|i| PackedPosition::pack(&Position::startpos(), i, GameResult::Draw))
            .collect();
        let bytes: Vec<u8> = recs.iter().flat_map(|r| r.0).collect();
        let streamed: Vec<PackedPosition> =
            Records::new(&bytes[..]).collect::<io::Result<_>>().unwrap();
        assert_eq!(streamed, recs);
        let mut chunked = Vec::new();
        let mut reader = Records::new(&bytes[..]);
        assert_eq!(reader.read_chunk(&mut chunked, 3).unwrap(), 3);
        assert_eq!(reader.read_chunk(&mut chunked, 3).unwrap(), 2);
        assert_eq!(reader.read_chunk(&mut chunked, 3).unwrap(), 0);
        assert_eq!(chunked, recs);
        let torn: Vec<io::Result<PackedPosition>> = Records::new(&bytes[..40]).collect();
        assert_eq!(torn.len(), 2);
        assert!(torn[1].is_err());
    }
}
