//! Training data: `forsyth datagen` files, read whole into memory,
//! checked, filtered, split into training and validation sets by whole
//! games, and decoded into features batch by batch.
//!
//! The split sees only the positions a record file holds, in their order,
//! so that a game file and the record file of the same positions (what
//! `datagen convert` writes, or a record run of the same seed) split alike
//! and train the same net with the same validation loss. It counts games
//! as record files show them, a new one where the fullmove number goes
//! down or a piece appears (see below), along the positions of each file
//! that the filters other than `min_ply` keep; a game whose number is a
//! multiple of `validation_every` (the first game is 1) is set aside. In a
//! game file the count can only fall behind the real games, when a game
//! starts later in the opening, with no more pieces, than the last one
//! ended: the two games then count as one.
//!
//! Two kinds of file are read, each plain or xz-compressed (a name ending
//! in `.xz` is decompressed while it is read):
//!
//! - game files ([`crate::tools::datagen::games`], viriformat): every ply of every
//!   game, each move replayed and checked. The filters of [`Filters`] pick
//!   the positions at load time: the opening's random plies (no score) are
//!   always dropped, then those before `min_ply`, in check, whose best move
//!   is a capture or a promotion, or with a mate score, as each filter is
//!   on (all are by default: what datagen's records kept). A game file that
//!   ends inside a game loses that game with a warning; another bad game is
//!   an error naming it, or with `skip_bad` a warning, the game dropped.
//! - record files ([`crate::tools::datagen::format`]): 32-byte positions that
//!   datagen already filtered for check, captures and promotions. Only
//!   `min_ply` and the mate filter apply to them. Datagen writes a game's
//!   positions one after another and no game marker: a new game starts
//!   where the fullmove number goes down or a piece appears, which within
//!   one game never happens.
//!
//! Which kind a file is comes from its contents ([`games::sniff`]): a
//! file whose first game reads cleanly is a game file, anything else is
//! read as records (and refused, naming the record, when it is not).
//!
//! The positions are kept as 32-byte records either way (see
//! [`crate::tools::datagen::format`]): decoding one into features costs far less
//! than training on it, and 30 million records take 1 GB this way instead
//! of 2. A game's position becomes exactly the record datagen's record
//! files hold for it, so the same positions train the same net from
//! either kind of file.

use crate::engine::nnue::INPUTS;
use crate::tools::datagen::format::{PackedPosition, RECORD_BYTES};
use crate::tools::datagen::games::{self, FileKind, GameError, GameReader, is_mate_score};
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// One record as stored.
pub type Record = [u8; RECORD_BYTES];

/// Why a data file cannot be used.
#[derive(Debug)]
pub enum DataError {
    Io(PathBuf, std::io::Error),
    /// The file's length is not a whole number of records.
    Length(PathBuf, u64),
    /// Record `index` of the file is not a position: (file, index, reason).
    Record(PathBuf, u64, String),
    /// A bad game in a game file (without `skip_bad`).
    Game(PathBuf, GameError),
    /// An `.xz` file that does not decompress.
    Xz(PathBuf, std::io::Error),
    /// No position is left for training (or for validation) after filtering.
    Empty(String),
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            DataError::Io(p, e) => write!(f, "cannot read {}: {e}", p.display()),
            DataError::Length(p, n) => write!(
                f,
                "{}: {n} bytes is not a whole number of {RECORD_BYTES}-byte records",
                p.display()
            ),
            DataError::Record(p, i, why) => write!(f, "{}: record {i}: {why}", p.display()),
            DataError::Game(p, e) => write!(f, "{}: {e}", p.display()),
            DataError::Xz(p, e) => write!(f, "{}: not a readable xz file: {e}", p.display()),
            DataError::Empty(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for DataError {}

/// A position as the trainer sees it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sample {
    /// Active features from the side to move's view, then the other's.
    pub stm: Vec<u16>,
    pub nstm: Vec<u16>,
    /// The search score for the side to move, centipawns.
    pub score: f32,
    /// The game's result for the side to move: 0, 0.5 or 1.
    pub result: f32,
}

impl Sample {
    pub fn with_capacity() -> Sample {
        Sample {
            stm: Vec::with_capacity(32),
            nstm: Vec::with_capacity(32),
            score: 0.0,
            result: 0.0,
        }
    }
}

impl Sample {
    /// The same position with files a-h turned round: a square's file is
    /// its index's low three bits.
    pub fn mirror(&mut self) {
        for f in self.stm.iter_mut().chain(self.nstm.iter_mut()) {
            *f ^= 7;
        }
    }
}

/// The ply of a record: 2 * (fullmove - 1), plus one with Black to move.
pub fn ply(r: &Record) -> u32 {
    let fullmove = u32::from(u16::from_le_bytes([r[26], r[27]]));
    2 * fullmove.saturating_sub(1) + u32::from(r[24] >> 7)
}

fn pieces(r: &Record) -> u32 {
    u64::from_le_bytes([r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]]).count_ones()
}

