//! Move-ordering statistics kept by each search thread.

use super::MAX_PLY;
use crate::chess::{Color, Move};

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

/// The bonus for a move that caused (or the malus for one that did not
/// cause) a cutoff at `depth`.
#[inline]
pub fn depth_bonus(depth: i32) -> i32 {
    (depth * depth * 16 + depth * 32).min(1600)
}

pub struct Histories {
    /// Quiet moves by side, from and to square.
    pub butterfly: [[[i16; 64]; 64]; 2],
    /// Two quiet moves per ply that caused a cutoff at that ply.
    pub killers: [[Move; 2]; MAX_PLY + 2],
}

impl Histories {
    pub fn new() -> Box<Histories> {
        Box::new(Histories {
            butterfly: [[[0; 64]; 64]; 2],
            killers: [[Move::NULL; 2]; MAX_PLY + 2],
        })
    }

    pub fn clear(&mut self) {
        *self = *Histories::new();
    }

    #[inline]
    pub fn quiet(&self, side: Color, m: Move) -> i32 {
        self.butterfly[side.index()][m.from().index()][m.to().index()] as i32
    }

    /// Rewards the quiet move that cut off and punishes those tried before it.
    pub fn update_quiets(
        &mut self,
        side: Color,
        ply: usize,
        best: Move,
        tried: &[Move],
        depth: i32,
    ) {
        let bonus = depth_bonus(depth);
        let s = side.index();
        gravity(
            &mut self.butterfly[s][best.from().index()][best.to().index()],
            bonus,
        );
        for &m in tried {
            if m != best {
                gravity(
                    &mut self.butterfly[s][m.from().index()][m.to().index()],
                    -bonus,
                );
            }
        }
        let k = &mut self.killers[ply];
        if k[0] != best {
            k[1] = k[0];
            k[0] = best;
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
}
