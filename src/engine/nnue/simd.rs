//! The network's SIMD kernels, and the choice among them at run time.
//!
//! One binary serves every x86-64 CPU: the first evaluation asks the CPU
//! what it has (`is_x86_feature_detected!`, which a build whose target
//! already has the feature answers at compile time) and keeps the answer,
//! a [`Level`], in a static byte. Each kernel then costs one load of that
//! byte and a branch that always goes the same way, so a binary built for
//! baseline x86-64 (`cargo build --release`, SSE2 only) searches about as
//! fast as one built with `-C target-cpu=native`.
//!
//! The accumulator updates are plain loops over fixed-size rows ([`add_row`]
//! and its siblings), each compiled three times: for the build's target,
//! and inside a `#[target_feature]` wrapper for AVX2 and for AVX-512, where
//! the compiler vectorises the same loop with 256- or 512-bit registers. It
//! unrolls each row completely, into the loads, adds and stores that
//! hand-written intrinsics would be, so there are none here. The loops are
//! wrapping i16 arithmetic, whose result does not depend on the width of
//! the lanes: every version gives the same bits.
//!
//! The output layer's dot product ([`screlu_dot`]) has AVX2 and AVX-512
//! versions in `std::arch`; `forward.rs` has the portable one and the
//! argument why they all agree.
//!
//! AVX-512 is used where the CPU has it: on this project's Xeon (Sapphire
//! Rapids class) it made an accumulator update about 10% faster than
//! AVX2 and the evaluation about 20%, for a search speed the same within
//! the noise of a shared machine. Elsewhere than x86-64 only the portable
//! code is compiled.

use super::HIDDEN;
use std::sync::atomic::{AtomicU8, Ordering};

/// The widest instruction set the kernels use. Each level's CPUs have
/// every narrower level's features, so a level no wider than [`detect`]'s
/// is one the CPU runs.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Level {
    /// What the build's target has: SSE2 on baseline x86-64.
    Portable = 1,
    /// AVX2 (256-bit integer lanes).
    Avx2 = 2,
    /// AVX-512 F and BW (512-bit lanes, 16-bit operations on them).
    Avx512 = 3,
}

/// The level in use as a `Level` byte; 0 until the first [`level`].
static LEVEL: AtomicU8 = AtomicU8::new(0);

/// The widest level this CPU runs (the build's target features count: a
/// native build on an AVX2 machine answers without asking).
pub fn detect() -> Level {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
            {
                return Level::Avx512;
            }
            return Level::Avx2;
        }
    }
    Level::Portable
}

/// The level the kernels use: [`detect`]'s answer, found once.
#[inline(always)]
pub fn level() -> Level {
    // Relaxed: every thread that stores stores a level the CPU has.
    match LEVEL.load(Ordering::Relaxed) {
        1 => Level::Portable,
        2 => Level::Avx2,
        3 => Level::Avx512,
        _ => first_level(),
    }
}

#[cold]
fn first_level() -> Level {
    let level = detect();
    LEVEL.store(level as u8, Ordering::Relaxed);
    level
}

/// Makes the kernels use `level`, or the widest this CPU has if that is
/// narrower, and returns the level set: the tests run the portable code
/// this way, and every SIMD version, in one binary. For every thread of
/// the process at once, so the tests that call it take a lock.
#[cfg(test)]
pub fn force(level: Level) -> Level {
    let level = level.min(detect());
    LEVEL.store(level as u8, Ordering::Relaxed);
    level
}

/// `$name` runs `$body`'s loop at the level in use: as compiled for the
/// build's target, or inside a `#[target_feature]` function, where the
/// compiler may use AVX2's or AVX-512's registers for it. The body is
/// `#[inline(always)]` so that it is compiled into each wrapper with the
/// wrapper's features.
macro_rules! multiversion {
    ($(#[$doc:meta])* pub fn $name:ident($($arg:ident: $ty:ty),*) => $body:ident) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $name($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2")]
            #[inline]
            fn avx2($($arg: $ty),*) {
                $body($($arg),*)
            }
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx512f,avx512bw")]
            #[inline]
            fn avx512($($arg: $ty),*) {
                $body($($arg),*)
            }
            match level() {
                #[cfg(target_arch = "x86_64")]
                Level::Avx512 => {
                    // SAFETY: level() is Avx512 only where the CPU has
                    // avx512f and avx512bw.
                    unsafe { avx512($($arg),*) }
                }
                #[cfg(target_arch = "x86_64")]
                Level::Avx2 => {
                    // SAFETY: level() is Avx2 only where the CPU has AVX2.
                    unsafe { avx2($($arg),*) }
                }
                _ => $body($($arg),*),
            }
        }
    };
}

type Row = [i16; HIDDEN];

multiversion! {
    /// `d += a`.
    pub fn add_row(d: &mut Row, a: &Row) => add_row_loop
}

multiversion! {
    /// `d -= r`.
    pub fn sub_row(d: &mut Row, r: &Row) => sub_row_loop
}

multiversion! {
    /// `d = s + a - r`: a quiet move.
    pub fn add1_sub1(d: &mut Row, s: &Row, a: &Row, r: &Row) => add1_sub1_loop
}

