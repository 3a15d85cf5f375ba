//! Move-ordering statistics kept by each search thread: which moves caused
//! cutoffs before, in this position's shape (butterfly), after the last one
//! or two moves (continuation), and for captures by victim (capture history).
//!
//! Beside them, the correction histories: how far the searches' results
//! have been from the network's static evaluation in positions that share
//! a part with this one, by side to move: the pawn structure, each side's
//! pieces other than pawns, the minor pieces, the major pieces, and the
//! last move after the one two and four plies before (continuation
//! correction). The network misjudges some of these the same way again and
//! again (a blocked centre, a passed pawn far advanced, a piece trapped
//! after a given exchange); the search adds the errors back to the
//! evaluation, weighted, so that its pruning margins start from a better
//! guess. Stockfish, Viridithas, Alexandria and most engines above us keep
//! them. Each entry moves towards the error by a bonus that grows with the
//! depth, with gravity, as the move histories do.

use super::params::Params;
use super::{MATE_BOUND, MAX_PLY};
use crate::engine::chess::{Move, Position};

/// History scores stay within +-HISTORY_MAX.
pub const HISTORY_MAX: i32 = 16_384;

/// Moves an entry towards +-HISTORY_MAX by `bonus`, less as it nears the
/// bound, so that scores stay bounded and recent results weigh more.
#[inline]
pub fn gravity(entry: &mut i16, bonus: i32) {
    gravity_within(entry, bonus, HISTORY_MAX);
}

/// [`gravity`] towards +-`limit`: an entry within the limit stays within
/// it, for any bonus.
#[inline]
fn gravity_within(entry: &mut i16, bonus: i32, limit: i32) {
    let bonus = bonus.clamp(-limit, limit);
    let e = *entry as i32;
    *entry = (e + bonus - e * bonus.abs() / limit) as i16;
}

/// The bonus for a move that caused a cutoff at `depth`.
#[inline]
pub fn history_bonus(p: &Params, depth: i32) -> i32 {
    (depth * depth * p.hist_bonus_quad + depth * p.hist_bonus_lin).min(p.hist_bonus_max)
}

/// The malus for a move tried before the one that caused the cutoff.
#[inline]
pub fn history_malus(p: &Params, depth: i32) -> i32 {
    (depth * depth * p.hist_malus_quad + depth * p.hist_malus_lin).min(p.hist_malus_max)
}

/// A move as continuation history sees it: the piece and its destination.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PieceTo {
    pub piece: usize,
    pub to: usize,
}

impl PieceTo {
    /// The piece moved by `m` in `pos` (before the move is played).
    #[inline]
    pub fn of(pos: &Position, m: Move) -> Option<PieceTo> {
        pos.piece_at(m.from()).map(|p| PieceTo {
            piece: p.index(),
            to: m.to().index(),
        })
    }

    /// The start of this move's table in the continuation array.
    #[inline]
    fn base(self) -> usize {
        (self.piece * 64 + self.to) * 12 * 64
    }
}

/// The continuation tables of the moves one and two plies before a node.
pub type ContIndex = [Option<PieceTo>; 2];

const CONT_SIZE: usize = 12 * 64 * 12 * 64;

/// Entries of each keyed correction history, per side to move.
const CORR_SIZE: usize = 16_384;
/// Correction entries stay within +-CORR_LIMIT.
pub const CORR_LIMIT: i32 = 1024;
/// The correction is the weighted sum of the entries over this.
const CORR_SCALE: i32 = 131_072;

/// The keyed correction tables, in [`Histories::corr`]'s order.
const CORR_PAWN: usize = 0;
const CORR_NON_PAWN_WHITE: usize = 1;
const CORR_NON_PAWN_BLACK: usize = 2;
const CORR_MINOR: usize = 3;
const CORR_MAJOR: usize = 4;
const CORR_TABLES: usize = 5;

/// The moves that index the continuation correction of a node: the last
/// move, and the moves two and four plies before the node.
pub type CorrIndex = [Option<PieceTo>; 3];