fn fullmove(r: &Record) -> u16 {
    u16::from_le_bytes([r[26], r[27]])
}

/// Decodes `r` into `out`. `Err` names what is wrong with the record; the
/// trainer checks every record this way when it loads them.
pub fn decode(r: &Record, out: &mut Sample) -> Result<(), String> {
    out.stm.clear();
    out.nstm.clear();
    let mut occ = u64::from_le_bytes([r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]]);
    let count = occ.count_ones() as usize;
    if count > 32 {
        return Err(format!("{count} occupied squares (at most 32)"));
    }
    let black_to_move = r[24] & 0x80 != 0;
    let mut kings = [0u32; 2];
    let mut i = 0;
    while occ != 0 {
        let sq = occ.trailing_zeros() as usize;
        occ &= occ - 1;
        let code = (r[8 + i / 2] >> (4 * (i % 2))) & 15;
        i += 1;
        let color = usize::from(code >> 3);
        let kind = match code & 7 {
            6 => 3, // a rook with a castling right
            7 => return Err(format!("piece code {code} is not a piece")),
            k => usize::from(k),
        };
        if kind == 5 {
            kings[color] += 1;
        }
        let piece = color * 6 + kind;
        let white_view = piece * 64 + sq;
        let black_view = ((piece + 6) % 12) * 64 + (sq ^ 56);
        debug_assert!(white_view < INPUTS && black_view < INPUTS);
        if black_to_move {
            out.stm.push(black_view as u16);
            out.nstm.push(white_view as u16);
        } else {
            out.stm.push(white_view as u16);
            out.nstm.push(black_view as u16);
        }
    }
    for j in count..32 {
        if (r[8 + j / 2] >> (4 * (j % 2))) & 15 != 0 {
            return Err("piece code after the last piece".into());
        }
    }
    if kings != [1, 1] {
        return Err(format!("{} white and {} black kings", kings[0], kings[1]));
    }
    let result = match r[30] {
        0 => 0.0,
        1 => 0.5,
        2 => 1.0,
        b => return Err(format!("result byte {b} is not 0, 1 or 2")),
    };
    let score = f32::from(i16::from_le_bytes([r[28], r[29]]));
    if black_to_move {
        out.score = -score;
        out.result = 1.0 - result;
    } else {
        out.score = score;
        out.result = result;
    }
    Ok(())
}

/// The positions to train and validate on.
pub struct Dataset {
    pub train: Vec<Record>,
    pub validation: Vec<Record>,
    /// Positions read (records, or plies of games), games found, and
    /// positions dropped, in all and by each filter.
    pub read: u64,
    pub games: u64,
    pub dropped: u64,
    pub drops: Drops,
    /// The split's count of games, and the last position it saw.
    split_games: u64,
    split_last: Option<Record>,
}

/// Positions dropped by each filter; a position counts under the first
/// filter, in this order, that drops it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Drops {
    /// The opening's random plies of game files (never searched).
    pub opening: u64,
    pub min_ply: u64,
    pub check: u64,
    pub tactical: u64,
    pub mate: u64,
    /// Bad games dropped (with `skip_bad`, or a truncated last game), and
    /// the plies they held.
    pub bad_games: u64,
    pub bad_plies: u64,
}

impl fmt::Display for Drops {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "dropped: {} opening plies, {} before --min-ply, {} in check, {} with a capture \
             or promotion as best move, {} mate scores; {} bad games ({} plies)",
            self.opening,
            self.min_ply,
            self.check,
            self.tactical,
            self.mate,
            self.bad_games,
            self.bad_plies
        )
    }
}