multiversion! {
    /// `d = s + a - r1 - r2`: a capture.
    pub fn add1_sub2(d: &mut Row, s: &Row, a: &Row, r1: &Row, r2: &Row) => add1_sub2_loop
}

multiversion! {
    /// `d = s + a1 + a2 - r1 - r2`: castling.
    pub fn add2_sub2(d: &mut Row, s: &Row, a1: &Row, a2: &Row, r1: &Row, r2: &Row) => add2_sub2_loop
}

#[inline(always)]
fn add_row_loop(d: &mut Row, a: &Row) {
    for i in 0..HIDDEN {
        d[i] = d[i].wrapping_add(a[i]);
    }
}

#[inline(always)]
fn sub_row_loop(d: &mut Row, r: &Row) {
    for i in 0..HIDDEN {
        d[i] = d[i].wrapping_sub(r[i]);
    }
}

#[inline(always)]
fn add1_sub1_loop(d: &mut Row, s: &Row, a: &Row, r: &Row) {
    for i in 0..HIDDEN {
        d[i] = s[i].wrapping_add(a[i]).wrapping_sub(r[i]);
    }
}

#[inline(always)]
fn add1_sub2_loop(d: &mut Row, s: &Row, a: &Row, r1: &Row, r2: &Row) {
    for i in 0..HIDDEN {
        d[i] = s[i]
            .wrapping_add(a[i])
            .wrapping_sub(r1[i])
            .wrapping_sub(r2[i]);
    }
}

#[inline(always)]
fn add2_sub2_loop(d: &mut Row, s: &Row, a1: &Row, a2: &Row, r1: &Row, r2: &Row) {
    for i in 0..HIDDEN {
        d[i] = s[i]
            .wrapping_add(a1[i])
            .wrapping_add(a2[i])
            .wrapping_sub(r1[i])
            .wrapping_sub(r2[i]);
    }
}

/// `sum(clamp(acc[i], 0, QA)^2 * w[i])` at the level in use.
#[inline(always)]
pub fn screlu_dot(acc: &Row, w: &Row) -> i64 {
    match level() {
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => {
            // SAFETY: level() is Avx512 only where the CPU has avx512f
            // and avx512bw.
            unsafe { x86::screlu_dot_avx512(acc, w) }
        }
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => {
            // SAFETY: level() is Avx2 only where the CPU has AVX2.
            unsafe { x86::screlu_dot_avx2(acc, w) }
        }
        _ => super::forward::screlu_dot_portable(acc, w),
    }
}

/// The dot products in `std::arch`. Both clip to `[0, QA]` and multiply
/// `v * w` in 16-bit lanes first (exact: |v * w| <= 255 * 127), then
/// `madd` the product with `v` into i32 lanes, two products a lane a step.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::QA;
    use super::Row;
    use std::arch::x86_64::*;

    /// HIDDEN / 16 steps of 16 values; a lane sums HIDDEN / 8 products.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn screlu_dot_avx2(acc: &Row, w: &Row) -> i64 {
        let zero = _mm256_setzero_si256();
        let qa = _mm256_set1_epi16(QA as i16);
        let mut sum = _mm256_setzero_si256();
        for (a, w) in acc.chunks_exact(16).zip(w.chunks_exact(16)) {
            // SAFETY: each chunk is 16 i16, one unaligned 256-bit load.
            let (a, wv) = unsafe {
                (
                    _mm256_loadu_si256(a.as_ptr().cast()),
                    _mm256_loadu_si256(w.as_ptr().cast()),
                )
            };
            let v = _mm256_min_epi16(_mm256_max_epi16(a, zero), qa);
            let vw = _mm256_mullo_epi16(v, wv);
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(vw, v));
        }
        let mut lanes = [0i32; 8];
        // SAFETY: lanes holds 8 i32, one unaligned 256-bit store.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), sum) };
        lanes.iter().map(|&x| i64::from(x)).sum()
    }

    /// HIDDEN / 32 steps of 32 values; a lane sums HIDDEN / 16 products.
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    pub fn screlu_dot_avx512(acc: &Row, w: &Row) -> i64 {
        let zero = _mm512_setzero_si512();
        let qa = _mm512_set1_epi16(QA as i16);
        let mut sum = _mm512_setzero_si512();
        for (a, w) in acc.chunks_exact(32).zip(w.chunks_exact(32)) {
            // SAFETY: each chunk is 32 i16, one unaligned 512-bit load.
            let (a, wv) = unsafe {
                (
                    _mm512_loadu_si512(a.as_ptr().cast()),
                    _mm512_loadu_si512(w.as_ptr().cast()),
                )
            };
            let v = _mm512_min_epi16(_mm512_max_epi16(a, zero), qa);
            let vw = _mm512_mullo_epi16(v, wv);
            sum = _mm512_add_epi32(sum, _mm512_madd_epi16(vw, v));
        }
        let mut lanes = [0i32; 16];
        // SAFETY: lanes holds 16 i32, one unaligned 512-bit store.
        unsafe { _mm512_storeu_si512(lanes.as_mut_ptr().cast(), sum) };
        lanes.iter().map(|&x| i64::from(x)).sum()
    }
}
