//! The evaluation network (NNUE): its architecture, the network file, the
//! accumulators the search updates move by move, and the forward pass.
//!
//! Architecture, written once in the constants below:
//!
//! ```text
//!  768 inputs, seen from each side        feature transformer    output
//!  (colour x piece x square; for Black  -> HIDDEN int16 neurons -> side to move's half,
//!   the board turned, colours swapped)     per perspective         then the other's,
//!                                                                  SCReLU, one neuron
//! ```
//!
//! A feature is "this piece of this colour stands on this square" as one
//! side sees it: from White's side the index is `piece * 64 + square`; from
//! Black's the colours are swapped and the board is turned top to bottom,
//! so both sides are read with one set of weights. The two accumulators
//! (one per perspective) are the feature transformer's outputs; the output
//! layer reads the side to move's first.
//!
//! Quantisation: feature weights and biases are multiplied by [`QA`] and
//! stored as i16, output weights by [`QB`] (i16, at most 127 in size so that
//! `(v * w) * v` stays exact in 16-bit lanes), the output bias by `QA * QB`
//! (i32). SCReLU clips each neuron to `[0, QA]` and squares it, so the sum is
//! in units of `QA * QA * QB`; one division by QA brings it to `QA * QB`, the
//! bias is added, and `* SCALE / (QA * QB)` gives centipawns. Every step is
//! integer arithmetic that cannot overflow (the loader checks the weights'
//! bounds), so the portable and the SIMD code give the same bits.
//!
//! The network is trained by `forsyth train` (`src/tools/train`) on the
//! engine's own self-play positions (`forsyth datagen`); the default file is
//! embedded in the binary, and `EvalFile` loads another one.

mod accumulator;
mod forward;
pub mod network;
mod simd;

pub use accumulator::{Accumulator, Delta, NnueStack};
pub use network::{Network, NetworkError};

use crate::engine::chess::{Color, Piece, Position, Square};
use std::sync::{Arc, LazyLock, RwLock};

/// Inputs per perspective: 2 colours x 6 piece types x 64 squares.
pub const INPUTS: usize = 768;
/// Neurons of the feature transformer, per perspective.
pub const HIDDEN: usize = 256;
/// Quantisation of the feature transformer (weights and biases).
pub const QA: i32 = 255;
/// Quantisation of the output weights.
pub const QB: i32 = 64;
/// The network's output unit in centipawns: a float output of 1.0 is SCALE.
pub const SCALE: i32 = 400;
/// The largest size of any weight in float units, kept by the trainer's
/// clipping: `1.98 * QB` rounds to at most 127 (see the module comment).
pub const WEIGHT_CLIP: f32 = 1.98;

/// The input index of `piece` on `sq` as `perspective` sees it.
#[inline(always)]
pub fn feature(perspective: Color, piece: Piece, sq: Square) -> usize {
    match perspective {
        Color::White => piece.index() * 64 + sq.index(),
        Color::Black => ((piece.index() + 6) % 12) * 64 + (sq.index() ^ 56),
    }
}

/// The network compiled into the binary (`net/forsyth.nnue`).
pub const EMBEDDED: &[u8] = include_bytes!("../../../net/forsyth.nnue");

static ACTIVE: LazyLock<RwLock<Arc<Network>>> = LazyLock::new(|| RwLock::new(Arc::new(embedded())));

/// The embedded network. The file is checked by a test, so this cannot
/// fail in a released binary; if it ever did, the engine says so once on
/// stderr and evaluates every position as equal rather than crash.
pub fn embedded() -> Network {
    match Network::from_bytes(EMBEDDED) {
        Ok(net) => net,
        Err(e) => {
            eprintln!("info string error: the embedded network is unusable: {e}");
            Network::zeroed()
        }
    }
}

/// The network searches use from now on (the embedded one until `EvalFile`
/// loads another).
pub fn active() -> Arc<Network> {
    match ACTIVE.read() {
        Ok(net) => Arc::clone(&net),
        Err(poisoned) => Arc::clone(&poisoned.into_inner()),
    }
}

/// Makes `net` the network of later searches (a running search keeps its own).
pub fn set_active(net: Arc<Network>) {
    match ACTIVE.write() {
        Ok(mut slot) => *slot = net,
        Err(poisoned) => *poisoned.into_inner() = net,
    }
}

/// The evaluation of `pos` in centipawns for the side to move, computed from
/// scratch with the active network (for callers outside the search).
pub fn evaluate(pos: &Position) -> i32 {
    let net = active();
    let acc = Accumulator::refresh(&net, pos);
    net.evaluate(&acc, pos)
}

/// The evaluation (side to move's) of `pos` with the piece on `sq` taken
/// off: its accumulator without that piece, and the output bucket of one
/// piece fewer.
fn without_piece(net: &Network, pos: &Position, sq: Square) -> i32 {
    let acc = Accumulator::refresh_without(net, pos, sq);
    let stm = pos.side_to_move();
    let bucket = net.bucket(pos.occupied().count() - 1);
    net.evaluate_bucket(&acc, stm, bucket)
}

#[cfg(test)]
mod tests;

/// The network's view of `pos` for the `eval` command: each piece's share
/// (the evaluation minus the evaluation without that piece, from White's
/// side, in pawns; kings have none), then the whole evaluation, raw and as
/// the search reports it.
pub fn trace(pos: &Position) -> String {
    let net = active();
    let stm = pos.side_to_move();
    let white = |cp: i32| if stm == Color::White { cp } else { -cp };
    let full = net.evaluate(&Accumulator::refresh(&net, pos), pos);
    let pawns = |cp: i32| format!("{:+.2}", f64::from(cp) / 100.0);
    let mut out = String::from(
        "NNUE piece values (White's side, pawns; the evaluation minus the evaluation without the piece):\n",
    );
    let border = " +-------+-------+-------+-------+-------+-------+-------+-------+\n";
    out.push_str(border);
    for rank in (0..8).rev() {
        let mut pieces = String::from(" |");
        let mut values = String::from(" |");
        for file in 0..8 {
            let sq = Square::from_coords(file, rank);
            match pos.piece_at(sq) {
                Some(p) => {
                    pieces.push_str(&format!("   {}   |", p.fen_char()));
                    if p.kind() == crate::engine::chess::PieceType::King {
                        values.push_str("       |");
                    } else {
                        let without = without_piece(&net, pos, sq);
                        values.push_str(&format!("{:^7}|", pawns(white(full - without))));
                    }
                }
                None => {
                    pieces.push_str("       |");
                    values.push_str("       |");
                }
            }
        }
        out.push_str(&format!("{pieces} {}\n{values}\n{border}", rank + 1));
    }
    out.push_str("     a       b       c       d       e       f       g       h\n\n");
    out.push_str(&format!(
        "Network {}, {:016x}\n",
        net.describe(),
        net.hash()
    ));
    out.push_str(&format!(
        "Reported in info lines as {:+.2} (normalised: +1.00 is a 50% chance to win)\n",
        f64::from(crate::engine::score::wdl::normalise(white(full))) / 100.0
    ));
    out.push_str(&format!(
        "Final evaluation: {} (White's side)",
        pawns(white(full))
    ));
    out
}
