//! Writing EPD exactly: the four position fields, then each operation as
//! `opcode operand ...;` with one space between parts, moves in SAN and
//! strings quoted.

use super::{Epd, Operand, OperandKind, operand_kind};
use crate::engine::chess::Position;
use std::fmt;

/// The first four fields of the position's FEN.
fn fields(pos: &Position) -> String {
    pos.fen().split(' ').take(4).collect::<Vec<_>>().join(" ")
}

/// The position alone as EPD, its counters as `hmvc` and `fmvn` (what the
/// UCI `d` command prints).
pub fn position_epd(pos: &Position) -> String {
    format!(
        "{} hmvc {}; fmvn {};",
        fields(pos),
        pos.halfmove_clock(),
        pos.fullmove_number()
    )
}

/// EPD has no escape for `"` inside a string: one there would end the
/// string early and corrupt the record, so it is written as `'`.
fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "'"))
}

impl fmt::Display for Epd {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&fields(&self.position))?;
        for op in &self.ops {
            write!(f, " {}", op.opcode)?;
            // `pv` moves are written in the position they are played in.
            let mut pos = self.position.clone();
            let line = operand_kind(&op.opcode) == OperandKind::Line;
            for operand in &op.operands {
                match operand {
                    Operand::Move(m) => {
                        write!(f, " {}", pos.san(*m))?;
                        if line {
                            pos.play(*m);
                        }
                    }
                    Operand::Int(n) => write!(f, " {n}")?,
                    Operand::Str(s) => write!(f, " {}", quoted(s))?,
                    Operand::Word(w) => write!(f, " {w}")?,
                }
            }
            f.write_str(";")?;
        }
        Ok(())
    }
}
