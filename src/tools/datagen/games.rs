//! Self-play games as training data, in viriformat (the game format of
//! Viridithas, read by the bullet trainer): a packed start position, then
//! a 2-byte move and a 2-byte score per ply, then an end marker. A game of
//! 100 plies takes 32 + 400 + 4 bytes, about 4.4 bytes a ply, and every
//! ply is kept, so that the trainer, not the generator, decides which
//! positions to learn from.
//!
//! ```text
//!  one game:
//!  byte  0 .. 32   the start position as a 32-byte record (mod format):
//!                  board, side to move, en passant, clocks as there;
//!                    byte 28 .. 30  0 (no score for the start position)
//!                    byte 30        the game's result for White: 0 lost,
//!                                   1 draw, 2 won
//!                    byte 31        opening plies: how many of the first
//!                                   plies are the opening's random moves,
//!                                   not searched (their score is 0)
//!  then per ply, 4 bytes:
//!  byte  0 ..  2   the move played, u16 little endian:
//!                    bits  0-5   from square (a1 = 0, h8 = 63)
//!                    bits  6-11  to square; castling is king-takes-rook,
//!                                the rook's square, so Chess960 survives
//!                    bits 12-13  promotion piece: 0 knight, 1 bishop,
//!                                2 rook, 3 queen; 0 for other moves
//!                    bits 14-15  0 normal, 1 en passant, 2 castling,
//!                                3 promotion
//!  byte  2 ..  4   the search score of the position before the move, i16
//!                  little endian, centipawns from White's point of view;
//!                  |score| >= MATE_BOUND (31,872) marks a mate score
//!  end marker, 4 bytes: 0 0 0 0 (no move encodes to 0: from = to = a1)
//! ```
//!
//! A file is games back to back, nothing before or between them. The
//! start position's packing is the one `format.rs` documents, which is
//! marlinformat, the start of a viriformat game; the moves and the marker
//! are viriformat's. Byte 31 is free in viriformat (its readers pass it
//! through), so the count of random opening plies lives there, and readers
//! that do not know it see those plies as ordinary plies with score 0.
//! `tests/viriformat.rs` checks both directions against the `viriformat`
//! crate.
//!
//! Reading ([`GameReader`]) replays every move through our move generator:
//! a move is accepted only if it is the exact encoding of a legal move in
//! the position reached. Bad bytes are an error naming the game (counted
//! from 0) and the byte offset in the stream, never a panic; after one,
//! the reader resumes at the next end marker, so the caller decides
//! whether the games after it count. A file that ends inside a game gives
//! [`GameErrorKind::Truncated`] and then nothing more: the games before it
//! are whole.

use super::format::{FormatError, GameResult, PackedPosition, RECORD_BYTES};
use crate::engine::chess::{Move, MoveKind, Position};
use crate::engine::score::MATE_BOUND;
use std::fmt;
use std::io::{self, Read, Write};

/// Bytes per ply and for the end marker.
pub const PLY_BYTES: usize = 4;
/// The end marker.
const END: [u8; PLY_BYTES] = [0; PLY_BYTES];

/// One ply: the move played and the search score of the position it was
/// played in (White's point of view).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Ply {
    pub mv: Move,
    pub score: i16,
}

/// One game: where it started, how it ended, and every ply.
#[derive(Clone, Debug)]
pub struct Game {
    pub start: Position,
    pub result: GameResult,
    /// How many of the first plies are random opening moves (not searched,
    /// score 0).
    pub opening_plies: u8,
    pub plies: Vec<Ply>,
}

/// A search score as a game stores it: centipawn scores are kept below
/// the mate marker, mate scores at or beyond it (the search's own mate
/// scores, `MATE - plies`, fit in an i16).
pub fn stored_score(score_white: i32) -> i16 {
    score_white.clamp(-(i16::MAX as i32), i16::MAX as i32) as i16
}

