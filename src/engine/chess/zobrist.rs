//! Zobrist keys, generated at compile time by SplitMix64 from a fixed seed.

use super::types::{Piece, Square};

const fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

pub struct Keys {
    pub pieces: [[u64; 64]; 12],
    /// Indexed by the 4-bit castling-rights mask.
    pub castling: [u64; 16],
    pub en_passant: [u64; 8],
    pub black_to_move: u64,
}

const fn generate() -> Keys {
    let mut state = 0x466F_7273_7974_6821; // "Forsyth!"
    let mut keys = Keys {
        pieces: [[0; 64]; 12],
        castling: [0; 16],
        en_passant: [0; 8],
        black_to_move: 0,
    };
    let mut p = 0;
    while p < 12 {
        let mut s = 0;
        while s < 64 {
            keys.pieces[p][s] = splitmix(&mut state);
            s += 1;
        }
        p += 1;
    }
    // Castling keys are the XOR of one key per right, so that clearing a
    // right flips exactly that right's key whatever the others are.
    let single = [
        splitmix(&mut state),
        splitmix(&mut state),
        splitmix(&mut state),
        splitmix(&mut state),
    ];
    let mut mask = 0;
    while mask < 16 {
        let mut bit = 0;
        while bit < 4 {
            if mask & (1 << bit) != 0 {
                keys.castling[mask] ^= single[bit];
            }
            bit += 1;
        }
        mask += 1;
    }
    let mut f = 0;
    while f < 8 {
        keys.en_passant[f] = splitmix(&mut state);
        f += 1;
    }
    keys.black_to_move = splitmix(&mut state);
    keys
}

pub static KEYS: Keys = generate();

#[inline(always)]
pub fn piece(p: Piece, sq: Square) -> u64 {
    KEYS.pieces[p.index()][sq.index()]
}

#[inline(always)]
pub fn castling(rights: u8) -> u64 {
    KEYS.castling[rights as usize & 15]
}

#[inline(always)]
pub fn en_passant(file: u8) -> u64 {
    KEYS.en_passant[file as usize & 7]
}

#[inline(always)]
pub fn side() -> u64 {
    KEYS.black_to_move
}
