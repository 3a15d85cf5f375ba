//! EPD, the Extended Position Description: the first four FEN fields
//! followed by operations, `opcode operand ...;`. Test suites (`bm`, `am`,
//! `dm`, `id`), analysis records (`ce`, `acd`, `pv`) and perft suites
//! (`;D1 20 ;D2 400`) are all EPD.
//!
//! Reading is liberal, as for FEN: a full six-field FEN may stand in for
//! the four fields, moves may be SAN or UCI, and the last `;` may be
//! missing. Operands are checked against the position when they are read
//! (a `bm` move must be legal, a `pv` must be playable, `dm` must be a
//! number), so that a bad line is reported once, with its reason, and code
//! that uses an [`Epd`] needs no error handling. Writing is exact: moves in
//! SAN, strings quoted, one space between parts.

mod parse;
mod write;

pub use write::position_epd;

use crate::engine::chess::fen::FenError;
use crate::engine::chess::{FenWarning, Move, Position};
use std::fmt;

/// One EPD record: the position (with `hmvc`/`fmvn` or the FEN counters
/// applied) and its operations in the order read.
#[derive(Clone, Debug)]
pub struct Epd {
    pub position: Position,
    /// Parts of the FEN that were dropped (see [`FenWarning`]).
    pub warnings: Vec<FenWarning>,
    pub ops: Vec<Operation>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operation {
    pub opcode: String,
    pub operands: Vec<Operand>,
}

/// An operand, typed by its opcode when the line was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A legal move: in the record's position for `bm`/`am`/`pm`/`sm`, in
    /// the position after the preceding moves for `pv`.
    Move(Move),
    /// The number of `acd`, `ce`, `dm`, `hmvc`, perft's `D<n>` and so on.
    Int(i64),
    /// A string: what was quoted, or any operand of `id` and `c0`-`c9`.
    Str(String),
    /// An unquoted operand of an opcode we give no meaning to, kept as is.
    Word(String),
}

/// Why an EPD line was refused.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum EpdError {
    /// Fewer than the four position fields.
    MissingFields(usize),
    Fen(FenError),
    /// A `"` without its closing `"`.
    UnterminatedString,
    /// An opcode must start with a letter and hold only letters, digits
    /// and `_`, at most 15 of them.
    BadOpcode(String),
    BadInteger {
        opcode: String,
        text: String,
    },
    BadMove {
        opcode: String,
        text: String,
        reason: String,
    },
    /// An opcode that takes one operand was given another number of them.
    OperandCount {
        opcode: String,
        found: usize,
    },
}

impl fmt::Display for EpdError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            EpdError::MissingFields(n) => {
                write!(f, "EPD needs the four position fields of a FEN, found {n}")
            }
            EpdError::Fen(e) => write!(f, "{e}"),
            EpdError::UnterminatedString => f.write_str("a quoted string is not closed"),
            EpdError::BadOpcode(s) => write!(
                f,
                "'{s}' is not an opcode (a letter, then letters, digits or '_', at most 15)"
            ),
            EpdError::BadInteger { opcode, text } => {
                write!(f, "{opcode}: '{text}' is not an integer")
            }
            EpdError::BadMove {
                opcode,
                text,
                reason,
            } => write!(f, "{opcode}: move '{text}': {reason}"),
            EpdError::OperandCount { opcode, found } => {
                write!(f, "{opcode} takes one operand, found {found}")
            }
        }
    }
}

impl std::error::Error for EpdError {}

impl From<FenError> for EpdError {
    fn from(e: FenError) -> Self {
        EpdError::Fen(e)
    }
}

impl Epd {
    /// Reads one EPD line (see the module documentation for what is accepted).
    pub fn parse(line: &str) -> Result<Epd, EpdError> {
        parse::parse(line)
    }

    /// A record with no operations.
    pub fn from_position(position: Position) -> Epd {
        Epd {
            position,
            warnings: Vec::new(),
            ops: Vec::new(),
        }
    }

