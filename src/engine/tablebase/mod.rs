//! Syzygy endgame tablebases, read through the `shakmaty-syzygy` crate.
//!
//! This module only answers questions about positions: the WDL and DTZ
//! values of a position, and a ranking of the root moves by those values.
//! The search decides what to do with the answers (see `search::worker`,
//! the tablebase step, and `search::pool`, where the root is ranked).
//!
//! The crate works on its own position type, so each probe first builds one
//! from our bitboards (no FEN text in between): the six piece-type boards,
//! the two colour boards, the side to move, the en-passant square and the
//! halfmove clock. Positions with castling rights are never in the tables.
//!
//! # Why this crate
//!
//! The candidates on crates.io were `shakmaty-syzygy` (safe Rust by the
//! author of python-chess, the prober behind lichess.org's tablebase
//! server, shipped with a suite of known WDL and DTZ results,
//! GPL-3.0-or-later like Forsyth, released regularly), `pyrrhic-rs` (a
//! machine translation of the Pyrrhic C prober: process-wide mutable state,
//! much `unsafe`, one release) and `fathom-syzygy` (bindings to the Fathom
//! C library, a C compiler at build time, process-wide state, one release).
//! `shakmaty-syzygy` wins on correctness, on upkeep, and because its tables
//! are an ordinary value the search threads can share. Its cost is the
//! conversion above, which the crate checks (kings, checks) in a few attack
//! look-ups. Tables are memory-mapped (the crate's `mmap` feature), as
//! Stockfish does, because reading through the file system costs system
//! calls on every probe. A WDL probe, conversion included, takes about
//! 1.2 µs, a DTZ probe about 11 µs (the 200 positions of
//! `tests/data/syzygy/endgame.epd`, tables in memory).
//!
//! # Loading
//!
//! Setting `SyzygyPath` loads on the UCI thread: every folder (separated by
//! `:` on Unix, `;` on Windows) is listed and every `.rtbw`/`.rtbz` file in
//! it opened once (the crate maps it when first probed). A folder that
//! cannot be read, or a table that cannot be opened or whose size says it
//! is corrupt, is reported in one `info string error: SyzygyPath: ...` line
//! for all of them; the engine keeps the tables it could load and plays on.
//! Otherwise one line says how many files and up to how many pieces were
//! found. The tables live in the search pool, read-only while searching; a
//! running search keeps the tables it started with.
//!
//! # At the root
//!
//! When the root has at most `min(SyzygyProbeLimit, largest table)` pieces
//! and no castling rights, each root move (among `searchmoves`, if given) is
//! ranked by the DTZ of the position after it, counting the halfmove clock:
//! a win that zeroes the clock in time for the fifty-move rule, then a win
//! on the last possible ply (only the fastest moves), cursed wins (the
//! fastest first, in case the defence goes wrong), draws, blessed losses
//! (the longest first), losses. Only the moves of the best rank are
//! searched, so a won game stays won and is converted before the fifty-move
//! rule (all moves that zero in time are equal, so the search picks the
//! fastest mate among them, and the set narrows as the clock runs), a drawn
//! game stays drawn, and a lost one resists the longest. With
//! `Syzygy50MoveRule` off, cursed wins are wins and blessed losses losses.
//! Without DTZ tables the moves are ranked by WDL.
//!
//! The score reported is the result unless the search finds a mate: a win
//! is [`crate::engine::search::TB_WIN`] less the ply (printed as `cp 31871` and the
//! like, below every mate score, as Stockfish does; the normalisation of
//! evaluations leaves these alone), a draw (cursed wins and blessed losses
//! included, under the rule) is `cp 0`, a loss the negative; `UCI_ShowWDL`
//! then prints `wdl 1000 0 0`, `0 1000 0` or `0 0 1000`.
//!
//! # In the search
//!
//! A position just reached by a capture or a pawn move (halfmove clock 0,
//! so the clock does not matter), with at most `min(SyzygyProbeLimit,
//! largest table)` pieces, at remaining depth `SyzygyProbeDepth` or more,
//! is probed in the WDL tables: a win is a lower bound of `TB_WIN - ply`, a
//! loss an upper bound of its negative, a draw exact. When the bound
//! settles the node it is returned and stored in the transposition table
//! six plies deeper than searched; a PV node searches on within that bound.
//! When DTZ has ranked the root the search does not probe (the ranking
//! already keeps the result, and equal WDL scores in the tree would hide
//! the way to mate), nor when WDL ranked a root that is not won.
//!
//! `tbhits` in `info` lines counts the root moves ranked and the positions
//! probed.

#[cfg(test)]
mod tests;

