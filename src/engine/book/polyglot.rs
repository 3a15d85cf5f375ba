//! The Polyglot book format: position keys, the 16-byte entry, and a reader
//! that finds a position's entries by binary search.
//!
//! ```text
//!  bytes 0..8   key     u64  the Polyglot hash of the position
//!  bytes 8..10  move    u16  to file | to row << 3 | from file << 6 |
//!                            from row << 9 | promotion << 12
//!                            (promotion 0 none, 1 N, 2 B, 3 R, 4 Q)
//!  bytes 10..12 weight  u16  how good the move is; choices are in proportion
//!  bytes 12..16 learn   u32  left for learning tools; we write 0
//! ```
//! Every number is big-endian; entries are sorted by key, several entries
//! per key. Castling is the king taking its own rook (`e1h1`), the same
//! convention as our internal move, which is why Chess960 needs nothing
//! special.

use super::BookError;
use crate::engine::chess::{Color, Move, PieceType, Position, Square, attacks};
use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{CastlingSide, Piece, Role};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The size of one entry in bytes.
pub const ENTRY_SIZE: usize = 16;

/// Books up to this size are read into memory when opened; larger ones stay
/// on disk and each probe reads only the few entries its search touches.
pub const MEMORY_LIMIT: u64 = 16 << 20;

/// How many entries of an on-disk book are checked for order when it is
/// opened (evenly spaced): enough to reject a file that is not a book at
/// all, without reading a large book through.
const SAMPLED_ENTRIES: u64 = 4096;

/// The Polyglot key of a position, from the format's 781 random numbers
/// ("Random64"), which shakmaty's 64-bit Zobrist values are.
///
/// The en-passant file enters the key when a pawn of the side to move stands
/// next to the pawn that has just advanced two squares, whether or not the
/// capture would be legal (a pinned pawn still counts): that is the format's
/// rule, and it differs from our own Zobrist key, which asks for a legal
/// capture.
pub fn key(pos: &Position) -> u64 {
    let color = |c: Color| match c {
        Color::White => shakmaty::Color::White,
        Color::Black => shakmaty::Color::Black,
    };
    let mut key = Zobrist64::default();
    for sq in Square::all() {
        if let Some(p) = pos.piece_at(sq) {
            key ^= Zobrist64::zobrist_for_piece(
                shakmaty::Square::new(sq.index() as u32),
                Piece {
                    color: color(p.color()),
                    role: Role::ALL[p.kind().index()],
                },
            );
        }
    }
    // Our castling bits: White short, White long, Black short, Black long.
    let rights = pos.castling_rights();
    for (bit, (c, side)) in [
        (Color::White, CastlingSide::KingSide),
        (Color::White, CastlingSide::QueenSide),
        (Color::Black, CastlingSide::KingSide),
        (Color::Black, CastlingSide::QueenSide),
    ]
    .into_iter()
    .enumerate()
    {
        if rights & (1 << bit) != 0 {
            key ^= Zobrist64::zobrist_for_castling_right(color(c), side);
        }
    }
    if let Some(ep) = pos.ep_square() {
        let us = pos.side_to_move();
        let capturers = attacks::pawn(us.flip(), ep) & pos.pieces(us, PieceType::Pawn);
        if capturers.any() {
            key ^=
                Zobrist64::zobrist_for_en_passant_file(shakmaty::File::new(u32::from(ep.file())));
        }
    }
    if pos.side_to_move() == Color::White {
        key ^= Zobrist64::zobrist_for_white_turn();
    }
    key.0
}

/// Whether the key cannot tell this position's castling rights apart: a
/// right is held by a rook that is not the outermost rook on its side of the
/// king (possible in Chess960 only). The format says such positions must not
/// be in a book, so they are neither written nor looked up.
pub fn ambiguous_castling(pos: &Position) -> bool {
    for color in Color::BOTH {
        let king = pos.king_square(color);
        let rooks = pos.pieces(color, PieceType::Rook);
        for kingside in [true, false] {
            let Some(rook) = pos.castling_rook(color, kingside) else {
                continue;
            };
            let outer = rooks.filter(|r| r.rank() == king.rank()).any(|r| {
                if kingside {
                    r.file() > rook.file()
                } else {
                    r.file() < rook.file()
                }
            });
            if outer {
                return true;
            }
        }
    }
    false
}

