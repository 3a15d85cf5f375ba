//! Training data: `forsyth datagen` record files, read whole into memory,
//! checked, filtered, split into training and validation sets by whole
//! games, and decoded into features batch by batch.
//!
//! The records are kept as their 32 bytes (see [`crate::datagen::format`]):
//! decoding one into features costs far less than training on it, and 30
//! million records take 1 GB this way instead of 2.
//!
//! Datagen writes a game's positions one after another and no game marker:
//! a new game starts where the fullmove number goes down or a piece
//! appears, which within one game never happens.

use crate::datagen::format::RECORD_BYTES;
use crate::nnue::INPUTS;
use std::fmt;
use std::path::PathBuf;

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
    /// Records read, games found, and records dropped as too early.
    pub read: u64,
    pub games: u64,
    pub dropped: u64,
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
}

/// Reads, checks and splits the files, in the order given.
pub fn load(files: &[PathBuf], opts: &DataOptions) -> Result<Dataset, DataError> {
    let mut set = Dataset {
        train: Vec::new(),
        validation: Vec::new(),
        read: 0,
        games: 0,
        dropped: 0,
    };
    let mut sample = Sample::with_capacity();
    'files: for path in files {
        let bytes = std::fs::read(path).map_err(|e| DataError::Io(path.clone(), e))?;
        if bytes.len() % RECORD_BYTES != 0 {
            return Err(DataError::Length(path.clone(), bytes.len() as u64));
        }
        let mut prev: Option<&Record> = None;
        for (i, chunk) in bytes.chunks_exact(RECORD_BYTES).enumerate() {
            if opts.max_records > 0 && set.read >= opts.max_records {
                break 'files;
            }
            let r: &Record = chunk
                .try_into()
                .map_err(|_| DataError::Record(path.clone(), i as u64, "short record".into()))?;
            decode(r, &mut sample).map_err(|why| DataError::Record(path.clone(), i as u64, why))?;
            set.read += 1;
            let new_game = match prev {
                None => true,
                Some(p) => fullmove(r) < fullmove(p) || pieces(r) > pieces(p),
            };
            if new_game {
                set.games += 1;
            }
            prev = Some(r);
            if ply(r) < opts.min_ply {
                set.dropped += 1;
                continue;
            }
            if opts.validation_every > 0 && set.games.is_multiple_of(opts.validation_every) {
                set.validation.push(*r);
            } else {
                set.train.push(*r);
            }
        }
    }
    if set.train.is_empty() {
        return Err(DataError::Empty(format!(
            "no training positions: {} records read, {} dropped as before ply {}",
            set.read, set.dropped, opts.min_ply
        )));
    }
    Ok(set)
}

/// A fingerprint of the training set, so that a checkpoint is resumed only
/// on the data it was made with.
pub fn fingerprint(records: &[Record]) -> u64 {
    let mut h = crate::nnue::network::fnv1a(&(records.len() as u64).to_le_bytes());
    let step = (records.len() / 4096).max(1);
    for r in records.iter().step_by(step) {
        h ^= crate::nnue::network::fnv1a(r);
        h = h.rotate_left(7).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    h
}