/// Whether a stored score is a mate score.
pub fn is_mate_score(score: i16) -> bool {
    (score as i32).abs() >= MATE_BOUND
}

/// The 16 bits a move is stored as (see the layout).
pub fn encode_move(m: Move) -> u16 {
    let squares = m.from().index() as u16 | (m.to().index() as u16) << 6;
    match m.kind() {
        MoveKind::Normal => squares,
        MoveKind::EnPassant => squares | 1 << 14,
        MoveKind::Castling => squares | 2 << 14,
        MoveKind::Promotion => {
            let piece = m.promo().map_or(0, |p| p as u16 - 1);
            squares | piece << 12 | 3 << 14
        }
    }
}

/// The legal move of `pos` whose encoding is `bits`, if there is one.
pub fn decode_move(pos: &Position, bits: u16) -> Option<Move> {
    pos.legal_moves()
        .into_iter()
        .find(|&m| encode_move(m) == bits)
}

impl Game {
    pub fn new(start: Position, result: GameResult) -> Game {
        Game {
            start,
            result,
            opening_plies: 0,
            plies: Vec::new(),
        }
    }

    /// Bytes the game takes in a file.
    pub fn encoded_len(&self) -> usize {
        RECORD_BYTES + PLY_BYTES * (self.plies.len() + 1)
    }

    /// Appends the game's bytes to `out`. The moves are trusted to be
    /// legal in turn from the start position (the reader checks them).
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        let mut header = PackedPosition::pack(&self.start, 0, self.result).0;
        header[31] = self.opening_plies;
        out.extend_from_slice(&header);
        for ply in &self.plies {
            out.extend_from_slice(&encode_move(ply.mv).to_le_bytes());
            out.extend_from_slice(&ply.score.to_le_bytes());
        }
        out.extend_from_slice(&END);
    }

    pub fn write_to(&self, w: &mut impl Write) -> io::Result<()> {
        let mut bytes = Vec::with_capacity(self.encoded_len());
        self.encode_into(&mut bytes);
        w.write_all(&bytes)
    }

    /// Calls `f` with each ply's index, the position before it and the
    /// ply, in order.
    pub fn for_each_position(&self, mut f: impl FnMut(usize, &Position, Ply)) {
        let mut pos = self.start.clone();
        for (i, &ply) in self.plies.iter().enumerate() {
            f(i, &pos, ply);
            pos.play(ply.mv);
        }
    }

    /// The position after the last ply.
    pub fn end_position(&self) -> Position {
        let mut pos = self.start.clone();
        for ply in &self.plies {
            pos.play(ply.mv);
        }
        pos
    }
}

/// What is wrong with a game's bytes.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum GameErrorKind {
    /// The start position's 32 bytes are not a legal position.
    Start(FormatError),
    /// The opening-ply count is larger than the game.
    OpeningPlies { opening: u8, plies: usize },
    /// A move that is not legal where it is played (`fen`: the position).
    IllegalMove { ply: usize, bits: u16, fen: String },
    /// The data ends inside the game, after this many whole plies.
    Truncated { plies: usize },
    /// Reading failed.
    Io(String),
}

/// An error in game `game` (counted from 0) at byte `offset` of the data.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct GameError {
    pub game: u64,
    pub offset: u64,
    pub kind: GameErrorKind,
}

impl GameError {
    /// Whether this is the data ending inside the last game (a warning for
    /// the trainer: the games before it are whole).
    pub fn is_truncation(&self) -> bool {
        matches!(self.kind, GameErrorKind::Truncated { .. })
    }
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "game {} at byte {}: ", self.game, self.offset)?;
        match &self.kind {
            GameErrorKind::Start(e) => write!(f, "start position: {e}"),
            GameErrorKind::OpeningPlies { opening, plies } => {
                write!(f, "{opening} opening plies in a game of {plies}")
            }
            GameErrorKind::IllegalMove { ply, bits, fen } => {
                write!(
                    f,
                    "ply {ply}: move bits {bits:#06x} are not a legal move in {fen}"
                )
            }
            GameErrorKind::Truncated { plies } => {
                write!(f, "the data ends inside the game, after {plies} plies")
            }
            GameErrorKind::Io(e) => write!(f, "read error: {e}"),
        }
    }
}