pub struct Histories {
    /// Quiet moves by side, from and to square.
    pub butterfly: [[[i16; 64]; 64]; 2],
    /// Captures by moving piece, destination and captured piece type.
    pub capture: [[[i16; 6]; 64]; 12],
    /// The quiet reply that refuted a move, by that move's piece and square.
    pub counter: [[Move; 64]; 12],
    /// Quiet moves by the previous move (piece, to) and this move (piece, to).
    cont: Box<[i16]>,
    /// Two quiet moves per ply that caused a cutoff at that ply.
    pub killers: [[Move; 2]; MAX_PLY + 2],
    /// The keyed correction histories (module doc), by table, side to
    /// move and key.
    corr: Box<[i16]>,
    /// The continuation correction history, by the move two (or four)
    /// plies back and the last move.
    cont_corr: Box<[i16]>,
}

impl Histories {
    pub fn new() -> Box<Histories> {
        Box::new(Histories {
            butterfly: [[[0; 64]; 64]; 2],
            capture: [[[0; 6]; 64]; 12],
            counter: [[Move::NULL; 64]; 12],
            cont: vec![0; CONT_SIZE].into_boxed_slice(),
            killers: [[Move::NULL; 2]; MAX_PLY + 2],
            corr: vec![0; CORR_TABLES * 2 * CORR_SIZE].into_boxed_slice(),
            cont_corr: vec![0; CONT_SIZE].into_boxed_slice(),
        })
    }

    /// The entry of each keyed correction table for `pos`.
    #[inline]
    fn corr_indices(pos: &Position) -> [usize; CORR_TABLES] {
        let side = pos.side_to_move().index();
        let k = pos.piece_keys();
        let keys = [
            pos.pawn_key(),
            k.non_pawn[0],
            k.non_pawn[1],
            k.minor,
            k.major,
        ];
        std::array::from_fn(|t| (t * 2 + side) * CORR_SIZE + (keys[t] % CORR_SIZE as u64) as usize)
    }

    /// The continuation correction entries of a node: the last move after
    /// the one two plies back, and after the one four plies back.
    #[inline]
    fn cont_corr_indices(cc: &CorrIndex) -> impl Iterator<Item = usize> {
        let last = cc[0];
        [cc[1], cc[2]]
            .into_iter()
            .filter_map(move |back| Some(back?.base() + last?.piece * 64 + last?.to))
    }

    /// Hints the CPU to fetch the correction entries of `pos` (its
    /// continuation ones by `cc`), which `correction` reads later: the
    /// continuation table is bigger than L2.
    #[inline(always)]
    pub fn prefetch_correction(&self, pos: &Position, cc: &CorrIndex) {
        for i in Self::corr_indices(pos) {
            super::prefetch(&self.corr[i]);
        }
        for i in Self::cont_corr_indices(cc) {
            super::prefetch(&self.cont_corr[i]);
        }
    }

    /// The correction of `pos`'s evaluation, in centipawns: what searches
    /// of positions that share its pawns, pieces or last moves found, each
    /// table weighted by its `corr_*_weight`.
    #[inline]
    pub fn correction(&self, p: &Params, pos: &Position, cc: &CorrIndex) -> i32 {
        let t = Self::corr_indices(pos);
        let e = |table: usize| i32::from(self.corr[t[table]]);
        let mut sum = p.corr_pawn_weight * e(CORR_PAWN)
            + p.corr_non_pawn_weight * (e(CORR_NON_PAWN_WHITE) + e(CORR_NON_PAWN_BLACK))
            + p.corr_minor_weight * e(CORR_MINOR)
            + p.corr_major_weight * e(CORR_MAJOR);
        for i in Self::cont_corr_indices(cc) {
            sum += p.corr_cont_weight * i32::from(self.cont_corr[i]);
        }
        sum / CORR_SCALE
    }

