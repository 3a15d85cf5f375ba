//! Square sets the evaluation asks about, computed at compile time.

use crate::chess::{Bitboard, Color, Square};

pub const QUEENSIDE: Bitboard = Bitboard(0x0F0F_0F0F_0F0F_0F0F);
pub const KINGSIDE: Bitboard = Bitboard(0xF0F0_F0F0_F0F0_F0F0);

/// The files beside `file`.
pub const fn adjacent_files(file: u8) -> Bitboard {
    let f = Bitboard::file(file).0;
    Bitboard(((f << 1) & !Bitboard::FILE_A.0) | ((f >> 1) & !Bitboard::FILE_H.0))
}

/// The ranks strictly ahead of `sq` for `side`.
const fn ranks_ahead(side: Color, sq: usize) -> u64 {
    let rank = sq / 8;
    match side {
        Color::White => {
            if rank == 7 {
                0
            } else {
                !0u64 << (8 * (rank + 1))
            }
        }
        Color::Black => {
            if rank == 0 {
                0
            } else {
                !0u64 >> (8 * (8 - rank))
            }
        }
    }
}

const fn span_table(adjacent: bool, own_file: bool) -> [[Bitboard; 64]; 2] {
    let mut t = [[Bitboard(0); 64]; 2];
    let mut c = 0;
    while c < 2 {
        let side = if c == 0 { Color::White } else { Color::Black };
        let mut sq = 0;
        while sq < 64 {
            let file = (sq % 8) as u8;
            let mut files = 0;
            if adjacent {
                files |= adjacent_files(file).0;
            }
            if own_file {
                files |= Bitboard::file(file).0;
            }
            t[c][sq] = Bitboard(files & ranks_ahead(side, sq));
            sq += 1;
        }
        c += 1;
    }
    t
}

static PASSED_SPAN: [[Bitboard; 64]; 2] = span_table(true, true);
static OUTPOST_SPAN: [[Bitboard; 64]; 2] = span_table(true, false);
static FRONT_SPAN: [[Bitboard; 64]; 2] = span_table(false, true);

/// Where enemy pawns would stop a pawn of `side` on `sq` from passing.
#[inline(always)]
pub fn passed_span(side: Color, sq: Square) -> Bitboard {
    PASSED_SPAN[side.index()][sq.index()]
}

/// Where enemy pawns could one day attack `sq` from (adjacent files ahead).
#[inline(always)]
pub fn outpost_span(side: Color, sq: Square) -> Bitboard {
    OUTPOST_SPAN[side.index()][sq.index()]
}

/// The squares ahead of `sq` on its file.
#[inline(always)]
pub fn front_span(side: Color, sq: Square) -> Bitboard {
    FRONT_SPAN[side.index()][sq.index()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans() {
        let e4 = Square::parse("e4").unwrap_or(Square::A1);
        assert_eq!(front_span(Color::White, e4).count(), 4);
        assert_eq!(front_span(Color::Black, e4).count(), 3);
        assert_eq!(passed_span(Color::White, e4).count(), 12);
        assert_eq!(outpost_span(Color::Black, e4).count(), 6);
        assert_eq!(adjacent_files(0), Bitboard::file(1));
        assert_eq!(passed_span(Color::White, Square::H8), Bitboard::EMPTY);
    }
}