impl std::error::Error for GameError {}

/// Reads games one at a time from any reader, checking every move.
pub struct GameReader<R: Read> {
    reader: R,
    /// Bytes consumed so far.
    offset: u64,
    /// The number of the next game.
    game: u64,
    done: bool,
}

/// How far a fill got.
enum Fill {
    Full,
    /// The data ended after this many bytes of the buffer.
    Short(usize),
}

impl<R: Read> GameReader<R> {
    pub fn new(reader: R) -> GameReader<R> {
        GameReader {
            reader,
            offset: 0,
            game: 0,
            done: false,
        }
    }

    /// Bytes read so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Games read so far, good and bad.
    pub fn games(&self) -> u64 {
        self.game
    }

    fn fill(&mut self, buf: &mut [u8]) -> io::Result<Fill> {
        let mut filled = 0;
        while filled < buf.len() {
            match self.reader.read(&mut buf[filled..]) {
                Ok(0) => {
                    self.offset += filled as u64;
                    return Ok(Fill::Short(filled));
                }
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.offset += filled as u64;
        Ok(Fill::Full)
    }

    fn error(&mut self, offset: u64, kind: GameErrorKind) -> GameError {
        GameError {
            game: self.game,
            offset,
            kind,
        }
    }

    /// Skips to just past the next end marker; the truncation or read
    /// error if the data ends or fails first (the reader is then done).
    fn skip_to_end_marker(&mut self) -> Result<(), GameError> {
        let mut ply = [0u8; PLY_BYTES];
        loop {
            let at = self.offset;
            match self.fill(&mut ply) {
                Ok(Fill::Full) if ply == END => return Ok(()),
                Ok(Fill::Full) => {}
                Ok(Fill::Short(_)) => {
                    self.done = true;
                    return Err(self.error(at, GameErrorKind::Truncated { plies: 0 }));
                }
                Err(e) => {
                    self.done = true;
                    return Err(self.error(at, GameErrorKind::Io(e.to_string())));
                }
            }
        }
    }

    fn read_game(&mut self) -> Option<Result<Game, GameError>> {
        let start_offset = self.offset;
        let mut header = [0u8; RECORD_BYTES];
        match self.fill(&mut header) {
            Ok(Fill::Full) => {}
            Ok(Fill::Short(0)) => {
                self.done = true;
                return None;
            }
            Ok(Fill::Short(_)) => {
                self.done = true;
                return Some(Err(
                    self.error(start_offset, GameErrorKind::Truncated { plies: 0 })
                ));
            }
            Err(e) => {
                self.done = true;
                return Some(Err(
                    self.error(start_offset, GameErrorKind::Io(e.to_string()))
                ));
            }
        }
        let opening_plies = header[31];
        header[31] = 0;
        // The start position has no score; viriformat writes 0 there.
        header[28] = 0;
        header[29] = 0;
        let (start, _, result) = match PackedPosition(header).unpack() {
            Ok(unpacked) => unpacked,
            Err(e) => {
                let err = self.error(start_offset, GameErrorKind::Start(e));
                return Some(self.skip_to_end_marker().map_or_else(Err, |()| Err(err)));
            }
        };
        let mut pos = start.clone();
        let mut plies = Vec::new();
        let mut bytes = [0u8; PLY_BYTES];
        loop {
            let at = self.offset;
            match self.fill(&mut bytes) {
                Ok(Fill::Full) => {}
                Ok(Fill::Short(_)) => {
                    self.done = true;
                    return Some(Err(self.error(
                        start_offset,
                        GameErrorKind::Truncated { plies: plies.len() },
                    )));
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(self.error(at, GameErrorKind::Io(e.to_string()))));
                }
            }
            if bytes == END {
                break;
            }
            let bits = u16::from_le_bytes([bytes[0], bytes[1]]);
            let score = i16::from_le_bytes([bytes[2], bytes[3]]);
            let Some(mv) = decode_move(&pos, bits) else {
                let err = self.error(
                    at,
                    GameErrorKind::IllegalMove {
                        ply: plies.len(),
                        bits,
                        fen: pos.fen(),
                    },
                );
                return Some(self.skip_to_end_marker().map_or_else(Err, |()| Err(err)));
            };
            pos.play(mv);
            plies.push(Ply { mv, score });
        }
        if opening_plies as usize > plies.len() {
            return Some(Err(self.error(
                start_offset + 31,
                GameErrorKind::OpeningPlies {
                    opening: opening_plies,
                    plies: plies.len(),
                },
            )));
        }
        Some(Ok(Game {
            start,
            result,
            opening_plies,
            plies,
        }))
    }
}

impl<R: Read> Iterator for GameReader<R> {
    type Item = Result<Game, GameError>;

