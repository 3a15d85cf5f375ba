//! Opening books in the Polyglot format: reading them and choosing a move.
//! Building them from PGN games is a tool's work (`forsyth book build`,
//! `src/tools/book_build.rs`).
//!
//! - [`polyglot`]: position keys (on shakmaty's Polyglot-compatible Zobrist
//!   values), move encoding, the entry, the reader.
//!
//! The default book is built from the opening lines in the repository's
//! `book/` folder (`make book`) and compiled into the binary, so the engine
//! finds it wherever the binary is copied.
//!
//! # Playing from a book
//!
//! With `OwnBook` on, `go` answers at once with `info string book move
//! <move>` and `bestmove <move>` when the position is in the book, the game
//! has had fewer plies than `Book Depth` (counted from the FEN's move
//! number), and the `go` is a game move on the clock: `wtime`/`btime` for
//! the side to move, or `movetime`. Analysis is always searched: `go
//! infinite`, `go ponder`, `depth`, `nodes`, `mate`, `searchmoves`, and a
//! bare `go`. Every book move is matched against the legal moves of the
//! position before it is played; castling is printed as `UCI_Chess960`
//! asks. `Book Variety` 0 plays the heaviest move; otherwise a move is drawn
//! with probability proportional to `weight^(100 / variety)`. `BookFile` is
//! opened when it is set: a missing or corrupt file (wrong size, entries out
//! of order) gives one `info string error: BookFile: ...` line, and searches
//! go on without a book.
//!
//! # The format
//!
//! A Polyglot book is a sequence of 16-byte big-endian entries (key u64,
//! move u16, weight u16, learn u32) sorted by key. The key is the format's
//! own Zobrist hash from its 781 published random numbers (shakmaty's
//! 64-bit Zobrist values, checked against the test keys of the format
//! description in `polyglot.rs`); unlike our internal
//! key, it includes the en-passant file whenever a pawn of the side to move
//! stands next to the pawn that just advanced two squares, legal capture or
//! not. Castling is stored as the king taking its own rook (`e1h1`), as our
//! moves are; books that write `e1g1` are read too. Entries are found by
//! binary search; books up to 16 MiB are read into memory, larger ones stay
//! on disk and a lookup reads only the entries it touches. Chess960
//! positions are looked up like any other, except those where a castling
//! right belongs to a rook that is not the outermost on its side, which the
//! key cannot express.
//!
//! # The default book
//!
//! The default book, `book/forsyth.bin`, is built by `make book` from about
//! 350 curated main lines in `book/*.pgn`, 6 to 10 moves deep, across the
//! usual openings. Each line ends with `*`, so a move's weight is the number
//! of lines that play it. `make book` uses `--strict`; a test checks that
//! the committed `forsyth.bin` is byte for byte what the sources build and
//! what the binary embeds. To change the book, edit `book/*.pgn`, run `make
//! book`, and commit the sources with the new `forsyth.bin`.

pub mod polyglot;

use crate::engine::chess::{Move, Position};
use polyglot::Reader;
use std::fmt;
use std::path::Path;

/// The default book, `book/forsyth.bin`, as built by `make book`.
pub static DEFAULT_BOOK: &[u8] = include_bytes!("../../../book/forsyth.bin");

/// The name the default book goes by in messages.
pub const DEFAULT_BOOK_NAME: &str = "<default book>";

/// Why a book cannot be used. Each names the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BookError {
    /// Opening or reading failed.
    Io { file: String, reason: String },
    /// A zero-length file.
    Empty { file: String },
    /// Not a whole number of 16-byte entries.
    BadSize { file: String, bytes: u64 },
    /// Entries out of key order, so lookups would miss: not a Polyglot book.
    Unsorted { file: String, entry: u64 },
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            BookError::Io { file, reason } => write!(f, "book '{file}': {reason}"),
            BookError::Empty { file } => write!(f, "book '{file}': the file is empty"),
            BookError::BadSize { file, bytes } => write!(
                f,
                "book '{file}': {bytes} bytes is not a whole number of 16-byte entries; \
                 not a Polyglot book"
            ),
            BookError::Unsorted { file, entry } => write!(
                f,
                "book '{file}': entry {entry} is out of key order; not a Polyglot book"
            ),
        }
    }
}

impl std::error::Error for BookError {}

/// A legal move found in a book, with its weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    pub mv: Move,
    pub weight: u16,
}

/// An open book.
pub struct Book {
    reader: Reader,
}

impl Book {
    /// The book built into the binary.
    pub fn default_book() -> Result<Book, BookError> {
        Ok(Book {
            reader: Reader::from_static(DEFAULT_BOOK_NAME, DEFAULT_BOOK)?,
        })
    }

    /// A Polyglot book file (read into memory if small, else read on demand).
    pub fn open(path: &Path) -> Result<Book, BookError> {
        Ok(Book {
            reader: Reader::open(path)?,
        })
    }

    pub fn name(&self) -> &str {
        self.reader.name()
    }

    /// The number of entries.
    pub fn len(&self) -> u64 {
        self.reader.len()
    }