use crate::engine::chess::{Color, Move, PieceType, Position};
use shakmaty::{Board, ByColor, ByRole, CastlingMode, Chess, FromSetup, PositionError, Setup};
use shakmaty_syzygy::Tablebase;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// A result with the fifty-move rule taken into account, from the point of
/// view of the side to move (the numbers are the Syzygy convention).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Wdl {
    Loss = -2,
    /// Lost, but saved by the fifty-move rule.
    BlessedLoss = -1,
    Draw = 0,
    /// Won, but drawn by the fifty-move rule.
    CursedWin = 1,
    Win = 2,
}

impl Wdl {
    pub fn from_i32(v: i32) -> Option<Wdl> {
        Some(match v {
            -2 => Wdl::Loss,
            -1 => Wdl::BlessedLoss,
            0 => Wdl::Draw,
            1 => Wdl::CursedWin,
            2 => Wdl::Win,
            _ => return None,
        })
    }

    pub fn negate(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::BlessedLoss => Wdl::CursedWin,
            Wdl::Draw => Wdl::Draw,
            Wdl::CursedWin => Wdl::BlessedLoss,
            Wdl::Win => Wdl::Loss,
        }
    }

    /// The result that counts: without the fifty-move rule a cursed win is
    /// a win and a blessed loss a loss; with it, both are draws.
    pub fn under_rule50(self, rule50: bool) -> Wdl {
        match (self, rule50) {
            (Wdl::CursedWin | Wdl::BlessedLoss, true) => Wdl::Draw,
            (Wdl::CursedWin, false) => Wdl::Win,
            (Wdl::BlessedLoss, false) => Wdl::Loss,
            (w, _) => w,
        }
    }
}

impl From<shakmaty_syzygy::Wdl> for Wdl {
    fn from(w: shakmaty_syzygy::Wdl) -> Wdl {
        match w {
            shakmaty_syzygy::Wdl::Loss => Wdl::Loss,
            shakmaty_syzygy::Wdl::BlessedLoss => Wdl::BlessedLoss,
            shakmaty_syzygy::Wdl::Draw => Wdl::Draw,
            shakmaty_syzygy::Wdl::CursedWin => Wdl::CursedWin,
            shakmaty_syzygy::Wdl::Win => Wdl::Win,
        }
    }
}

/// Why part of a `SyzygyPath` could not be used.
#[derive(Debug)]
pub enum LoadError {
    /// A folder that cannot be listed (missing, not a folder, no permission).
    Folder { path: PathBuf, error: io::Error },
    /// A table file that cannot be opened, or whose size says it is corrupt.
    File { path: PathBuf, error: io::Error },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Folder { path, error } => {
                write!(f, "cannot read folder '{}': {error}", path.display())
            }
            LoadError::File { path, error } => {
                write!(f, "cannot use table '{}': {error}", path.display())
            }
        }
    }
}

impl std::error::Error for LoadError {}

/// A root move with its rank: a higher rank is a better result (see
/// [`Tablebases::rank_root`]), and the result it keeps.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RankedMove {
    pub mv: Move,
    pub rank: i32,
    /// The result after this move as the side to move at the root sees it,
    /// fifty-move rule included when asked for.
    pub wdl: Wdl,
}

/// The root moves ranked by the tables.
#[derive(Clone, Debug)]
pub struct RootRanking {
    /// Best first; moves of equal rank keep the order they were given in.
    pub moves: Vec<RankedMove>,
    /// True when ranked by DTZ (the result under the fifty-move rule is
    /// then certain); false when only WDL tables were found.
    pub by_dtz: bool,
}

impl RootRanking {
    /// The moves that keep the best result: those of the best rank.
    pub fn best_moves(&self) -> impl Iterator<Item = &RankedMove> {
        let best = self.moves.first().map_or(0, |m| m.rank);
        self.moves.iter().take_while(move |m| m.rank == best)
    }

    /// The ranked entry of `mv`, if it was ranked.
    pub fn get(&self, mv: Move) -> Option<&RankedMove> {
        self.moves.iter().find(|m| m.mv == mv)
    }
}

/// Ranks, highest best. A win that zeroes the clock in time is worth the
/// same whichever move keeps it, so the search chooses among them (it finds
/// mates faster than DTZ-optimal play); a win that is only just in time must
/// go the shortest way; a cursed win tries the shortest way (the opponent
/// may go wrong); a blessed loss holds out the longest; lost moves are all
/// equal, and the search picks the longest mate.
const WIN_RANK: i32 = 3_000_000;
const CURSED_RANK: i32 = 1_000_000;