    /// The static evaluation `raw` with `correction` added (never into the
    /// mate scores).
    #[inline]
    pub fn corrected(raw: i32, correction: i32) -> i32 {
        (raw + correction).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    /// Moves every correction entry of `pos` towards the error that a
    /// search of `depth` found in its corrected evaluation `static_eval`
    /// (the search's result `score`): a bonus of the error times depth / 8,
    /// at most a quarter of the entries' bound, with gravity.
    pub fn update_correction(
        &mut self,
        pos: &Position,
        cc: &CorrIndex,
        depth: i32,
        static_eval: i32,
        score: i32,
    ) {
        let bonus = ((score - static_eval) * depth / 8).clamp(-CORR_LIMIT / 4, CORR_LIMIT / 4);
        for i in Self::corr_indices(pos) {
            gravity_within(&mut self.corr[i], bonus, CORR_LIMIT);
        }
        for i in Self::cont_corr_indices(cc) {
            gravity_within(&mut self.cont_corr[i], bonus, CORR_LIMIT);
        }
    }

    pub fn clear(&mut self) {
        self.butterfly = [[[0; 64]; 64]; 2];
        self.capture = [[[0; 6]; 64]; 12];
        self.counter = [[Move::NULL; 64]; 12];
        self.cont.fill(0);
        self.killers = [[Move::NULL; 2]; MAX_PLY + 2];
        self.corr.fill(0);
        self.cont_corr.fill(0);
    }

    #[inline]
    fn cont_entry(&mut self, prev: PieceTo, cur: PieceTo) -> &mut i16 {
        &mut self.cont[prev.base() + cur.piece * 64 + cur.to]
    }

    #[inline]
    fn cont_value(&self, prev: PieceTo, cur: PieceTo) -> i32 {
        self.cont[prev.base() + cur.piece * 64 + cur.to] as i32
    }

    /// The ordering score of a quiet move: butterfly plus continuations.
    #[inline]
    pub fn quiet(&self, pos: &Position, m: Move, conts: &ContIndex) -> i32 {
        let side = pos.side_to_move();
        let mut score = self.butterfly[side.index()][m.from().index()][m.to().index()] as i32;
        if let Some(cur) = PieceTo::of(pos, m) {
            for prev in conts.iter().flatten() {
                score += self.cont_value(*prev, cur);
            }
        }
        score
    }

    /// The capture-history score of a capture or promotion.
    #[inline]
    pub fn noisy(&self, pos: &Position, m: Move) -> i32 {
        match (pos.piece_at(m.from()), pos.captured(m)) {
            (Some(p), Some(victim)) => {
                self.capture[p.index()][m.to().index()][victim.index()] as i32
            }
            _ => 0,
        }
    }

    /// The counter move to the previous move, if any.
    #[inline]
    pub fn counter_move(&self, prev: Option<PieceTo>) -> Move {
        prev.map_or(Move::NULL, |p| self.counter[p.piece][p.to])
    }

    fn bump_quiet(&mut self, pos: &Position, m: Move, conts: &ContIndex, bonus: i32) {
        let s = pos.side_to_move().index();
        gravity(
            &mut self.butterfly[s][m.from().index()][m.to().index()],
            bonus,
        );
        if let Some(cur) = PieceTo::of(pos, m) {
            for prev in conts.iter().flatten() {
                gravity(self.cont_entry(*prev, cur), bonus);
            }
        }
    }

    fn bump_noisy(&mut self, pos: &Position, m: Move, bonus: i32) {
        if let (Some(p), Some(victim)) = (pos.piece_at(m.from()), pos.captured(m)) {
            gravity(
                &mut self.capture[p.index()][m.to().index()][victim.index()],
                bonus,
            );
        }
    }

    /// After a cutoff by `best`: reward it, punish the moves tried before it
    /// (quiet ones only when `best` is quiet; captures always), and remember
    /// a quiet `best` as killer and counter move.
    #[allow(clippy::too_many_arguments)]
    pub fn update_cutoff(
        &mut self,
        pos: &Position,
        ply: usize,
        best: Move,
        best_is_quiet: bool,
        quiets_tried: &[Move],
        noisy_tried: &[Move],
        conts: &ContIndex,
        bonus: i32,
        malus: i32,
    ) {
        if best_is_quiet {
            self.bump_quiet(pos, best, conts, bonus);
            for &m in quiets_tried {
                self.bump_quiet(pos, m, conts, -malus);
            }
            let k = &mut self.killers[ply];
            if k[0] != best {
                k[1] = k[0];
                k[0] = best;
            }
            if let Some(prev) = conts[0] {
                self.counter[prev.piece][prev.to] = best;
            }
        } else {
            self.bump_noisy(pos, best, bonus);
        }
        for &m in noisy_tried {
            self.bump_noisy(pos, m, -malus);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_correction_histories_learn_each_part_of_the_position() {
        // Its own weights, so that a tune of the defaults doesn't move the
        // figures below: 1/128 of an entry per table.
        let p = Params {
            corr_pawn_weight: 1024,
            corr_non_pawn_weight: 1024,
            corr_minor_weight: 1024,
            corr_major_weight: 1024,
            corr_cont_weight: 1024,
            ..Params::default()
        };
        let fen = |board: &str, side: &str| {
            Position::from_fen(&format!("{board} {side} - - 0 1"))
                .unwrap()
                .0
        };
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
        let white = fen(start, "w");
        let black = fen(start, "b");
        let none: CorrIndex = [None; 3];
        let mut h = Histories::new();
        assert_eq!(h.correction(&p, &white, &none), 0);
        // A search of depth 8 found 100 more than the evaluation: a bonus
        // of 100 in the five keyed tables (White's and Black's pieces are
        // two), 5 * 100 / 128 = 3 centipawns.
        h.update_correction(&white, &none, 8, 10, 110);
        assert_eq!(h.correction(&p, &white, &none), 3);
        // The other side to move keeps its own entries.
        assert_eq!(h.correction(&p, &black, &none), 0);
        // The bonus is at most a quarter of the bound; gravity keeps the
        // entries within it: 5 * 1024 / 128 = 40 at most.
        for _ in 0..1000 {
            h.update_correction(&white, &none, 30, 10, 500);
        }
        assert_eq!(h.correction(&p, &white, &none), 40);
        // Another pawn structure, same pieces: four tables of five.
        let pawns_moved = fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR", "w");
        assert_eq!(h.correction(&p, &pawns_moved, &none), 32);
        // Without White's queen: the pawns, Black's pieces and the minors
        // are shared, White's pieces and the majors are not.
        let no_queen = fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR", "w");
        assert_eq!(h.correction(&p, &no_queen, &none), 24);
        // The continuation tables need the last move and one before it.
        let (a, b, c) = (
            Some(PieceTo { piece: 1, to: 18 }),
            Some(PieceTo { piece: 7, to: 45 }),
            Some(PieceTo { piece: 3, to: 27 }),
        );
        h.clear();
        h.update_correction(&white, &[a, None, None], 8, 0, 100);
        assert_eq!(h.correction(&p, &white, &[a, None, None]), 3);
        h.clear();
        h.update_correction(&white, &[a, b, c], 8, 0, 128);
        // 128 in each of the five keyed and the two continuation entries.
        assert_eq!(h.correction(&p, &white, &[a, b, c]), 7);
        assert_eq!(h.correction(&p, &white, &[a, b, None]), 6);
        assert_eq!(h.correction(&p, &white, &[None, b, c]), 5);
        // Errors the other way pull the entries back down.
        for _ in 0..1000 {
            h.update_correction(&white, &[a, b, c], 30, 0, -500);
        }
        assert_eq!(h.correction(&p, &white, &[a, b, c]), -56);
        // The corrected evaluation never reaches the mate scores.
        assert_eq!(Histories::corrected(MATE_BOUND - 5, 40), MATE_BOUND - 1);
        assert_eq!(Histories::corrected(10, -56), -46);
        h.clear();
        assert_eq!(h.correction(&p, &white, &[a, b, c]), 0);
    }

    #[test]
    fn gravity_is_bounded() {
        let mut e = 0i16;
        for _ in 0..1000 {
            gravity(&mut e, 1600);
        }
        assert!(e as i32 <= HISTORY_MAX && e > 15_000);
        for _ in 0..1000 {
            gravity(&mut e, -1600);
        }
        assert!(e as i32 >= -HISTORY_MAX && e < -15_000);
    }

    #[test]
    fn cutoff_updates_tables() {
        let pos = Position::startpos();
        let mut h = Histories::new();
        let best = pos.parse_uci_move("g1f3").unwrap();
        let other = pos.parse_uci_move("a2a3").unwrap();
        let prev = Some(PieceTo { piece: 6, to: 36 });
        let conts = [prev, None];
        let p = Params::default();
        let (bonus, malus) = (history_bonus(&p, 5), history_malus(&p, 5));
        h.update_cutoff(&pos, 3, best, true, &[other], &[], &conts, bonus, malus);
        assert!(h.quiet(&pos, best, &conts) > 0);
        assert!(h.quiet(&pos, other, &conts) < 0);
        assert_eq!(h.killers[3][0], best);
        assert_eq!(h.counter_move(prev), best);
        h.clear();
        assert_eq!(h.quiet(&pos, best, &conts), 0);
    }
}