    /// The next game, or the error in it. After an error in a game's start
    /// position or moves, the next call goes on with the game after it;
    /// after a truncation or a read error there is nothing more.
    fn next(&mut self) -> Option<Result<Game, GameError>> {
        if self.done {
            return None;
        }
        let item = self.read_game();
        if item.is_some() {
            self.game += 1;
        }
        item
    }
}

/// Encodes games back to back, as a file holds them.
pub fn encode_games(games: &[Game]) -> Vec<u8> {
    let mut out = Vec::with_capacity(games.iter().map(Game::encoded_len).sum());
    for game in games {
        game.encode_into(&mut out);
    }
    out
}

/// What a file of training data holds, judged from its first bytes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum FileKind {
    /// Games (this module).
    Games,
    /// 32-byte position records (`format.rs`).
    Records,
    /// Neither.
    Unknown,
}

/// Which kind of data `prefix` (the start of a file, a few kilobytes or
/// the whole file) begins with. Games when its first game reads cleanly
/// (or is cut off by the end of `prefix` after at least one legal ply);
/// otherwise records when its first 32 bytes are a legal record; else
/// Unknown (an empty prefix too). A record file almost never passes as
/// games: the next record's occupancy would have to read as legal moves
/// up to four zero bytes.
pub fn sniff(prefix: &[u8]) -> FileKind {
    if prefix.is_empty() {
        return FileKind::Unknown;
    }
    match GameReader::new(prefix).next() {
        Some(Ok(_)) => return FileKind::Games,
        Some(Err(e)) if matches!(e.kind, GameErrorKind::Truncated { plies } if plies > 0) => {
            return FileKind::Games;
        }
        _ => {}
    }
    if prefix.len() >= RECORD_BYTES {
        let mut rec = [0u8; RECORD_BYTES];
        rec.copy_from_slice(&prefix[..RECORD_BYTES]);
        if PackedPosition(rec).unpack().is_ok() {
            return FileKind::Records;
        }
    }
    FileKind::Unknown
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::chess::{PieceType, Square};
    use crate::tools::datagen::format::tests::position;

    /// The game of `uci` moves from `fen`, with scores 10, 20, ...
    fn game(fen: &str, uci: &[&str], result: GameResult) -> Game {
        let mut pos = position(fen);
        let mut g = Game::new(pos.clone(), result);
        for (i, text) in uci.iter().enumerate() {
            let mv = pos
                .legal_moves()
                .into_iter()
                .find(|m| m.uci(true).to_string() == *text || m.uci(false).to_string() == *text)
                .unwrap_or_else(|| panic!("{text} is not legal in {}", pos.fen()));
            pos.play(mv);
            g.plies.push(Ply {
                mv,
                score: 10 * (i as i16 + 1),
            });
        }
        g
    }

    fn read_all(bytes: &[u8]) -> Vec<Result<Game, GameError>> {
        GameReader::new(bytes).collect()
    }

    fn assert_same(a: &Game, b: &Game) {
        assert_eq!(a.start.fen_shredder(), b.start.fen_shredder());
        assert_eq!(a.result, b.result);
        assert_eq!(a.opening_plies, b.opening_plies);
        assert_eq!(a.plies, b.plies);
    }

    fn round_trip(g: &Game) -> Game {
        let bytes = encode_games(std::slice::from_ref(g));
        assert_eq!(bytes.len(), g.encoded_len());
        let mut read = read_all(&bytes);
        assert_eq!(read.len(), 1);
        let back = read.pop().unwrap().unwrap_or_else(|e| panic!("{e}"));
        assert_same(g, &back);
        back
    }

    #[test]
    fn layout_of_a_short_game() {
        let mut g = game(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            &["e2e4", "c7c5"],
            GameResult::WhiteWin,
        );
        g.opening_plies = 1;
        g.plies[1].score = -300;
        let bytes = encode_games(&[g]);
        assert_eq!(bytes.len(), 32 + 4 + 4 + 4);
        // The header is the 32-byte record with no score and byte 31 = 1.
        let start = PackedPosition::pack(&Position::startpos(), 0, GameResult::WhiteWin).0;
        assert_eq!(bytes[..31], start[..31]);
        assert_eq!(bytes[31], 1);
        // e2e4: from 12, to 28.
        assert_eq!(u16::from_le_bytes([bytes[32], bytes[33]]), 12 | 28 << 6);
        assert_eq!(i16::from_le_bytes([bytes[34], bytes[35]]), 10);
        // c7c5: from 50, to 34.
        assert_eq!(u16::from_le_bytes([bytes[36], bytes[37]]), 50 | 34 << 6);
        assert_eq!(i16::from_le_bytes([bytes[38], bytes[39]]), -300);
        assert_eq!(bytes[40..], [0, 0, 0, 0]);
    }

    #[test]
    fn move_encodings() {
        let sq = |s: &str| Square::parse(s).unwrap();
        assert_eq!(
            encode_move(Move::new(sq("e1"), sq("h1"), MoveKind::Castling)),
            4 | 7 << 6 | 0x8000
        );
        assert_eq!(
            encode_move(Move::new(sq("e5"), sq("d6"), MoveKind::EnPassant)),
            36 | 43 << 6 | 0x4000
        );
        assert_eq!(
            encode_move(Move::promotion(sq("b7"), sq("a8"), PieceType::Queen)),
            49 | 56 << 6 | 3 << 12 | 0xC000
        );
        assert_eq!(
            encode_move(Move::promotion(sq("b2"), sq("b1"), PieceType::Knight)),
            9 | 1 << 6 | 0xC000
        );
    }

    #[test]
    fn chess960_castling_is_king_takes_rook() {
        // Both sides castle both ways with the king on b1/b8 and rooks on
        // a and h: the queenside castling king does not move far, and the
        // kingside one crosses the board.
        let fen = "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1";
        let g = game(fen, &["b1a1", "b8h8"], GameResult::Draw);
        assert_eq!(g.plies[0].mv.kind(), MoveKind::Castling);
        assert_eq!(encode_move(g.plies[0].mv), 1 | 0x8000);
        assert_eq!(encode_move(g.plies[1].mv), 57 | 63 << 6 | 0x8000);
        let back = round_trip(&g);
        assert_eq!(
            back.end_position().fen_shredder(),
            "r4rk1/pppppppp/8/8/8/8/PPPPPPPP/2KR3R w - - 2 2"
        );
        // Inner rooks with the rights (X-FEN letters), outer rooks without.
        let g = game(
            "1r2k1rr/8/8/8/8/8/8/RR2K2R w HBgb - 0 1",
            &["e1b1", "e8g8"],
            GameResult::BlackWin,
        );
        let back = round_trip(&g);
        assert_eq!(
            back.end_position().fen_shredder(),
            "1r3rkr/8/8/8/8/8/8/R1KR3R w - - 2 2"
        );
    }

    #[test]
    fn en_passant_and_promotions_replay() {
        let g = game(
            "4k3/1P4p1/8/5P2/8/8/p7/4K3 b - - 0 1",
            &[
                "g7g5", "f5g6", "a2a1n", "b7b8r", "e8d7", "g6g7", "d7c6", "g7g8q",
            ],
            GameResult::WhiteWin,
        );
        assert_eq!(g.plies[1].mv.kind(), MoveKind::EnPassant);
        let back = round_trip(&g);
        assert_eq!(
            back.end_position().fen(),
            "1R4Q1/8/2k5/8/8/8/8/n3K3 b - - 0 5"
        );
        let mut kinds = Vec::new();
        back.for_each_position(|i, pos, ply| {
            kinds.push((i, pos.side_to_move(), ply.mv.promo()));
        });
        assert_eq!(kinds[2].2, Some(PieceType::Knight));
        assert_eq!(kinds[3].2, Some(PieceType::Rook));
        assert_eq!(kinds[7].2, Some(PieceType::Queen));
        assert_eq!(kinds.len(), 8);
    }

    #[test]
    fn several_games_and_an_empty_one() {
        let a = game(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            &["g1f3", "g8f6", "f3g1", "f6g8"],
            GameResult::Draw,
        );
        let b = Game::new(
            position("4k3/8/8/8/8/8/8/R3K3 b Q - 3 40"),
            GameResult::BlackWin,
        );
        let bytes = encode_games(&[a.clone(), b.clone(), a.clone()]);
        let read: Vec<Game> = GameReader::new(&bytes[..])
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read.len(), 3);
        assert_same(&read[0], &a);
        assert_same(&read[1], &b);
        assert_same(&read[2], &a);
        assert_eq!(read_all(&[]).len(), 0);
    }

    #[test]
    fn mate_scores_are_marked() {
        // The value the layout documents.
        assert_eq!(MATE_BOUND, 31_872);
        assert!(!is_mate_score(stored_score(MATE_BOUND - 1)));
        assert!(is_mate_score(stored_score(MATE_BOUND)));
        assert!(is_mate_score(stored_score(-31_990)));
        assert_eq!(stored_score(-31_990), -31_990);
        assert_eq!(stored_score(40_000), i16::MAX);
        assert_eq!(stored_score(-250), -250);
    }

    #[test]
    fn a_truncated_last_game_is_reported_and_the_rest_kept() {
        let a = game(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            &["d2d4", "d7d5", "c2c4"],
            GameResult::Draw,
        );
        let bytes = encode_games(&[a.clone(), a.clone()]);
        let one = a.encoded_len();
        // Cut inside the second game's third ply, inside its header, and
        // just before its end marker.
        for (cut, plies) in [(one + 32 + 9, 2), (one + 5, 0), (2 * one - 2, 3)] {
            let read = read_all(&bytes[..cut]);
            assert_eq!(read.len(), 2, "cut at {cut}");
            assert_same(read[0].as_ref().unwrap(), &a);
            let err = read[1].as_ref().unwrap_err();
            assert!(err.is_truncation());
            assert_eq!(
                err,
                &GameError {
                    game: 1,
                    offset: one as u64,
                    kind: GameErrorKind::Truncated { plies }
                }
            );
        }
    }

    #[test]
    fn an_illegal_move_names_the_game_and_offset_and_the_others_count() {
        let a = game(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            &["e2e4", "e7e5", "g1f3"],
            GameResult::WhiteWin,
        );
        let one = a.encoded_len();
        let mut bytes = encode_games(&[a.clone(), a.clone(), a.clone()]);
        // Game 1's third ply becomes e7e5 again, which White cannot play.
        let second = one + 32 + 4;
        bytes[second + 4..second + 6].copy_from_slice(&(52u16 | 36 << 6).to_le_bytes());
        let read = read_all(&bytes);
        assert_eq!(read.len(), 3);
        assert_same(read[0].as_ref().unwrap(), &a);
        assert_same(read[2].as_ref().unwrap(), &a);
        assert_eq!(
            read[1].as_ref().unwrap_err(),
            &GameError {
                game: 1,
                offset: (second + 4) as u64,
                kind: GameErrorKind::IllegalMove {
                    ply: 2,
                    bits: 52 | 36 << 6,
                    fen: "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2".into()
                }
            }
        );
        assert_eq!(
            read[1].as_ref().unwrap_err().to_string(),
            format!(
                "game 1 at byte {}: ply 2: move bits 0x0934 are not a legal move in \
                 rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2",
                second + 4
            )
        );
    }

    #[test]
    fn bad_start_positions_and_opening_counts_are_errors() {
        let a = game(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            &["e2e4"],
            GameResult::Draw,
        );
        let one = a.encoded_len();
        let mut bytes = encode_games(&[a.clone(), a.clone()]);
        bytes[30] = 7;
        let read = read_all(&bytes);
        assert_eq!(read.len(), 2);
        assert_eq!(
            read[0].as_ref().unwrap_err().kind,
            GameErrorKind::Start(FormatError::BadResult(7))
        );
        assert_same(read[1].as_ref().unwrap(), &a);
        bytes[30] = 1;
        bytes[one + 31] = 2;
        let read = read_all(&bytes);
        assert_same(read[0].as_ref().unwrap(), &a);
        assert_eq!(
            read[1].as_ref().unwrap_err(),
            &GameError {
                game: 1,
                offset: (one + 31) as u64,
                kind: GameErrorKind::OpeningPlies {
                    opening: 2,
                    plies: 1
                }
            }
        );
    }

    #[test]
    fn a_record_file_is_not_a_game_file() {
        let records: Vec<u8> = (0..4)
            .flat_map(|i| PackedPosition::pack(&Position::startpos(), i, GameResult::Draw).0)
            .collect();
        assert_eq!(sniff(&records), FileKind::Records);
        let read = read_all(&records);
        assert!(matches!(
            read[0].as_ref().unwrap_err().kind,
            GameErrorKind::IllegalMove { ply: 0, .. }
        ));
        let g = game(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            &["e2e4", "e7e5"],
            GameResult::Draw,
        );
        let games = encode_games(&[g]);
        assert_eq!(sniff(&games), FileKind::Games);
        assert_eq!(sniff(&games[..40]), FileKind::Games);
        assert_eq!(
            sniff(b"not training data at all, just some text"),
            FileKind::Unknown
        );
        assert_eq!(sniff(&[]), FileKind::Unknown);
    }

    #[test]
    fn every_bit_flip_is_read_or_refused_cleanly() {
        let a = game(
            "r3k2r/8/8/3pP3/8/8/1p6/R3K2R w KQkq d6 0 1",
            &["e5d6", "b2b1n", "e1h1", "e8a8"],
            GameResult::Draw,
        );
        let bytes = encode_games(&[a.clone(), a]);
        let (mut read, mut refused) = (0, 0);
        for byte in 0..bytes.len() {
            for bit in 0..8 {
                let mut b = bytes.clone();
                b[byte] ^= 1 << bit;
                crate::tools::fuzz::games(&b);
                match GameReader::new(&b[..]).collect::<Result<Vec<_>, _>>() {
                    Ok(_) => read += 1,
                    Err(_) => refused += 1,
                }
            }
        }
        assert_eq!(read + refused, 8 * bytes.len());
        // Read: the score bits (128 in the plies, 32 of the unused start
        // scores), counter bits and some result and opening-count bits.
        assert_eq!((read, refused), (226, 606));
    }
}