/// The fifty-move rule in plies.
const RULE50_PLIES: i32 = 100;

/// Loaded tables. Read-only after loading, shared by all search threads.
pub struct Tablebases {
    inner: Tablebase<Chess>,
    files: usize,
}

impl fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tablebases")
            .field("files", &self.files)
            .field("max_pieces", &self.max_pieces())
            .finish()
    }
}

impl Tablebases {
    /// Adds every table found in the folders of `spec` (separated by `:`
    /// on Unix and `;` on Windows, as the system separates `PATH`). Each
    /// folder or file that cannot be used is returned as an error; the
    /// tables that could be added are kept.
    pub fn load(spec: &str) -> (Tablebases, Vec<LoadError>) {
        // Safety: the mapped files are the user's table files, which nobody
        // writes while an engine uses them (Stockfish maps them too). Reads
        // through the file system instead cost a system call or more per
        // probe, which the search cannot afford.
        let mut inner = unsafe { Tablebase::with_mmap_filesystem() };
        let mut files = 0;
        let mut errors = Vec::new();
        for dir in std::env::split_paths(spec) {
            if dir.as_os_str().is_empty() {
                continue;
            }
            match add_folder(&mut inner, &dir, &mut errors) {
                Ok(n) => files += n,
                Err(error) => errors.push(LoadError::Folder { path: dir, error }),
            }
        }
        (Tablebases { inner, files }, errors)
    }

    /// The number of table files (WDL and DTZ) added.
    pub fn files(&self) -> usize {
        self.files
    }

    /// The most pieces (kings included) of any table added.
    pub fn max_pieces(&self) -> usize {
        self.inner.max_pieces()
    }

    /// The WDL value of a position reached by a capture or a pawn move, so
    /// that the halfmove clock is 0 (the search probes only there); `None`
    /// when the position is not in the tables. Needs only WDL tables.
    pub fn probe_wdl(&self, pos: &Position) -> Option<Wdl> {
        let chess = to_chess(pos)?;
        self.inner
            .probe_wdl_after_zeroing(&chess)
            .ok()
            .map(Wdl::from)
    }

    /// The DTZ value of a position: plies to the next capture or pawn move
    /// (or mate) with best play, positive when the side to move wins,
    /// beyond 100 for a cursed win; 0 for a draw. `None` when the position
    /// is not in the tables. Needs WDL and DTZ tables.
    pub fn probe_dtz(&self, pos: &Position) -> Option<i32> {
        let chess = to_chess(pos)?;
        self.inner
            .probe_dtz(&chess)
            .ok()
            .map(|d| d.ignore_rounding().0)
    }

    /// Ranks `moves` (legal moves of `pos`) by the result each keeps, with
    /// the fifty-move rule counted from `pos`'s halfmove clock when `rule50`
    /// is set. Uses DTZ tables when all the moves can be probed there,
    /// otherwise WDL tables; `None` when neither covers every move.
    pub fn rank_root(&self, pos: &Position, moves: &[Move], rule50: bool) -> Option<RootRanking> {
        if moves.is_empty() || to_chess(pos).is_none() {
            return None;
        }
        let (mut ranked, by_dtz) = match self.rank_by_dtz(pos, moves, rule50) {
            Some(r) => (r, true),
            None => (self.rank_by_wdl(pos, moves, rule50)?, false),
        };
        // Stable: equal ranks keep the caller's order.
        ranked.sort_by_key(|m| std::cmp::Reverse(m.rank));
        Some(RootRanking {
            moves: ranked,
            by_dtz,
        })
    }

    fn rank_by_dtz(&self, pos: &Position, moves: &[Move], rule50: bool) -> Option<Vec<RankedMove>> {
        let clock = pos.halfmove_clock() as i32;
        moves
            .iter()
            .map(|&mv| {
                let mut child = pos.clone();
                child.play(mv);
                // Our distance to zeroing after `mv`, counting `mv`.
                let dtz = if child.count_legal() == 0 {
                    i32::from(child.in_check())
                } else if child.halfmove_clock() == 0 {
                    // The move zeroes the clock: the child's WDL is all
                    // that matters, the count starts again from it.
                    match self.probe_wdl(&child)?.negate() {
                        Wdl::Win => 1,
                        Wdl::CursedWin => RULE50_PLIES + 1,
                        Wdl::Draw => 0,
                        Wdl::BlessedLoss => -(RULE50_PLIES + 1),
                        Wdl::Loss => -1,
                    }
                } else {
                    let d = self.probe_dtz(&child)?;
                    match d.signum() {
                        1 => -d - 1,
                        -1 => -d + 1,
                        _ => 0,
                    }
                };
                let (rank, wdl) = classify_dtz(dtz, clock, rule50);
                Some(RankedMove { mv, rank, wdl })
            })
            .collect()
    }