    pub fn is_empty(&self) -> bool {
        self.reader.is_empty()
    }

    /// The book's legal moves for this position, heaviest first (file order
    /// among equal weights). Entries that name no legal move (corruption, or
    /// another position with the same key) are left out, and so are
    /// Chess960 positions whose castling rights the key cannot express.
    pub fn probe(&self, pos: &Position) -> Result<Vec<BookMove>, BookError> {
        if polyglot::ambiguous_castling(pos) {
            return Ok(Vec::new());
        }
        let mut moves: Vec<BookMove> = Vec::new();
        for e in self.reader.entries(polyglot::key(pos))? {
            if let Some(mv) = polyglot::decode_move(pos, e.mv) {
                // A move listed twice counts once, with its best weight.
                match moves.iter_mut().find(|b| b.mv == mv) {
                    Some(b) => b.weight = b.weight.max(e.weight),
                    None => moves.push(BookMove {
                        mv,
                        weight: e.weight,
                    }),
                }
            }
        }
        moves.sort_by_key(|b| std::cmp::Reverse(b.weight));
        Ok(moves)
    }
}

/// The highest `Book Variety`: choices in proportion to the weights.
pub const MAX_VARIETY: u32 = 100;

/// Chooses among book moves. Moves of weight 0 are never played (the
/// format's meaning of zero). `variety` 0 plays the heaviest move (the first
/// of equals, so the choice is repeatable); otherwise each move is chosen
/// with probability proportional to `weight ^ (100 / variety)`: at 100 in
/// proportion to the weights, and ever more towards the heaviest as the
/// variety falls.
pub fn choose(moves: &[BookMove], variety: u32, rng: &mut Rng) -> Option<Move> {
    let heaviest = moves
        .iter()
        .filter(|b| b.weight > 0)
        .fold(None::<BookMove>, |best, b| match best {
            Some(x) if x.weight >= b.weight => Some(x),
            _ => Some(*b),
        })?;
    if variety == 0 {
        return Some(heaviest.mv);
    }
    let power = f64::from(MAX_VARIETY) / f64::from(variety.min(MAX_VARIETY));
    // Relative to the heaviest, so that large powers cannot overflow.
    let top = f64::from(heaviest.weight);
    let shares: Vec<f64> = moves
        .iter()
        .map(|b| (f64::from(b.weight) / top).powf(power))
        .collect();
    let total: f64 = shares.iter().sum();
    let mut x = rng.unit() * total;
    for (b, share) in moves.iter().zip(&shares) {
        if b.weight > 0 && x < *share {
            return Some(b.mv);
        }
        x -= share;
    }
    Some(heaviest.mv)
}

pub use crate::engine::rng::Rng;

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(pos: &Position, list: &[(&str, u16)]) -> Vec<BookMove> {
        list.iter()
            .map(|&(m, weight)| BookMove {
                mv: pos.parse_uci_move(m).unwrap(),
                weight,
            })
            .collect()
    }

    #[test]
    fn variety_zero_plays_the_heaviest_every_time() {
        let pos = Position::startpos();
        let list = moves(&pos, &[("d2d4", 5), ("e2e4", 9), ("c2c4", 9), ("g1f3", 0)]);
        let e4 = pos.parse_uci_move("e2e4").unwrap();
        let mut rng = Rng::from_entropy();
        for _ in 0..100 {
            assert_eq!(choose(&list, 0, &mut rng), Some(e4));
        }
    }

    #[test]
    fn variety_follows_the_weights() {
        let pos = Position::startpos();
        let list = moves(&pos, &[("e2e4", 3), ("d2d4", 1), ("g1f3", 0)]);
        let e4 = list[0].mv;
        let nf3 = list[2].mv;
        let mut rng = Rng::new(42);
        let count = |variety: u32, rng: &mut Rng| {
            (0..4000)
                .filter(|_| {
                    let m = choose(&list, variety, rng);
                    assert_ne!(m, Some(nf3), "a zero weight is never played");
                    m == Some(e4)
                })
                .count()
        };
        // 100: in proportion, 3 to 1 (75 %).
        let at_100 = count(100, &mut rng);
        assert!((2800..3200).contains(&at_100), "{at_100}");
        // 50: squared weights, 9 to 1 (90 %).
        let at_50 = count(50, &mut rng);
        assert!((3450..3750).contains(&at_50), "{at_50}");
        // Nothing to choose from.
        let zero = moves(&pos, &[("e2e4", 0)]);
        assert_eq!(choose(&zero, 100, &mut rng), None);
        assert_eq!(choose(&[], 0, &mut rng), None);
    }

    #[test]
    fn the_default_book_opens_and_knows_the_start() {
        let book = Book::default_book().unwrap();
        assert!(book.len() > 100);
        let pos = Position::startpos();
        let found = book.probe(&pos).unwrap();
        assert!(found.len() >= 4, "{found:?}");
        for b in &found {
            assert!(pos.is_legal(b.mv));
        }
        assert!(found.windows(2).all(|w| w[0].weight >= w[1].weight));
    }
}