    /// The first operation with this opcode.
    pub fn get(&self, opcode: &str) -> Option<&Operation> {
        self.ops.iter().find(|op| op.opcode == opcode)
    }

    /// Replaces the operation with the same opcode, or appends it.
    pub fn set(&mut self, op: Operation) {
        match self.ops.iter_mut().find(|o| o.opcode == op.opcode) {
            Some(old) => *old = op,
            None => self.ops.push(op),
        }
    }

    /// The moves of `bm`, `am`, `pv`... (empty when the opcode is absent).
    pub fn moves(&self, opcode: &str) -> Vec<Move> {
        self.get(opcode).map_or_else(Vec::new, |op| {
            op.operands
                .iter()
                .filter_map(|o| match o {
                    Operand::Move(m) => Some(*m),
                    _ => None,
                })
                .collect()
        })
    }

    /// The integer of `acd`, `ce`, `dm`...
    pub fn int(&self, opcode: &str) -> Option<i64> {
        match self.get(opcode)?.operands.first()? {
            Operand::Int(n) => Some(*n),
            _ => None,
        }
    }

    /// The operands of `id`, `c0`... joined by spaces.
    pub fn text(&self, opcode: &str) -> Option<String> {
        let op = self.get(opcode)?;
        let words: Vec<&str> = op
            .operands
            .iter()
            .filter_map(|o| match o {
                Operand::Str(s) | Operand::Word(s) => Some(s.as_str()),
                _ => None,
            })
            .collect();
        Some(words.join(" "))
    }

    pub fn id(&self) -> Option<String> {
        self.text("id")
    }

    /// Perft counts `D<depth> <leaves>`, in the order listed.
    pub fn perft_counts(&self) -> Vec<(u32, u64)> {
        self.ops
            .iter()
            .filter_map(|op| {
                let depth = op.opcode.strip_prefix('D')?.parse().ok()?;
                match op.operands.first()? {
                    Operand::Int(n) => Some((depth, u64::try_from(*n).ok()?)),
                    _ => None,
                }
            })
            .collect()
    }

    /// The moves of a variation as SAN, each in the position it is played in.
    pub fn san_line(position: &Position, moves: &[Move]) -> Vec<String> {
        let mut pos = position.clone();
        moves
            .iter()
            .map(|&m| {
                let san = pos.san(m);
                pos.play(m);
                san
            })
            .collect()
    }
}

/// How the operands of an opcode are read and written.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum OperandKind {
    /// Moves legal in the record's position.
    Moves,
    /// Moves played one after another (`pv`).
    Line,
    /// One integer.
    Int,
    /// Text: quoted or not, always written quoted.
    Text,
    /// Anything: kept as read.
    Other,
}

fn operand_kind(opcode: &str) -> OperandKind {
    match opcode {
        "bm" | "am" | "pm" | "sm" => OperandKind::Moves,
        "pv" => OperandKind::Line,
        "acd" | "acn" | "acs" | "ce" | "dm" | "hmvc" | "fmvn" | "rc" => OperandKind::Int,
        "id" | "eco" | "nic" | "tcgs" | "tcri" | "tcsi" => OperandKind::Text,
        _ if is_numbered(opcode, 'c') || is_numbered(opcode, 'v') => OperandKind::Text,
        // Perft suites: `D<depth> <leaf count>`.
        _ if opcode.len() > 1
            && opcode.starts_with('D')
            && opcode[1..].bytes().all(|b| b.is_ascii_digit()) =>
        {
            OperandKind::Int
        }
        _ => OperandKind::Other,
    }
}

/// `c0`..`c9`, `v0`..`v9`: comments and variation names.
fn is_numbered(opcode: &str, letter: char) -> bool {
    let mut chars = opcode.chars();
    chars.next() == Some(letter)
        && chars.next().is_some_and(|c| c.is_ascii_digit())
        && chars.next().is_none()
}
#[cfg(test)]
mod tests;
