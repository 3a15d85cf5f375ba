//! The output layer: SCReLU on both accumulators, a dot product with the
//! output weights, and the scaling to centipawns.
//!
//! Three versions of the dot product give the same bits: a portable one in
//! 16 i32 lanes, which the compiler vectorises as the build's target
//! allows, and AVX2 and AVX-512 ones (`std::arch`, in `simd.rs`, chosen at
//! run time by what the CPU has) that multiply `v * w` in 16-bit lanes
//! first and then `madd` with `v` (exact since |v * w| <= 255 * 127).
//! None can overflow: a lane sums at most HIDDEN / 8 products of at most
//! 255 * 255 * 127.

use super::{Accumulator, HIDDEN, Network, QA, QB, SCALE};
use crate::engine::chess::{Color, Position};

const _: () = assert!(HIDDEN.is_multiple_of(32) && HIDDEN <= 1024);

impl Network {
    /// The evaluation in centipawns of `pos`, whose accumulator is `acc`,
    /// for its side to move, with the output bucket of its piece count.
    #[inline]
    pub fn evaluate(&self, acc: &Accumulator, pos: &Position) -> i32 {
        let bucket = self.bucket(pos.occupied().count());
        self.evaluate_bucket(acc, pos.side_to_move(), bucket)
    }

    /// The evaluation for `stm` from `acc` with output bucket `bucket`.
    #[inline(always)]
    pub fn evaluate_bucket(&self, acc: &Accumulator, stm: Color, bucket: usize) -> i32 {
        let us = &acc.v[stm.index()];
        let them = &acc.v[stm.flip().index()];
        let weights = &self.out_weights[bucket * 2 * HIDDEN..(bucket + 1) * 2 * HIDDEN];
        let (w_us, w_them) = weights.split_at(HIDDEN);
        let sum = screlu_dot(us, w_us) + screlu_dot(them, w_them);
        output(sum, self.out_bias[bucket])
    }
}

/// From the dot product (units QA * QA * QB) to centipawns.
#[inline(always)]
pub fn output(sum: i64, bias: i32) -> i32 {
    let out = sum / i64::from(QA) + i64::from(bias);
    (out * i64::from(SCALE) / i64::from(QA * QB)) as i32
}

/// `sum(clamp(acc[i], 0, QA)^2 * w[i])`, exactly, with the widest SIMD
/// this CPU has (`simd.rs`).
#[inline(always)]
pub fn screlu_dot(acc: &[i16; HIDDEN], w: &[i16]) -> i64 {
    match w.try_into() {
        Ok(w) => super::simd::screlu_dot(acc, w),
        Err(_) => 0,
    }
}

/// The portable dot product (also the reference the SIMD ones are tested against).
pub fn screlu_dot_portable(acc: &[i16; HIDDEN], w: &[i16]) -> i64 {
    let w: &[i16; HIDDEN] = match w.try_into() {
        Ok(w) => w,
        Err(_) => return 0,
    };
    let mut lanes = [0i32; 16];
    for (a, w) in acc.chunks_exact(16).zip(w.chunks_exact(16)) {
        for i in 0..16 {
            let v = i32::from(a[i].clamp(0, QA as i16));
            lanes[i] += v * v * i32::from(w[i]);
        }
    }
    lanes.iter().map(|&x| i64::from(x)).sum()
}