/// The Polyglot encoding of a move (castling already is king-takes-rook).
pub fn encode_move(m: Move) -> u16 {
    let (from, to) = (m.from(), m.to());
    let promo = m.promo().map_or(0, |p| p.index() as u16);
    to.file() as u16
        | (to.rank() as u16) << 3
        | (from.file() as u16) << 6
        | (from.rank() as u16) << 9
        | promo << 12
}

/// The legal move a Polyglot move names in `pos`, or `None` when it names
/// none (a corrupt entry, or a key collision with another position).
///
/// The legal moves are generated and matched, so whatever the file holds,
/// only a legal move comes out. Castling is read as the format writes it
/// (king takes rook); some books write the king's two-square step instead,
/// which is accepted where no other move matches.
pub fn decode_move(pos: &Position, raw: u16) -> Option<Move> {
    if raw == 0 {
        return None;
    }
    let square = |bits: u16| Square::from_coords((bits & 7) as u8, ((bits >> 3) & 7) as u8);
    let to = square(raw);
    let from = square(raw >> 6);
    let promo = match (raw >> 12) & 7 {
        0 => None,
        p @ 1..=4 => Some(PieceType::from_index(p as usize)),
        _ => return None,
    };
    let legal = pos.legal_moves();
    let exact = legal
        .iter()
        .find(|m| m.from() == from && m.to() == to && m.promo() == promo);
    if let Some(&m) = exact {
        return Some(m);
    }
    if promo.is_none() && from.file().abs_diff(to.file()) == 2 {
        return legal
            .iter()
            .find(|m| m.is_castling() && m.from() == from && m.castling_king_to() == to)
            .copied();
    }
    None
}

/// One 16-byte book entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub key: u64,
    pub mv: u16,
    pub weight: u16,
    pub learn: u32,
}

impl Entry {
    pub fn to_bytes(self) -> [u8; ENTRY_SIZE] {
        let mut b = [0u8; ENTRY_SIZE];
        b[0..8].copy_from_slice(&self.key.to_be_bytes());
        b[8..10].copy_from_slice(&self.mv.to_be_bytes());
        b[10..12].copy_from_slice(&self.weight.to_be_bytes());
        b[12..16].copy_from_slice(&self.learn.to_be_bytes());
        b
    }

    pub fn from_bytes(b: &[u8; ENTRY_SIZE]) -> Entry {
        let [
            k0,
            k1,
            k2,
            k3,
            k4,
            k5,
            k6,
            k7,
            m0,
            m1,
            w0,
            w1,
            l0,
            l1,
            l2,
            l3,
        ] = *b;
        Entry {
            key: u64::from_be_bytes([k0, k1, k2, k3, k4, k5, k6, k7]),
            mv: u16::from_be_bytes([m0, m1]),
            weight: u16::from_be_bytes([w0, w1]),
            learn: u32::from_be_bytes([l0, l1, l2, l3]),
        }
    }
}

/// Where the entries are.
enum Source {
    /// Built into the binary.
    Static(&'static [u8]),
    /// A small file, read whole.
    Memory(Vec<u8>),
    /// A large file, read entry by entry.
    File(File),
}

/// An open Polyglot book.
pub struct Reader {
    source: Source,
    len: u64,
    name: String,
}

impl Reader {
    /// A book held in memory for the life of the program (the default book).
    pub fn from_static(name: &str, bytes: &'static [u8]) -> Result<Reader, BookError> {
        let reader = Reader {
            len: check_size(name, bytes.len() as u64)?,
            source: Source::Static(bytes),
            name: name.to_string(),
        };
        reader.check_order(reader.len)?;
        Ok(reader)
    }

