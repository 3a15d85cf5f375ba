//! Move-ordering statistics kept by each search thread: which moves caused
//! cutoffs before, in this position's shape (butterfly), after the last one
//! or two moves (continuation), and for captures by victim (capture history).

use super::MAX_PLY;
use super::params::Params;
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
}

impl Histories {
    pub fn new() -> Box<Histories> {
        Box::new(Histories {
            butterfly: [[[0; 64]; 64]; 2],
            capture: [[[0; 6]; 64]; 12],
            counter: [[Move::NULL; 64]; 12],
            cont: vec![0; CONT_SIZE].into_boxed_slice(),
            killers: [[Move::NULL; 2]; MAX_PLY + 2],
        })
    }

    pub fn clear(&mut self) {
        self.butterfly = [[[0; 64]; 64]; 2];
        self.capture = [[[0; 6]; 64]; 12];
        self.counter = [[Move::NULL; 64]; 12];
        self.cont.fill(0);
        self.killers = [[Move::NULL; 2]; MAX_PLY + 2];
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