/// The load-time filters. The default is what datagen's record files kept
/// (all on); record files carry no moves, so only `skip_mates` applies to
/// them (their positions passed the others when they were written).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Filters {
    /// Drop positions whose side to move is in check.
    pub skip_check: bool,
    /// Drop positions whose best move (the one played) captures or promotes.
    pub skip_tactical: bool,
    /// Drop positions with a mate score.
    pub skip_mates: bool,
}

impl Default for Filters {
    fn default() -> Filters {
        Filters {
            skip_check: true,
            skip_tactical: true,
            skip_mates: true,
        }
    }
}

/// How to read the data.
#[derive(Clone, Debug)]
pub struct DataOptions {
    /// Positions before this ply are dropped (the opening's random moves
    /// and the first plies after them say little about evaluation).
    pub min_ply: u32,
    /// One game in this many goes to the validation set (0: none).
    pub validation_every: u64,
    /// Read at most this many records in all (0: no limit).
    pub max_records: u64,
    pub filters: Filters,
    /// Drop a bad game of a game file with a warning instead of stopping.
    pub skip_bad: bool,
}

impl Default for DataOptions {
    fn default() -> DataOptions {
        DataOptions {
            min_ply: 16,
            validation_every: 50,
            max_records: 0,
            filters: Filters::default(),
            skip_bad: false,
        }
    }
}

/// The whole contents of a data file, decompressed when its name ends in
/// `.xz`.
pub fn read_data_file(path: &Path) -> Result<Vec<u8>, DataError> {
    let raw = std::fs::read(path).map_err(|e| DataError::Io(path.to_path_buf(), e))?;
    if path.extension().is_some_and(|e| e == "xz") {
        let mut out = Vec::new();
        liblzma::read::XzDecoder::new_multi_decoder(&raw[..])
            .read_to_end(&mut out)
            .map_err(|e| DataError::Xz(path.to_path_buf(), e))?;
        Ok(out)
    } else {
        Ok(raw)
    }
}

/// Bytes of a file's start that decide its kind.
const SNIFF_BYTES: usize = 1 << 16;

/// Reads, checks and splits the files, in the order given.
pub fn load(files: &[PathBuf], opts: &DataOptions) -> Result<Dataset, DataError> {
    let mut set = Dataset {
        train: Vec::new(),
        validation: Vec::new(),
        read: 0,
        games: 0,
        dropped: 0,
        drops: Drops::default(),
        split_games: 0,
        split_last: None,
    };
    for path in files {
        let bytes = read_data_file(path)?;
        // A file begins a game.
        set.split_last = None;
        let full = match games::sniff(&bytes[..bytes.len().min(SNIFF_BYTES)]) {
            FileKind::Games => load_games(path, &bytes, opts, &mut set)?,
            FileKind::Records | FileKind::Unknown => load_records(path, &bytes, opts, &mut set)?,
        };
        if full {
            break;
        }
    }
    let d = &set.drops;
    set.dropped = d.opening + d.min_ply + d.check + d.tactical + d.mate;
    if set.train.is_empty() {
        return Err(DataError::Empty(format!(
            "no training positions: {} records read, {} dropped (--min-ply {}; {})",
            set.read, set.dropped, opts.min_ply, set.drops
        )));
    }
    Ok(set)
}

impl Dataset {
    /// Whether `max_records` positions have been read.
    fn full(&self, opts: &DataOptions) -> bool {
        opts.max_records > 0 && self.read >= opts.max_records
    }

    /// Counts `r`, the next position that the filters other than
    /// `min_ply` keep, for the split; true when it begins a game.
    fn split_see(&mut self, r: &Record) -> bool {
        let new_game = match &self.split_last {
            None => true,
            Some(p) => fullmove(r) < fullmove(p) || pieces(r) > pieces(p),
        };
        self.split_games += u64::from(new_game);
        self.split_last = Some(*r);
        new_game
    }

    /// A kept position, the last one [`Dataset::split_see`] counted.
    fn keep(&mut self, r: Record, opts: &DataOptions) {
        if opts.validation_every > 0 && self.split_games.is_multiple_of(opts.validation_every) {
            self.validation.push(r);
        } else {
            self.train.push(r);
        }
    }
}