    /// Opens a book file, reading it into memory if it is small.
    pub fn open(path: &Path) -> Result<Reader, BookError> {
        Reader::open_with_limit(path, MEMORY_LIMIT)
    }

    /// [`Reader::open`] with the size above which the file stays on disk.
    pub fn open_with_limit(path: &Path, memory_limit: u64) -> Result<Reader, BookError> {
        let name = path.display().to_string();
        let io = |e: std::io::Error| BookError::Io {
            file: name.clone(),
            reason: e.to_string(),
        };
        let mut file = File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if meta.is_dir() {
            return Err(BookError::Io {
                file: name,
                reason: "is a directory".into(),
            });
        }
        let len = check_size(&name, meta.len())?;
        let (source, checked) = if meta.len() <= memory_limit {
            let mut bytes = Vec::with_capacity(meta.len() as usize);
            file.read_to_end(&mut bytes).map_err(io)?;
            // The file may have changed size since `metadata`.
            check_size(&name, bytes.len() as u64)?;
            (Source::Memory(bytes), len)
        } else {
            (Source::File(file), SAMPLED_ENTRIES.min(len))
        };
        let reader = Reader { len, source, name };
        reader.check_order(checked)?;
        Ok(reader)
    }

    /// The file name (or `<default>` for the built-in book).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The number of entries.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Entry `i` (below `len`).
    fn entry(&self, i: u64) -> Result<Entry, BookError> {
        let start = i * ENTRY_SIZE as u64;
        let mut buf = [0u8; ENTRY_SIZE];
        match &self.source {
            Source::Static(bytes) => copy_entry(bytes, start, &mut buf, &self.name)?,
            Source::Memory(bytes) => copy_entry(bytes, start, &mut buf, &self.name)?,
            Source::File(file) => {
                let mut f: &File = file;
                f.seek(SeekFrom::Start(start))
                    .and_then(|_| f.read_exact(&mut buf))
                    .map_err(|e| BookError::Io {
                        file: self.name.clone(),
                        reason: format!("reading entry {i}: {e}"),
                    })?;
            }
        }
        Ok(Entry::from_bytes(&buf))
    }

    /// Checks that `count` evenly spaced entries (all when `count == len`)
    /// are in key order.
    fn check_order(&self, count: u64) -> Result<(), BookError> {
        if count < 2 {
            return Ok(());
        }
        let step = ((self.len - 1) / (count - 1)).max(1);
        let mut prev = self.entry(0)?.key;
        let mut i = step;
        while i < self.len {
            let key = self.entry(i)?.key;
            if key < prev {
                return Err(BookError::Unsorted {
                    file: self.name.clone(),
                    entry: i,
                });
            }
            prev = key;
            i += step;
        }
        Ok(())
    }