    fn rank_by_wdl(&self, pos: &Position, moves: &[Move], rule50: bool) -> Option<Vec<RankedMove>> {
        moves
            .iter()
            .map(|&mv| {
                let mut child = pos.clone();
                child.play(mv);
                let wdl = if child.count_legal() == 0 {
                    if child.in_check() {
                        Wdl::Win
                    } else {
                        Wdl::Draw
                    }
                } else {
                    // Without DTZ the clock cannot be followed: the child is
                    // valued as if the count started there.
                    self.probe_wdl(&child)?.negate()
                };
                let wdl = wdl.under_rule50(rule50);
                let rank = match wdl {
                    Wdl::Win => WIN_RANK,
                    Wdl::Loss => -WIN_RANK,
                    _ => 0,
                };
                Some(RankedMove { mv, rank, wdl })
            })
            .collect()
    }
}

/// The rank and result of a move whose distance to zeroing (counting the
/// move itself; positive when winning) is `dtz`, played when the halfmove
/// clock is `clock`: a win must zero the clock before it reaches 100.
fn classify_dtz(dtz: i32, clock: i32, rule50: bool) -> (i32, Wdl) {
    let in_time = dtz.abs() + clock <= RULE50_PLIES;
    if dtz > 0 {
        if !rule50 || dtz + clock < RULE50_PLIES {
            (WIN_RANK, Wdl::Win)
        } else if in_time {
            // Zeroing on the very last ply: only the shortest way is safe.
            (WIN_RANK - 1, Wdl::Win)
        } else {
            (CURSED_RANK - dtz, Wdl::CursedWin)
        }
    } else if dtz < 0 {
        if !rule50 || in_time {
            (-WIN_RANK, Wdl::Loss)
        } else {
            (-CURSED_RANK - dtz, Wdl::BlessedLoss)
        }
    } else {
        (0, Wdl::Draw)
    }
}

/// Adds the tables of one folder; returns how many. Files that are not
/// tables by name are skipped; tables that cannot be opened are errors.
fn add_folder(
    tb: &mut Tablebase<Chess>,
    dir: &Path,
    errors: &mut Vec<LoadError>,
) -> io::Result<usize> {
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        paths.push(entry?.path());
    }
    // A fixed order, so that the same folder always gives the same errors.
    paths.sort();
    let mut added = 0;
    for path in paths {
        let is_table = path.extension().is_some_and(|e| e == "rtbw" || e == "rtbz");
        if !is_table {
            continue;
        }
        // The crate opens files only when they are first probed; opening
        // each now reports an unreadable one here, once, rather than never.
        let checked = std::fs::File::open(&path).and_then(|_| tb.add_file(&path));
        match checked {
            Ok(()) => added += 1,
            // Named like a table but not one (e.g. `notes.rtbw`).
            Err(e) if e.kind() == io::ErrorKind::InvalidInput => {}
            Err(error) => errors.push(LoadError::File { path, error }),
        }
    }
    Ok(added)
}

/// Builds the crate's position from our bitboards; `None` with castling
/// rights (never in the tables) or if the crate refuses the position.
fn to_chess(pos: &Position) -> Option<Chess> {
    if pos.castling_rights() != 0 {
        return None;
    }
    let kind = |k: PieceType| shakmaty::Bitboard(pos.kind(k).0);
    let by_role = ByRole {
        pawn: kind(PieceType::Pawn),
        knight: kind(PieceType::Knight),
        bishop: kind(PieceType::Bishop),
        rook: kind(PieceType::Rook),
        queen: kind(PieceType::Queen),
        king: kind(PieceType::King),
    };
    let by_color = ByColor {
        white: shakmaty::Bitboard(pos.color(Color::White).0),
        black: shakmaty::Bitboard(pos.color(Color::Black).0),
    };
    let setup = Setup {
        board: Board::try_from_bitboards(by_role, by_color).ok()?,
        turn: match pos.side_to_move() {
            Color::White => shakmaty::Color::White,
            Color::Black => shakmaty::Color::Black,
        },
        ep_square: pos
            .ep_square()
            .map(|sq| shakmaty::Square::new(sq.index() as u32)),
        halfmoves: pos.halfmove_clock(),
        ..Setup::empty()
    };
    // Our FEN reader accepts some checks no game can reach; the tables
    // answer for them all the same.
    Chess::from_setup(setup, CastlingMode::Standard)
        .or_else(PositionError::ignore_impossible_check)
        .ok()
}
