//! Pawn material, placement and structure: terms that depend on the pawns
//! alone, so each search thread keeps them in a small table by pawn key.

use super::params::*;
use super::tables::{adjacent_files, front_span, outpost_span, passed_span};
use super::values::VALUES;
use super::{Accumulator, Score};
use crate::chess::{Bitboard, Color, PieceType, Position, attacks};
use std::cell::RefCell;

/// Entries per thread (a power of two): 16K entries of 32 bytes.
const ENTRIES: usize = 1 << 14;

#[derive(Copy, Clone, Default)]
pub struct Entry {
    key: u64,
    /// White minus Black.
    pub score: Score,
    /// Passed pawns of White and Black.
    pub passed: [Bitboard; 2],
}

thread_local! {
    static TABLE: RefCell<Vec<Entry>> = RefCell::new(vec![Entry::default(); ENTRIES]);
}

/// Sums the pawn parameters.
#[derive(Default)]
struct PawnScorer {
    score: Score,
}

impl Accumulator for PawnScorer {
    #[inline(always)]
    fn add(&mut self, side: Color, param: usize, count: i32) {
        let v = VALUES[param] * count;
        if side == Color::White {
            self.score += v;
        } else {
            self.score -= v;
        }
    }
}

/// The pawn terms of `pos`, from the table or computed and stored.
pub fn probe(pos: &Position) -> Entry {
    // The pawn key of a position without pawns is 0; the entry is valid
    // for it too, so mark entries by key ^ 1 to tell them from empty ones.
    let key = pos.pawn_key() ^ 1;
    let slot = (key as usize) & (ENTRIES - 1);
    let cached = TABLE.with(|t| t.borrow().get(slot).copied());
    if let Some(e) = cached
        && e.key == key
    {
        return e;
    }
    let mut scorer = PawnScorer::default();
    let passed = features(pos, &mut scorer);
    let entry = Entry {
        key,
        score: scorer.score,
        passed,
    };
    TABLE.with(|t| {
        if let Some(e) = t.borrow_mut().get_mut(slot) {
            *e = entry;
        }
    });
    entry
}

/// Tells `acc` every pawn-only feature; returns the passed pawns.
pub fn features(pos: &Position, acc: &mut impl Accumulator) -> [Bitboard; 2] {
    let mut passed = [Bitboard::EMPTY; 2];
    for side in Color::BOTH {
        let them = side.flip();
        let ours = pos.pieces(side, PieceType::Pawn);
        let theirs = pos.pieces(them, PieceType::Pawn);
        for sq in ours {
            let rank = side.relative_rank(sq.rank()) as usize;
            let rel = if side == Color::White {
                sq
            } else {
                sq.flip_rank()
            };
            acc.add(side, MATERIAL, 1);
            acc.add(side, PST + rel.index(), 1);

            let neighbours = ours & adjacent_files(sq.file());
            let isolated = neighbours.is_empty();
            let doubled = (ours & front_span(side, sq)).any();
            let here = Bitboard::from_square(sq);
            let supported = (attacks::pawn(them, sq) & ours).any();
            let phalanx = (ours & (here.east() | here.west())).any();
            let is_passed = !doubled && (theirs & passed_span(side, sq)).is_empty();
            // Neighbours level or behind could still come to support it.
            let helpers = neighbours & !outpost_span(side, sq);
            let sentries = theirs & outpost_span(side, sq);

            if isolated {
                acc.add(side, PAWN_ISOLATED, 1);
            }
            if doubled {
                acc.add(side, PAWN_DOUBLED, 1);
            }
            if supported || phalanx {
                acc.add(side, PAWN_CONNECTED + rank, 1);
            }
            if is_passed {
                passed[side.index()] |= here;
                acc.add(side, PASSED_RANK + rank, 1);
            } else if (theirs & front_span(side, sq)).is_empty()
                && helpers.count() >= sentries.count()
            {
                acc.add(side, PAWN_CANDIDATE + rank, 1);
            }
            if !isolated && helpers.is_empty() && rank < 7 {
                let stop = sq.offset(side.forward());
                if (attacks::pawn(side, stop) & theirs).any() {
                    acc.add(side, PAWN_BACKWARD, 1);
                }
            }
        }
    }
    passed
}