/// Reads a record file into `set`; true when `max_records` is reached.
fn load_records(
    path: &Path,
    bytes: &[u8],
    opts: &DataOptions,
    set: &mut Dataset,
) -> Result<bool, DataError> {
    if !bytes.len().is_multiple_of(RECORD_BYTES) {
        return Err(DataError::Length(path.to_path_buf(), bytes.len() as u64));
    }
    let mut sample = Sample::with_capacity();
    for (i, chunk) in bytes.chunks_exact(RECORD_BYTES).enumerate() {
        if set.full(opts) {
            return Ok(true);
        }
        let r: &Record = chunk
            .try_into()
            .map_err(|_| DataError::Record(path.to_path_buf(), i as u64, "short record".into()))?;
        decode(r, &mut sample)
            .map_err(|why| DataError::Record(path.to_path_buf(), i as u64, why))?;
        set.read += 1;
        // Record files are already filtered for check and captures, and
        // hold no mate scores but those of older files: all count.
        if set.split_see(r) {
            set.games += 1;
        }
        if ply(r) < opts.min_ply {
            set.drops.min_ply += 1;
            continue;
        }
        if opts.filters.skip_mates && is_mate_score(i16::from_le_bytes([r[28], r[29]])) {
            set.drops.mate += 1;
            continue;
        }
        set.keep(*r, opts);
    }
    Ok(set.full(opts))
}

/// Reads a game file into `set`; true when `max_records` is reached.
fn load_games(
    path: &Path,
    bytes: &[u8],
    opts: &DataOptions,
    set: &mut Dataset,
) -> Result<bool, DataError> {
    let f = opts.filters;
    for item in GameReader::new(bytes) {
        if set.full(opts) {
            return Ok(true);
        }
        let game = match item {
            Ok(game) => game,
            Err(e) if e.is_truncation() || opts.skip_bad => {
                eprintln!(
                    "train: warning: {}: {e}; the game is dropped",
                    path.display()
                );
                set.drops.bad_games += 1;
                if let games::GameErrorKind::Truncated { plies } = e.kind {
                    set.drops.bad_plies += plies as u64;
                }
                continue;
            }
            Err(e) => return Err(DataError::Game(path.to_path_buf(), e)),
        };
        set.games += 1;
        let mut pos = game.start.clone();
        for (i, ply) in game.plies.iter().enumerate() {
            if set.full(opts) {
                return Ok(true);
            }
            set.read += 1;
            let filtered = if i < game.opening_plies as usize {
                Some(Filtered::Opening)
            } else if f.skip_check && pos.in_check() {
                Some(Filtered::Check)
            } else if f.skip_tactical && (pos.is_capture(ply.mv) || ply.mv.promo().is_some()) {
                Some(Filtered::Tactical)
            } else if f.skip_mates && is_mate_score(ply.score) {
                Some(Filtered::Mate)
            } else {
                None
            };
            let early = pos_ply(&pos) < opts.min_ply;
            let d = &mut set.drops;
            match (filtered, early) {
                (Some(Filtered::Opening), _) => d.opening += 1,
                (_, true) => d.min_ply += 1,
                (Some(Filtered::Check), _) => d.check += 1,
                (Some(Filtered::Tactical), _) => d.tactical += 1,
                (Some(Filtered::Mate), _) => d.mate += 1,
                (None, false) => {}
            }
            if filtered.is_none() {
                let r = PackedPosition::pack(&pos, ply.score, game.result).0;
                set.split_see(&r);
                if !early {
                    set.keep(r, opts);
                }
            }
            pos.play(ply.mv);
        }
    }
    Ok(set.full(opts))
}

/// Why a game file's ply is dropped, `min_ply` aside.
#[derive(Copy, Clone)]
enum Filtered {
    Opening,
    Check,
    Tactical,
    Mate,
}

/// The ply of a position, as [`ply`] reads it from its record.
fn pos_ply(pos: &crate::engine::chess::Position) -> u32 {
    let fullmove = pos.fullmove_number().min(u32::from(u16::MAX));
    2 * fullmove.saturating_sub(1)
        + u32::from(pos.side_to_move() == crate::engine::chess::Color::Black)
}

/// A fingerprint of the training set, so that a checkpoint is resumed only
/// on the data it was made with.
pub fn fingerprint(records: &[Record]) -> u64 {
    let mut h = crate::engine::nnue::network::fnv1a(&(records.len() as u64).to_le_bytes());
    let step = (records.len() / 4096).max(1);
    for r in records.iter().step_by(step) {
        h ^= crate::engine::nnue::network::fnv1a(r);
        h = h.rotate_left(7).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    h
}
