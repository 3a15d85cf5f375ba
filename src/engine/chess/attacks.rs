//! Attack tables: leapers computed at compile time, sliders by magic bitboards
//! whose magics and tables `build.rs` generates.

use super::bitboard::Bitboard;
use super::types::{Color, PieceType, Square};

/// One square's magic: `((occupancy & mask) * magic) >> shift` indexes the
/// square's slice of the attack table, which starts at `offset`.
pub(crate) struct Magic {
    pub mask: Bitboard,
    pub magic: u64,
    pub shift: u32,
    pub offset: usize,
}

include!(concat!(env!("OUT_DIR"), "/magics.rs"));

const fn leaper_table(steps: &[(i8, i8)]) -> [Bitboard; 64] {
    let mut table = [Bitboard::EMPTY; 64];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = ((sq % 8) as i8, (sq / 8) as i8);
        let mut bits = 0u64;
        let mut i = 0;
        while i < steps.len() {
            let (nf, nr) = (f + steps[i].0, r + steps[i].1);
            if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
                bits |= 1u64 << (nr * 8 + nf);
            }
            i += 1;
        }
        table[sq] = Bitboard(bits);
        sq += 1;
    }
    table
}

static KNIGHT: [Bitboard; 64] = leaper_table(&[
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
]);
static KING: [Bitboard; 64] = leaper_table(&[
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
]);
static PAWN: [[Bitboard; 64]; 2] = [
    leaper_table(&[(-1, 1), (1, 1)]),
    leaper_table(&[(-1, -1), (1, -1)]),
];

/// For two aligned squares, the ray from `a` towards `b` up to the edge
/// (excluding `a`), and the squares strictly between them.
const fn ray_and_between(a: usize, b: usize) -> (u64, u64) {
    let (af, ar) = ((a % 8) as i8, (a / 8) as i8);
    let (bf, br) = ((b % 8) as i8, (b / 8) as i8);
    let (df, dr) = (bf - af, br - ar);
    let aligned = a != b && (df == 0 || dr == 0 || df == dr || df == -dr);
    if !aligned {
        return (0, 0);
    }
    let (sf, sr) = (df.signum(), dr.signum());
    let (mut f, mut r) = (af + sf, ar + sr);
    let (mut ray, mut between, mut passed) = (0u64, 0u64, false);
    while f >= 0 && f < 8 && r >= 0 && r < 8 {
        let s = (r * 8 + f) as usize;
        if s == b {
            passed = true;
        } else if !passed {
            between |= 1u64 << s;
        }
        ray |= 1u64 << s;
        f += sf;
        r += sr;
    }
    (ray, between)
}

const fn line_tables() -> ([[Bitboard; 64]; 64], [[Bitboard; 64]; 64]) {
    let mut line = [[Bitboard::EMPTY; 64]; 64];
    let mut between = [[Bitboard::EMPTY; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut b = 0;
        while b < 64 {
            let (fwd, btw) = ray_and_between(a, b);
            if fwd != 0 {
                let (back, _) = ray_and_between(b, a);
                line[a][b] = Bitboard(fwd | back);
                between[a][b] = Bitboard(btw);
            }
            b += 1;
        }
        a += 1;
    }
    (line, between)
}

static LINES: ([[Bitboard; 64]; 64], [[Bitboard; 64]; 64]) = line_tables();

#[inline(always)]
pub fn knight(sq: Square) -> Bitboard {
    KNIGHT[sq.index()]
}

#[inline(always)]
pub fn king(sq: Square) -> Bitboard {
    KING[sq.index()]
}

/// The squares a pawn of `color` on `sq` attacks.
#[inline(always)]
pub fn pawn(color: Color, sq: Square) -> Bitboard {
    PAWN[color.index()][sq.index()]
}

#[inline(always)]
fn magic_index(m: &Magic, occ: Bitboard) -> usize {
    m.offset + ((occ.0 & m.mask.0).wrapping_mul(m.magic) >> m.shift) as usize
}

#[inline(always)]
pub fn rook(sq: Square, occ: Bitboard) -> Bitboard {
    ROOK_TABLE[magic_index(&ROOK_MAGICS[sq.index()], occ)]
}

#[inline(always)]
pub fn bishop(sq: Square, occ: Bitboard) -> Bitboard {
    BISHOP_TABLE[magic_index(&BISHOP_MAGICS[sq.index()], occ)]
}

#[inline(always)]
pub fn queen(sq: Square, occ: Bitboard) -> Bitboard {
    rook(sq, occ) | bishop(sq, occ)
}

/// Attacks of a non-pawn piece.
#[inline(always)]
pub fn piece(kind: PieceType, sq: Square, occ: Bitboard) -> Bitboard {
    match kind {
        PieceType::Knight => knight(sq),
        PieceType::Bishop => bishop(sq, occ),
        PieceType::Rook => rook(sq, occ),
        PieceType::Queen => queen(sq, occ),
        PieceType::King => king(sq),
        PieceType::Pawn => Bitboard::EMPTY,
    }
}

/// The whole line (rank, file or diagonal) through two aligned squares,
/// edge to edge; empty if they are not aligned.
#[inline(always)]
pub fn line(a: Square, b: Square) -> Bitboard {
    LINES.0[a.index()][b.index()]
}

/// The squares strictly between two aligned squares; empty otherwise.
#[inline(always)]
pub fn between(a: Square, b: Square) -> Bitboard {
    LINES.1[a.index()][b.index()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An independent, slow slider: walks each ray square by square.
    fn walk(sq: Square, occ: u64, dirs: &[(i8, i8)]) -> u64 {
        let mut att = 0;
        for &(df, dr) in dirs {
            let (mut f, mut r) = (sq.file() as i8 + df, sq.rank() as i8 + dr);
            while (0..8).contains(&f) && (0..8).contains(&r) {
                att |= 1u64 << (r * 8 + f);
                if occ >> (r * 8 + f) & 1 != 0 {
                    break;
                }
                f += df;
                r += dr;
            }
        }
        att
    }

    #[test]
    fn magic_lookups_match_ray_walking() {
        let mut x = 0x1234_5678_9abc_def1u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let occ = x & x.rotate_left(17);
            for sq in Square::all() {
                let r = walk(sq, occ, &[(1, 0), (-1, 0), (0, 1), (0, -1)]);
                let b = walk(sq, occ, &[(1, 1), (1, -1), (-1, 1), (-1, -1)]);
                assert_eq!(rook(sq, Bitboard(occ)).0, r);
                assert_eq!(bishop(sq, Bitboard(occ)).0, b);
            }
        }
    }

    #[test]
    fn leapers_and_lines() {
        let sq = |s| Square::parse(s).unwrap();
        assert_eq!(knight(Square::A1).count(), 2);
        assert_eq!(knight(sq("d4")).count(), 8);
        assert_eq!(king(Square::H8).count(), 3);
        assert_eq!(
            pawn(Color::White, sq("a2")),
            Bitboard::from_square(sq("b3"))
        );
        assert_eq!(pawn(Color::Black, sq("e5")).count(), 2);
        assert_eq!(between(Square::A1, Square::H8).count(), 6);
        assert_eq!(between(Square::A1, sq("b3")), Bitboard::EMPTY);
        assert_eq!(line(sq("b2"), sq("d4")).count(), 8);
        assert_eq!(line(sq("e1"), sq("e4")), Bitboard::file(4));
        assert!(line(sq("e1"), sq("f3")).is_empty());
    }
}