    /// Every entry with this key, in file order.
    pub fn entries(&self, key: u64) -> Result<Vec<Entry>, BookError> {
        // The first entry whose key is not below `key`.
        let (mut lo, mut hi) = (0u64, self.len);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.entry(mid)?.key < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let mut found = Vec::new();
        while lo < self.len {
            let e = self.entry(lo)?;
            if e.key != key {
                break;
            }
            found.push(e);
            lo += 1;
        }
        Ok(found)
    }
}

/// The number of entries in a book of `bytes` bytes, or why it is no book.
fn check_size(name: &str, bytes: u64) -> Result<u64, BookError> {
    if bytes == 0 {
        return Err(BookError::Empty {
            file: name.to_string(),
        });
    }
    if !bytes.is_multiple_of(ENTRY_SIZE as u64) {
        return Err(BookError::BadSize {
            file: name.to_string(),
            bytes,
        });
    }
    Ok(bytes / ENTRY_SIZE as u64)
}

fn copy_entry(
    bytes: &[u8],
    start: u64,
    buf: &mut [u8; ENTRY_SIZE],
    name: &str,
) -> Result<(), BookError> {
    let slice = usize::try_from(start)
        .ok()
        .and_then(|s| bytes.get(s..s + ENTRY_SIZE))
        .ok_or_else(|| BookError::Io {
            file: name.to_string(),
            reason: format!("entry at byte {start} is past the end"),
        })?;
    buf.copy_from_slice(slice);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(moves: &[&str]) -> Position {
        let mut pos = Position::startpos();
        for m in moves {
            let mv = pos.parse_uci_move(m).unwrap();
            pos.play(mv);
        }
        pos
    }

    /// The test keys published with the format description.
    #[test]
    fn published_keys() {
        let cases: [(&[&str], u64); 9] = [
            (&[], 0x463b96181691fc9c),
            (&["e2e4"], 0x823c9b50fd114196),
            (&["e2e4", "d7d5"], 0x0756b94461c50fb0),
            (&["e2e4", "d7d5", "e4e5"], 0x662fafb965db29d4),
            (&["e2e4", "d7d5", "e4e5", "f7f5"], 0x22a48b5a8e47ff78),
            (
                &["e2e4", "d7d5", "e4e5", "f7f5", "e1e2"],
                0x652a607ca3f242c1,
            ),
            (
                &["e2e4", "d7d5", "e4e5", "f7f5", "e1e2", "e8f7"],
                0x00fdd303c946bdd9,
            ),
            (
                &["a2a4", "b7b5", "h2h4", "b5b4", "c2c4"],
                0x3c8123ea7b067637,
            ),
            (
                &["a2a4", "b7b5", "h2h4", "b5b4", "c2c4", "b4c3", "a1a3"],
                0x5c3f9b829b279560,
            ),
        ];
        for (moves, expected) in cases {
            assert_eq!(key(&after(moves)), expected, "after {moves:?}");
        }
        // The same positions given as FEN (as the description lists them).
        let (pos, _) =
            Position::from_fen("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3")
                .unwrap();
        assert_eq!(key(&pos), 0x22a48b5a8e47ff78);
    }

    #[test]
    fn en_passant_counts_only_with_a_neighbouring_pawn() {
        // After 1. e4 no black pawn can take: the square is not in the key.
        let with_square =
            Position::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1")
                .unwrap()
                .0;
        let without =
            Position::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
                .unwrap()
                .0;
        assert_eq!(key(&with_square), key(&without));
        // A capturer that may not take still counts (the format ignores
        // legality): after e2-e4, dxe3 would leave the black king on h4 open
        // to the rook on a4. Our own key leaves the square out.
        let mut pinned = Position::from_fen("8/8/8/8/R2p3k/8/4P3/K7 w - - 0 1")
            .unwrap()
            .0;
        pinned.play(pinned.parse_uci_move("e2e4").unwrap());
        let plain = Position::from_fen("8/8/8/8/R2pP2k/8/8/K7 b - - 0 1")
            .unwrap()
            .0;
        assert_eq!(pinned.key(), plain.key());
        assert_eq!(
            key(&pinned),
            key(&plain) ^ Zobrist64::zobrist_for_en_passant_file(shakmaty::File::E).0,
            "the e-file enters the Polyglot key"
        );
    }

    #[test]
    fn moves_round_trip() {
        // Castling both ways, a promotion with capture, en passant.
        let cases = [
            ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1h1", 0x0107),
            ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1a1", 0x0100),
            ("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8h8", 0x0f3f),
            ("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8a8", 0x0f38),
            ("1r5k/P7/8/8/8/8/8/K7 w - - 0 1", "a7b8n", 0x1c39),
            ("1r5k/P7/8/8/8/8/8/K7 w - - 0 1", "a7a8q", 0x4c38),
            ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "e5d6", 0x092b),
        ];
        for (fen, uci, raw) in cases {
            let pos = Position::from_fen(fen).unwrap().0;
            let m = pos.parse_uci_move(uci).unwrap();
            assert_eq!(encode_move(m), raw, "{uci} in {fen}");
            assert_eq!(decode_move(&pos, raw), Some(m), "{uci} in {fen}");
        }
        let pos = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
            .unwrap()
            .0;
        // e1g1 as some books write short castling.
        let castle = pos.parse_uci_move("e1h1").unwrap();
        assert!(castle.is_castling());
        assert_eq!(decode_move(&pos, 0x0106), Some(castle));
        // Illegal or meaningless moves are refused.
        assert_eq!(decode_move(&pos, 0), None);
        assert_eq!(decode_move(&pos, 0x0f3f), None); // e8h8: not White's move
        assert_eq!(decode_move(&pos, 0x7000 | 0x0107), None); // promotion code 7
    }

