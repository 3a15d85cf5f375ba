//! A middlegame and an endgame value packed into one `i32`, so that the
//! evaluation adds both phases with one instruction.
//!
//! ```text
//!  31                16 15                 0
//! +--------------------+--------------------+
//! |  eg (+ borrow)     |  mg (signed 16)    |
//! +--------------------+--------------------+
//! ```
//!
//! The value is `eg * 65536 + mg`; a negative `mg` borrows one from the
//! upper half, which `eg()` gives back by rounding. Both halves must stay
//! within ±32767, far beyond any evaluation.

use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

#[derive(Copy, Clone, PartialEq, Eq, Default)]
pub struct Score(i32);

/// Shorthand for the tables.
pub const fn s(mg: i32, eg: i32) -> Score {
    Score::new(mg, eg)
}

impl Score {
    pub const ZERO: Score = Score(0);

    pub const fn new(mg: i32, eg: i32) -> Score {
        Score((eg << 16).wrapping_add(mg))
    }

    #[inline(always)]
    pub const fn mg(self) -> i32 {
        self.0 as i16 as i32
    }

    #[inline(always)]
    pub const fn eg(self) -> i32 {
        ((self.0.wrapping_add(0x8000)) >> 16) as i16 as i32
    }
}

impl Add for Score {
    type Output = Score;
    #[inline(always)]
    fn add(self, o: Score) -> Score {
        Score(self.0.wrapping_add(o.0))
    }
}

impl Sub for Score {
    type Output = Score;
    #[inline(always)]
    fn sub(self, o: Score) -> Score {
        Score(self.0.wrapping_sub(o.0))
    }
}

impl AddAssign for Score {
    #[inline(always)]
    fn add_assign(&mut self, o: Score) {
        *self = *self + o;
    }
}

impl SubAssign for Score {
    #[inline(always)]
    fn sub_assign(&mut self, o: Score) {
        *self = *self - o;
    }
}

impl Neg for Score {
    type Output = Score;
    #[inline(always)]
    fn neg(self) -> Score {
        Score(self.0.wrapping_neg())
    }
}

impl Mul<i32> for Score {
    type Output = Score;
    #[inline(always)]
    fn mul(self, n: i32) -> Score {
        Score(self.0.wrapping_mul(n))
    }
}

impl std::fmt::Debug for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "s({}, {})", self.mg(), self.eg())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_survive_arithmetic() {
        let values = [-16000, -513, -1, 0, 1, 77, 16000];
        for &a in &values {
            for &b in &values {
                let x = s(a, b);
                assert_eq!((x.mg(), x.eg()), (a, b));
                assert_eq!(((-x).mg(), (-x).eg()), (-a, -b));
                let y = s(b / 3, a / 5);
                let sum = x + y;
                assert_eq!((sum.mg(), sum.eg()), (a + b / 3, b + a / 5));
                let diff = x - y;
                assert_eq!((diff.mg(), diff.eg()), (a - b / 3, b - a / 5));
                let prod = s(a / 8, b / 8) * -7;
                assert_eq!((prod.mg(), prod.eg()), (a / 8 * -7, b / 8 * -7));
            }
        }
    }
}
