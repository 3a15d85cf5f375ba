//! Move-ordering statistics kept by each search thread: which moves caused
//! cutoffs before, in this position's shape (butterfly), after the last one
//! or two moves (continuation), and for captures by victim (capture history).
//!
//! Beside them, the pawn correction history: how far the searches' results
//! have been from the network's static evaluation in positions of the same
//! pawn structure (by side to move and the pawns' hash key). The network
//! misjudges some structures the same way again and again (a blocked
//! centre, a passed pawn far advanced); the search adds the average error
//! back to the evaluation, so that its pruning margins start from a better
//! guess. Stockfish, Viridithas and most engines above us keep one.

use super::params::Params;
use super::{MATE_BOUND, MAX_PLY};
use crate::engine::chess::{Move, Position};

/// History scores stay within +-HISTORY_MAX.
pub const HISTORY_MAX: i32 = 16_384;

/// Moves an entry towards +-HISTORY_MAX by `bonus`, less as it nears the
/// bound, so that scores stay bounded and recent results weigh more.
#[inline]
pub fn gravity(entry: &mut i16, bonus: i32) {
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    let e = *entry as i32;
    *entry = (e + bonus - e * bonus.abs() / HISTORY_MAX) as i16;
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

/// Entries of the pawn correction history, per side to move.
const CORR_SIZE: usize = 16_384;
/// A correction entry holds centipawns times this, so that the slow
/// average keeps its fractions.
const CORR_GRAIN: i32 = 128;
/// The weight of a new result is counted out of this many.
const CORR_WEIGHT_SCALE: i32 = 256;

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
    /// The pawn correction history (module doc), by side and pawn key, in
    /// centipawns times CORR_GRAIN.
    corr: Box<[i16]>,
}

impl Histories {
    pub fn new() -> Box<Histories> {
        Box::new(Histories {
            butterfly: [[[0; 64]; 64]; 2],
            capture: [[[0; 6]; 64]; 12],
            counter: [[Move::NULL; 64]; 12],
            cont: vec![0; CONT_SIZE].into_boxed_slice(),
            killers: [[Move::NULL; 2]; MAX_PLY + 2],
            corr: vec![0; 2 * CORR_SIZE].into_boxed_slice(),
        })
    }

    #[inline]
    fn corr_index(pos: &Position) -> usize {
        pos.side_to_move().index() * CORR_SIZE + (pos.pawn_key() % CORR_SIZE as u64) as usize
    }

    /// The static evaluation `raw` of `pos`, corrected by what searches of
    /// positions with the same pawns found (never into mate scores).
    #[inline]
    pub fn corrected_eval(&self, pos: &Position, raw: i32) -> i32 {
        let corr = i32::from(self.corr[Self::corr_index(pos)]) / CORR_GRAIN;
        (raw + corr).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    /// Moves the correction of `pos`'s pawns towards `score - raw`, the
    /// error of the raw evaluation that a search of `depth` found: a
    /// running average, the deeper search weighing more, bounded by
    /// `corr_max` centipawns.
    pub fn update_correction(
        &mut self,
        p: &Params,
        pos: &Position,
        depth: i32,
        raw: i32,
        score: i32,
    ) {
        let entry = &mut self.corr[Self::corr_index(pos)];
        let limit = p.corr_max * CORR_GRAIN;
        let target = ((score - raw) * CORR_GRAIN).clamp(-limit, limit);
        let weight = (depth + 1).min(p.corr_weight_max);
        let e = i32::from(*entry);
        let new = (e * (CORR_WEIGHT_SCALE - weight) + target * weight) / CORR_WEIGHT_SCALE;
        *entry = new.clamp(-limit, limit) as i16;
    }

    pub fn clear(&mut self) {
        self.butterfly = [[[0; 64]; 64]; 2];
        self.capture = [[[0; 6]; 64]; 12];
        self.counter = [[Move::NULL; 64]; 12];
        self.cont.fill(0);
        self.killers = [[Move::NULL; 2]; MAX_PLY + 2];
        self.corr.fill(0);
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
    fn the_correction_history_learns_each_pawn_structure() {
        // Its own bounds, so that a tune of the defaults doesn't move the
        // figures below.
        let p = Params {
            corr_max: 64,
            corr_weight_max: 16,
            ..Params::default()
        };
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
        let (white, _) = Position::from_fen(&format!("{start} w KQkq - 0 1")).unwrap();
        let (black, _) = Position::from_fen(&format!("{start} b KQkq - 0 1")).unwrap();
        let mut h = Histories::new();
        assert_eq!(h.corrected_eval(&white, 10), 10);
        // A search of depth 3 found 100 more than the raw 10: the target
        // is clamped to corr_max (64 cp, 8192 in 128ths) and weighs 4/256,
        // so the entry holds 128, one centipawn.
        h.update_correction(&p, &white, 3, 10, 110);
        assert_eq!(h.corrected_eval(&white, 10), 11);
        // The other side to move keeps its own entry.
        assert_eq!(h.corrected_eval(&black, 10), 10);
        // Deep searches that agree drive it to its bound (16/256 each).
        for _ in 0..1000 {
            h.update_correction(&p, &white, 30, 10, 110);
        }
        // (The average truncates, so it stops a 128th short: 63.99 cp.)
        assert_eq!(h.corrected_eval(&white, 10), 10 + 63);
        // Never into the mate scores.
        assert_eq!(h.corrected_eval(&white, MATE_BOUND - 5), MATE_BOUND - 1);
        // ... and back: an error of -20 is learnt, to that 128th (-19.99).
        for _ in 0..1000 {
            h.update_correction(&p, &white, 30, 10, -10);
        }
        assert_eq!(h.corrected_eval(&white, 10), 10 - 19);
        h.clear();
        assert_eq!(h.corrected_eval(&white, 10), 10);
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