    #[test]
    fn chess960_castling_and_ambiguity() {
        // King b1, rooks a1 and h1 with both rights: outer rooks, fine.
        let pos = Position::from_fen("1k5r/8/8/8/8/8/8/RK5R w HA - 0 1")
            .unwrap()
            .0;
        assert!(!ambiguous_castling(&pos));
        let long = pos.parse_uci_move("b1a1").unwrap();
        assert!(long.is_castling());
        assert_eq!(decode_move(&pos, encode_move(long)), Some(long));
        // King e1 with the right on the f1 rook while h1 holds another rook.
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/4KR1R w F - 0 1")
            .unwrap()
            .0;
        assert!(ambiguous_castling(&pos));
        assert!(!ambiguous_castling(&Position::startpos()));
    }

    fn book_bytes(entries: &[Entry]) -> Vec<u8> {
        entries.iter().flat_map(|e| e.to_bytes()).collect()
    }

    fn sample_entries() -> Vec<Entry> {
        let mut v: Vec<Entry> = (0..1000u64)
            .flat_map(|k| {
                (0..(k % 3) as u16 + 1).map(move |j| Entry {
                    key: k * 7919,
                    mv: j + 1,
                    weight: 10 - j,
                    learn: 0,
                })
            })
            .collect();
        v.sort_by_key(|e| e.key);
        v
    }

    fn temp_file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let path = std::env::temp_dir().join(format!(
            "forsyth-polyglot-{}-{name}.bin",
            std::process::id()
        ));
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn finds_entries_in_memory_and_on_disk() {
        let entries = sample_entries();
        let bytes = book_bytes(&entries);
        let path = temp_file("lookup", &bytes);
        let in_memory = Reader::open(&path).unwrap();
        let on_disk = Reader::open_with_limit(&path, 0).unwrap();
        assert!(matches!(on_disk.source, Source::File(_)));
        for reader in [&in_memory, &on_disk] {
            assert_eq!(reader.len(), entries.len() as u64);
            for k in [0u64, 1, 2, 500, 998, 999] {
                let found = reader.entries(k * 7919).unwrap();
                let expected: Vec<Entry> = entries
                    .iter()
                    .copied()
                    .filter(|e| e.key == k * 7919)
                    .collect();
                assert_eq!(found, expected);
                assert_eq!(found.len() as u64, k % 3 + 1);
            }
            assert!(reader.entries(5).unwrap().is_empty());
            assert!(reader.entries(u64::MAX).unwrap().is_empty());
        }
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn corrupt_books_are_refused() {
        let entries = sample_entries();
        let mut bytes = book_bytes(&entries);
        bytes.pop();
        let path = temp_file("short", &bytes);
        assert!(matches!(
            Reader::open(&path),
            Err(BookError::BadSize { .. })
        ));
        let mut reversed = entries.clone();
        reversed.reverse();
        std::fs::write(&path, book_bytes(&reversed)).unwrap();
        assert!(matches!(
            Reader::open(&path),
            Err(BookError::Unsorted { .. })
        ));
        assert!(matches!(
            Reader::open_with_limit(&path, 0),
            Err(BookError::Unsorted { .. })
        ));
        std::fs::write(&path, b"").unwrap();
        assert!(matches!(Reader::open(&path), Err(BookError::Empty { .. })));
        std::fs::remove_file(&path).unwrap();
        let err = Reader::open(&path).err().unwrap();
        assert!(matches!(err, BookError::Io { .. }));
        assert!(err.to_string().contains(&path.display().to_string()));
    }
}
