//! The output layer: SCReLU on both accumulators, a dot product with the
//! output weights, and the scaling to centipawns.
//!
//! Two versions of the dot product give the same bits: a portable one in
//! 16 i32 lanes, which the compiler vectorises as it can, and an AVX2 one
//! (`std::arch`, chosen at compile time when the target has AVX2, as
//! `make` builds it) that multiplies `v * w` in 16-bit lanes first and then
//! `madd`s with `v` (exact since |v * w| <= 255 * 127). Neither can overflow:
//! a lane sums at most HIDDEN / 8 products of at most 255 * 255 * 127.

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

/// `sum(clamp(acc[i], 0, QA)^2 * w[i])`, exactly.
#[inline(always)]
pub fn screlu_dot(acc: &[i16; HIDDEN], w: &[i16]) -> i64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        // SAFETY: the target has AVX2 (compile-time feature), and both
        // slices hold HIDDEN values (checked inside).
        unsafe { avx2::screlu_dot(acc, w) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        screlu_dot_portable(acc, w)
    }
}

/// The portable dot product (also the reference the AVX2 one is tested against).
#[cfg_attr(
    all(target_arch = "x86_64", target_feature = "avx2"),
    allow(dead_code) // only the tests call it where AVX2 is built in
)]
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

#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
pub mod avx2 {
    use super::{HIDDEN, QA};
    use std::arch::x86_64::*;

    /// # Safety
    /// The CPU must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub unsafe fn screlu_dot(acc: &[i16; HIDDEN], w: &[i16]) -> i64 {
        if w.len() < HIDDEN {
            return 0;
        }
        let zero = _mm256_setzero_si256();
        let qa = _mm256_set1_epi16(QA as i16);
        let mut sum = _mm256_setzero_si256();
        let mut i = 0;
        while i < HIDDEN {
            // SAFETY: i + 16 <= HIDDEN <= the length of both slices.
            let (a, wv) = unsafe {
                (
                    _mm256_loadu_si256(acc.as_ptr().add(i).cast()),
                    _mm256_loadu_si256(w.as_ptr().add(i).cast()),
                )
            };
            let v = _mm256_min_epi16(_mm256_max_epi16(a, zero), qa);
            let vw = _mm256_mullo_epi16(v, wv);
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(vw, v));
            i += 16;
        }
        let mut lanes = [0i32; 8];
        // SAFETY: lanes holds 8 i32, one 256-bit store.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), sum) };
        lanes.iter().map(|&x| i64::from(x)).sum()
    }
}
