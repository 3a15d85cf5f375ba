//! `forsyth tune`: a Texel tuner. It fits every evaluation parameter at
//! once to the results of our own games (optionally blended with the
//! search scores) by minimising the squared error between the predicted
//! and the actual result, with Adam over mini-batches, and writes the
//! numbers back as `src/eval/values.rs`.
//!
//! The features of each position come from the evaluation itself (an
//! [`Accumulator`] that records counts), so the tuner fits exactly the
//! function the engine computes, up to integer rounding:
//!
//! ```text
//! E = mg * phase + eg * scale * (1 - phase)
//! mg, eg = sum of count * value (White minus Black)
//!          - danger(White's king) + danger(Black's king)
//! danger(d) = (d * d / 1024, d * c / 1024) with d = max(0, sum of count * units)
//! phase = min(240, sum of pieces * weight) / 240
//! scale = SCALES[ending] / 128 in a drawish ending, else 1
//! prediction = 1 / (1 + exp(-K * E / 400))
//! ```
//!
//! The shape is learned with the values: the phase weights of the four
//! piece kinds, the endgame cost `c` of danger and the scale of each
//! drawish ending (`values::PHASE_WEIGHTS`, `DANGER_EG`, `SCALES`). Which
//! ending a position is (and so which side is stronger) is decided once,
//! with the starting values.
//!
//! # The procedure
//!
//! 1. Load the records and compute each position's features with the
//!    evaluation itself.
//! 2. Hold out one tenth for validation, in runs of 1,024 consecutive
//!    records: a game's positions are written together, so only the games
//!    at the ends of a run fall on both sides.
//! 3. Fit K of the logistic to the results with the starting values.
//! 4. Run Adam over mini-batches (`--batch`, 16,384 positions) on all
//!    parameters at once, the shape included, minimising the squared error
//!    against the result blended with the search score (`--lambda`: 1 the
//!    result only, 0 the score only). `--lr-decay F` multiplies the rate by
//!    F after each epoch: at a constant rate each step still moves every
//!    parameter by up to the rate, so the last epochs' errors wander.
//! 5. Fit the win/draw/loss model `P(win) = 1 / (1 + exp((a - E) / b))` by
//!    maximum likelihood on the same games ([`crate::eval::wdl`]): the
//!    engine reports scores as `E * 100 / a`, so a reported +100 is a 50%
//!    chance to win at the data's control.
//! 6. Print the training and validation error after each epoch and write
//!    `values.rs` with the data, K and the errors in its header.
//!
//! `--init material` starts from plain material values (100, 300, 300, 500,
//! 900), zero elsewhere and a neutral shape (every piece weighs the same in
//! the phase, danger costs nothing in the endgame, no ending scaled), to
//! show that the start does not matter. `--keep-shape` holds the shape at
//! its starting values. `--without TERM[,TERM...]` holds terms at zero and
//! tunes the others, so that a term can be measured by games against an
//! evaluation fitted to do without it: a TERM is a block of
//! `eval::params` (`PASSED_FREE`) or a row of the `eval` table by its first
//! word (`material`, `placement`, `mobility`, `pawns`, `passed`, `king`,
//! `pieces`, `threats`, `tempo`). The gradient is checked against finite
//! differences in a test.
//!
//! The values in use were fitted to 2,143,832 positions of our own games at
//! 5,000 nodes a move (`forsyth datagen --nodes 5000 --openings
//! 8moves_v3.epd --random-plies 4`, then `forsyth tune --epochs 40 --lambda
//! 0.5 --lr 1.0`); `values.rs` names the data in its header. On two cores a
//! tuning of 2.6 million positions takes about 1 to 1.5 s an epoch.

use crate::chess::{Color, PieceType, Position};
use crate::datagen::format::{self, PackedPosition};
use crate::eval::params::{self, BLOCKS, COUNT, DANGER_END, DANGER_START};
use crate::eval::values::{DANGER_EG, PHASE_WEIGHTS, SCALES, VALUES};
use crate::eval::{self, Accumulator, DANGER_MG_DIV, Ending, FULL_SCALE, MAX_PHASE};
use crate::progress::{Meter, templates};
use crate::rng::Rng;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What `forsyth tune` was asked to do.
#[derive(Clone, Debug)]
pub struct Options {
    pub data: Vec<PathBuf>,
    pub out: PathBuf,
    pub epochs: usize,
    pub batch: usize,
    pub learning_rate: f64,
    /// Each epoch's learning rate is the last one's times this (1: constant).
    pub lr_decay: f64,
    /// Weight of the game result against the search score in the target.
    pub lambda: f64,
    /// Start from plain material values instead of the current ones.
    pub from_material: bool,
    pub threads: usize,
    /// Use at most this many positions (0: all).
    pub limit: usize,
    /// Parameters held at zero (`--without`): the evaluation without
    /// those terms, for measuring what a term is worth.
    pub without: Vec<&'static params::Block>,
    /// Hold the shape (phase weights, danger's endgame cost, ending
    /// scales) at its starting values.
    pub keep_shape: bool,
}

impl Options {
    /// The blocks held at zero, by name, for messages and the values file.
    fn held_names(&self) -> String {
        let names: Vec<&str> = self.without.iter().map(|b| b.name).collect();
        names.join(", ")
    }
}

/// The blocks a `--without` term names: a block by its name in
/// `params.rs` or a row of the `eval` table by its first word, in any case.
pub fn blocks_named(term: &str) -> Option<Vec<&'static params::Block>> {
    let blocks: Vec<_> = BLOCKS
        .iter()
        .filter(|b| {
            b.name.eq_ignore_ascii_case(term)
                || b.group
                    .name()
                    .split(' ')
                    .next()
                    .is_some_and(|word| word.eq_ignore_ascii_case(term))
        })
        .collect();
    (!blocks.is_empty()).then_some(blocks)
}

/// One position, as the tuner sees it.
struct Entry {
    /// Range of this position's linear features in `Data::linear`.
    linear: (u32, u32),
    /// Ranges of the danger units against White's and Black's king.
    danger: [(u32, u32); 2],
    /// Knights, bishops, rooks and queens on the board, for the phase.
    pieces: [u8; 4],
    /// The drawish ending (`Ending as u8`), or NO_ENDING.
    ending: u8,
    result: f32,
    score: f32,
}

/// All positions' features, flat.
#[derive(Default)]
struct Data {
    entries: Vec<Entry>,
    linear: Vec<(u16, i16)>,
    danger: Vec<(u16, i16)>,
}

/// Records counts per parameter, White minus Black.
#[derive(Default)]
struct Recorder {
    linear: Vec<i32>,
    danger: [Vec<(u16, i16)>; 2],
}

impl Accumulator for Recorder {
    fn add(&mut self, side: Color, param: usize, count: i32) {
        if (DANGER_START..DANGER_END).contains(&param) {
            self.danger[side.index()].push((param as u16, count as i16));
        } else {
            let sign = if side == Color::White { 1 } else { -1 };
            self.linear[param] += sign * count;
        }
    }

    fn wants_pawn_features(&self) -> bool {
        true
    }
}

impl Data {
    fn push(&mut self, pos: &Position, score: i16, result: f32, rec: &mut Recorder) {
        rec.linear.clear();
        rec.linear.resize(COUNT, 0);
        rec.danger[0].clear();
        rec.danger[1].clear();
        eval::features(pos, rec);
        let ending = eval::ending(pos, current_eg(rec)).map_or(NO_ENDING, |e| e as u8);
        let mut pieces = [0u8; 4];
        for (k, n) in pieces.iter_mut().enumerate() {
            *n = pos.kind(PIECE_KINDS[k]).count() as u8;
        }
        let start = self.linear.len() as u32;
        for (i, &n) in rec.linear.iter().enumerate() {
            if n != 0 {
                self.linear.push((i as u16, n as i16));
            }
        }
        let mut danger = [(0, 0); 2];
        for (range, units) in danger.iter_mut().zip(&rec.danger) {
            let s = self.danger.len() as u32;
            self.danger.extend_from_slice(units);
            *range = (s, self.danger.len() as u32);
        }
        self.entries.push(Entry {
            linear: (start, self.linear.len() as u32),
            danger,
            pieces,
            ending,
            result,
            score: score as f32,
        });
    }
}

/// The endgame half of the current evaluation, whose sign picks the
/// stronger side for the scale.
fn current_eg(rec: &Recorder) -> i32 {
    let mut eg: i32 = rec
        .linear
        .iter()
        .enumerate()
        .map(|(i, &n)| VALUES[i].eg() * n)
        .sum();
    for (side, sign) in [(0, -1), (1, 1)] {
        let d: i32 = rec.danger[side]
            .iter()
            .map(|&(p, n)| VALUES[p as usize].mg() * n as i32)
            .sum();
        eg += sign * (d.max(0) * DANGER_EG / DANGER_MG_DIV);
    }
    eg
}

/// The kinds whose weights make the phase, in `PHASE_WEIGHTS` order.
const PIECE_KINDS: [PieceType; 4] = [
    PieceType::Knight,
    PieceType::Bishop,
    PieceType::Rook,
    PieceType::Queen,
];
/// `Entry::ending` of a position that is not a drawish ending.
const NO_ENDING: u8 = u8::MAX;

/// Where the shape's numbers sit in `Params::shape`.
const SHAPE_PHASE: usize = 0;
const SHAPE_DANGER_EG: usize = 4;
const SHAPE_SCALES: usize = 5;
const SHAPE_COUNT: usize = SHAPE_SCALES + Ending::COUNT;

/// Parameters as floats: middlegame and endgame halves, and the shape in
/// the engine's units (phase weights of 240, danger per 1024 units,
/// scales of 128).
#[derive(Clone)]
struct Params {
    mg: Vec<f64>,
    eg: Vec<f64>,
    shape: Vec<f64>,
}

impl Params {
    fn zero() -> Params {
        Params {
            mg: vec![0.0; COUNT],
            eg: vec![0.0; COUNT],
            shape: vec![0.0; SHAPE_COUNT],
        }
    }

    fn current() -> Params {
        let mut shape: Vec<f64> = PHASE_WEIGHTS.iter().map(|&w| w as f64).collect();
        shape.push(DANGER_EG as f64);
        shape.extend(SCALES.iter().map(|&x| x as f64));
        Params {
            mg: VALUES.iter().map(|v| v.mg() as f64).collect(),
            eg: VALUES.iter().map(|v| v.eg() as f64).collect(),
            shape,
        }
    }

    /// Plain material (100, 300, 300, 500, 900) and zero everywhere else,
    /// but for one danger unit per attacker so that the danger is alive.
    /// The shape starts neutral: every piece weighs the same in the phase
    /// (a full board is 14 pieces), danger costs nothing in the endgame
    /// and no ending is scaled.
    fn material() -> Params {
        let mut p = Params::zero();
        for (i, v) in [100.0, 300.0, 300.0, 500.0, 900.0].iter().enumerate() {
            p.mg[params::MATERIAL + i] = *v;
            p.eg[params::MATERIAL + i] = *v;
        }
        for k in 0..4 {
            p.mg[params::DANGER_ATTACKER + k] = 1.0;
        }
        p.shape[SHAPE_PHASE..SHAPE_PHASE + 4].fill(MAX_PHASE as f64 / 14.0);
        p.shape[SHAPE_SCALES..].fill(FULL_SCALE as f64);
        p
    }

    /// Keeps the shape where the engine can use it: weights and the
    /// danger cost not negative, scales between nothing and all.
    fn clamp_shape(&mut self) {
        for w in &mut self.shape[..SHAPE_SCALES] {
            *w = w.max(0.0);
        }
        for x in &mut self.shape[SHAPE_SCALES..] {
            *x = x.clamp(0.0, FULL_SCALE as f64);
        }
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The danger units against one king, and whether they count (d > 0).
fn danger_units(data: &Data, range: (u32, u32), p: &Params) -> f64 {
    data.danger[range.0 as usize..range.1 as usize]
        .iter()
        .map(|&(i, n)| p.mg[i as usize] * n as f64)
        .sum::<f64>()
}

/// The taper of entry `e`: (phase, whether the phase is below its cap,
/// the endgame scale), phase and scale as fractions.
fn taper(e: &Entry, p: &Params) -> (f64, bool, f64) {
    let sum: f64 = (0..4)
        .map(|k| p.shape[SHAPE_PHASE + k] * e.pieces[k] as f64)
        .sum();
    let capped = sum >= MAX_PHASE as f64;
    let phase = sum.min(MAX_PHASE as f64) / MAX_PHASE as f64;
    let scale = if e.ending == NO_ENDING {
        1.0
    } else {
        p.shape[SHAPE_SCALES + e.ending as usize] / FULL_SCALE as f64
    };
    (phase, !capped, scale)
}

/// The middlegame and endgame halves of entry `e` (White minus Black,
/// danger included), and the danger units against White's and Black's
/// king before they are clamped at zero (the gradient needs the sign).
fn halves(data: &Data, e: &Entry, p: &Params) -> (f64, f64, [f64; 2]) {
    let mut mg = 0.0;
    let mut eg = 0.0;
    for &(i, n) in &data.linear[e.linear.0 as usize..e.linear.1 as usize] {
        mg += p.mg[i as usize] * n as f64;
        eg += p.eg[i as usize] * n as f64;
    }
    let mut danger = [0.0; 2];
    let div = DANGER_MG_DIV as f64;
    for (side, sign) in [(0, -1.0), (1, 1.0)] {
        danger[side] = danger_units(data, e.danger[side], p);
        let d = danger[side].max(0.0);
        mg += sign * d * d / div;
        eg += sign * d * p.shape[SHAPE_DANGER_EG] / div;
    }
    (mg, eg, danger)
}

/// The evaluation of entry `e` in centipawns, White's point of view.
fn evaluate(data: &Data, e: &Entry, p: &Params) -> f64 {
    let (mg, eg, _) = halves(data, e, p);
    let (phase, _, scale) = taper(e, p);
    mg * phase + eg * scale * (1.0 - phase)
}

/// The target of entry `e`: the result blended with the search score.
fn target(e: &Entry, k: f64, lambda: f64) -> f64 {
    lambda * e.result as f64 + (1.0 - lambda) * sigmoid(k * e.score as f64 / 400.0)
}

/// Mean squared error over `entries`, on `threads` threads.
fn mse(data: &Data, entries: &[usize], p: &Params, k: f64, lambda: f64, threads: usize) -> f64 {
    if entries.is_empty() {
        return 0.0;
    }
    let chunk = entries.len().div_ceil(threads);
    let total: f64 = std::thread::scope(|s| {
        let handles: Vec<_> = entries
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|&i| {
                            let e = &data.entries[i];
                            let err =
                                sigmoid(k * evaluate(data, e, p) / 400.0) - target(e, k, lambda);
                            err * err
                        })
                        .sum::<f64>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or(0.0)).sum()
    });
    total / entries.len() as f64
}

/// The K that best fits the current evaluation to the results.
fn fit_k(data: &Data, entries: &[usize], p: &Params, lambda: f64, threads: usize) -> f64 {
    let (mut lo, mut hi) = (0.1, 10.0);
    for _ in 0..40 {
        let a = lo + (hi - lo) / 3.0;
        let b = hi - (hi - lo) / 3.0;
        if mse(data, entries, p, a, lambda, threads) < mse(data, entries, p, b, lambda, threads) {
            hi = b;
        } else {
            lo = a;
        }
    }
    (lo + hi) / 2.0
}

/// Adds the gradient of the squared error of `batch` to `grad`.
fn gradient(data: &Data, batch: &[usize], p: &Params, k: f64, lambda: f64, grad: &mut Params) {
    let div = DANGER_MG_DIV as f64;
    for &i in batch {
        let e = &data.entries[i];
        let (mg, eg, danger) = halves(data, e, p);
        let (phase, below_cap, scale) = taper(e, p);
        let pred = sigmoid(k * (mg * phase + eg * scale * (1.0 - phase)) / 400.0);
        // d(err^2)/dE, with E in centipawns.
        let de = 2.0 * (pred - target(e, k, lambda)) * pred * (1.0 - pred) * k / 400.0;
        let (wm, we) = (phase * de, scale * (1.0 - phase) * de);
        for &(j, n) in &data.linear[e.linear.0 as usize..e.linear.1 as usize] {
            grad.mg[j as usize] += wm * n as f64;
            grad.eg[j as usize] += we * n as f64;
        }
        for (side, sign) in [(0, -1.0), (1, 1.0)] {
            let (range, d) = (e.danger[side], danger[side]);
            if d < 0.0 {
                continue;
            }
            // d/dunit of (d^2/1024 in mg, d*c/1024 in eg), times the count.
            let per = sign * (wm * 2.0 * d / div + we * p.shape[SHAPE_DANGER_EG] / div);
            for &(j, n) in &data.danger[range.0 as usize..range.1 as usize] {
                grad.mg[j as usize] += per * n as f64;
            }
            grad.shape[SHAPE_DANGER_EG] += sign * we * d / div;
        }
        // The shape: dE/dphase = mg - eg * scale, dE/dscale = eg * (1 - phase).
        if below_cap {
            let per = (mg - eg * scale) * de / MAX_PHASE as f64;
            for kind in 0..4 {
                grad.shape[SHAPE_PHASE + kind] += per * e.pieces[kind] as f64;
            }
        }
        if e.ending != NO_ENDING {
            grad.shape[SHAPE_SCALES + e.ending as usize] +=
                eg * (1.0 - phase) * de / FULL_SCALE as f64;
        }
    }
}

/// Loads the records of every file, up to `limit` positions (0: all).
fn load(files: &[PathBuf], limit: usize) -> Result<Data, String> {
    let mut data = Data::default();
    let mut rec = Recorder::default();
    let mut skipped = 0usize;
    let mut buf: Vec<PackedPosition> = Vec::new();
    'files: for path in files {
        let mut records = format::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        loop {
            buf.clear();
            let n = records
                .read_chunk(&mut buf, 1 << 16)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            if n == 0 {
                break;
            }
            for r in &buf {
                match r.unpack() {
                    Ok((pos, score, result)) => {
                        data.push(&pos, score, result.white_score(), &mut rec);
                    }
                    Err(_) => skipped += 1,
                }
                if limit > 0 && data.entries.len() >= limit {
                    break 'files;
                }
            }
        }
    }
    if skipped > 0 {
        eprintln!("tune: skipped {skipped} unreadable records");
    }
    if data.entries.is_empty() {
        return Err("no positions in the data".into());
    }
    Ok(data)
}

pub use crate::eval::wdl::fit as fit_wdl;

/// What a run found, for the caller to print.
pub struct Report {
    pub positions: usize,
    pub k: f64,
    pub validation_before: f64,
    pub validation_after: f64,
    /// The fitted win/draw/loss model (see `eval::wdl`).
    pub wdl: (f64, f64),
}

/// Runs the tuner and writes the values file.
pub fn run(o: &Options) -> Result<Report, String> {
    let start = Instant::now();
    let data = load(&o.data, o.limit)?;
    eprintln!(
        "tune: {} positions, {} features, loaded in {:.1}s",
        data.entries.len(),
        data.linear.len() + data.danger.len(),
        start.elapsed().as_secs_f64()
    );
    // One tenth is held out: runs of 1024 consecutive records chosen by
    // a fixed hash. A game's positions are written together, so only the
    // games at the ends of a run fall on both sides of the split.
    let mut train = Vec::new();
    let mut valid = Vec::new();
    for i in 0..data.entries.len() {
        if Rng::new((i / 1024) as u64 ^ 0x5EED)
            .next_u64()
            .is_multiple_of(10)
        {
            valid.push(i);
        } else {
            train.push(i);
        }
    }
    if valid.is_empty() {
        eprintln!(
            "tune: warning: no position held out for validation (one run of 1,024 in ten is), \
             so its error reads 0"
        );
    }
    let current = Params::current();
    let k = fit_k(&data, &train, &current, o.lambda, o.threads);
    let mut p = if o.from_material {
        Params::material()
    } else {
        current.clone()
    };
    let mut held = vec![false; COUNT];
    for b in &o.without {
        let range = b.start..b.start + b.len;
        held[range.clone()].fill(true);
        p.mg[range.clone()].fill(0.0);
        p.eg[range].fill(0.0);
    }
    if !o.without.is_empty() {
        eprintln!("tune: held at zero: {}", o.held_names());
    }
    // Measured with the values the engine has now, and with the start.
    let validation_before = mse(&data, &valid, &current, k, o.lambda, o.threads);
    eprintln!(
        "tune: K = {k:.4}; validation error of the current values {validation_before:.6}, of the start {:.6}",
        mse(&data, &valid, &p, k, o.lambda, o.threads)
    );

    if o.keep_shape {
        eprintln!("tune: the shape is held at its starting values");
    }

    // Adam.
    let (beta1, beta2, eps): (f64, f64, f64) = (0.9, 0.999, 1e-8);
    let zero = Params::zero();
    let mut m = zero.clone();
    let mut v = zero.clone();
    let mut t = 0i32;
    let mut order = train.clone();
    let mut rng = Rng::new(1);
    let batches = order.len().div_ceil(o.batch) as u64;
    let meter = Meter::new(batches * o.epochs as u64, templates::TUNE);
    for epoch in 1..=o.epochs {
        meter.set_message(format!("epoch {epoch}/{}", o.epochs));
        let lr = o.learning_rate * o.lr_decay.powi(epoch as i32 - 1);
        for i in (1..order.len()).rev() {
            let j = (rng.next_u64() % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
        for batch in order.chunks(o.batch) {
            let chunk = batch.len().div_ceil(o.threads);
            let grads: Vec<Params> = std::thread::scope(|s| {
                let handles: Vec<_> = batch
                    .chunks(chunk)
                    .map(|part| {
                        let (data, p, zero) = (&data, &p, &zero);
                        s.spawn(move || {
                            let mut g = zero.clone();
                            gradient(data, part, p, k, o.lambda, &mut g);
                            g
                        })
                    })
                    .collect();
                handles.into_iter().filter_map(|h| h.join().ok()).collect()
            });
            t += 1;
            meter.set_position(t as u64);
            let scale = 1.0 / batch.len() as f64;
            let c1 = 1.0 - beta1.powi(t);
            let c2 = 1.0 - beta2.powi(t);
            let step = |m: &mut f64, v: &mut f64, x: &mut f64, g: f64| {
                *m = beta1 * *m + (1.0 - beta1) * g;
                *v = beta2 * *v + (1.0 - beta2) * g * g;
                *x -= lr * (*m / c1) / ((*v / c2).sqrt() + eps);
            };
            for i in (0..COUNT).filter(|&i| !held[i]) {
                let g: f64 = grads.iter().map(|g| g.mg[i]).sum::<f64>() * scale;
                step(&mut m.mg[i], &mut v.mg[i], &mut p.mg[i], g);
                let g: f64 = grads.iter().map(|g| g.eg[i]).sum::<f64>() * scale;
                step(&mut m.eg[i], &mut v.eg[i], &mut p.eg[i], g);
            }
            if !o.keep_shape {
                for i in 0..SHAPE_COUNT {
                    let g: f64 = grads.iter().map(|g| g.shape[i]).sum::<f64>() * scale;
                    step(&mut m.shape[i], &mut v.shape[i], &mut p.shape[i], g);
                }
                p.clamp_shape();
            }
        }
        meter.line(&format!(
            "tune: epoch {epoch}/{}: training error {:.6}, validation error {:.6}, {:.0}s",
            o.epochs,
            mse(&data, &train, &p, k, o.lambda, o.threads),
            mse(&data, &valid, &p, k, o.lambda, o.threads),
            start.elapsed().as_secs_f64()
        ));
    }
    meter.finish();
    let validation_after = mse(&data, &valid, &p, k, o.lambda, o.threads);
    // The win/draw/loss model, on the integer evaluation the engine will
    // compute with the rounded values.
    let rounded = Params {
        mg: p.mg.iter().map(|x| x.round()).collect(),
        eg: p.eg.iter().map(|x| x.round()).collect(),
        shape: p.shape.iter().map(|x| x.round()).collect(),
    };
    let samples: Vec<(f64, f32)> = train
        .iter()
        .map(|&i| {
            let e = &data.entries[i];
            (evaluate(&data, e, &rounded), e.result)
        })
        .collect();
    let wdl = fit_wdl(&samples);
    eprintln!(
        "tune: win/draw/loss model a = {:.1}, b = {:.1}",
        wdl.0, wdl.1
    );
    let report = Report {
        positions: data.entries.len(),
        k,
        validation_before,
        validation_after,
        wdl,
    };
    eprintln!(
        "tune: phase weights (knight, bishop, rook, queen; a full board is {MAX_PHASE}) {:?}, \
         endgame danger {} per {DANGER_MG_DIV} units, ending scales (of {FULL_SCALE}) {:?}",
        &rounded.shape[SHAPE_PHASE..SHAPE_PHASE + 4],
        rounded.shape[SHAPE_DANGER_EG],
        &rounded.shape[SHAPE_SCALES..]
    );
    write_values(&o.out, &rounded, o, &report)?;
    Ok(report)
}

/// Writes the values as the Rust source file the evaluation includes.
fn write_values(path: &Path, p: &Params, o: &Options, r: &Report) -> Result<(), String> {
    let mut s = String::new();
    let files: Vec<String> = o
        .data
        .iter()
        .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    let _ = writeln!(
        s,
        "//! The evaluation's numbers, in the order of `params.rs`."
    );
    let _ = writeln!(s, "//!");
    let _ = writeln!(
        s,
        "//! Written by `forsyth tune` from {} positions of {} (started from {} values,",
        r.positions,
        files.join(", "),
        if o.from_material {
            "material"
        } else {
            "the previous"
        }
    );
    let _ = writeln!(
        s,
        "//! lambda {}, {} epochs): K = {:.4}, validation error {:.6} before, {:.6} after.",
        o.lambda, o.epochs, r.k, r.validation_before, r.validation_after
    );
    if o.lr_decay != 1.0 {
        let _ = writeln!(
            s,
            "//! Learning rate {}, times {} after each epoch (--lr-decay).",
            o.learning_rate, o.lr_decay
        );
    }
    if !o.without.is_empty() {
        let _ = writeln!(s, "//! Held at zero (--without): {}.", o.held_names());
    }
    if o.keep_shape {
        let _ = writeln!(
            s,
            "//! The shape was held at its starting values (--keep-shape)."
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "use super::params::COUNT;");
    let _ = writeln!(s, "use super::score::{{Score, s}};");
    let _ = writeln!(s);
    let _ = writeln!(s, "#[rustfmt::skip]");
    let _ = writeln!(s, "pub static VALUES: [Score; COUNT] = [");
    for b in BLOCKS {
        let _ = writeln!(s, "    // {}", b.name);
        for row in (b.start..b.start + b.len).collect::<Vec<_>>().chunks(8) {
            let cells: Vec<String> = row
                .iter()
                .map(|&i| {
                    let (mg, eg) = (p.mg[i].round() as i32, p.eg[i].round() as i32);
                    let eg = if (DANGER_START..DANGER_END).contains(&i) {
                        0
                    } else {
                        eg
                    };
                    format!("s({mg}, {eg}),")
                })
                .collect();
            let _ = writeln!(s, "    {}", cells.join(" "));
        }
    }
    let _ = writeln!(s, "];");
    let _ = writeln!(s);
    let ints = |r: std::ops::Range<usize>| -> String {
        let v: Vec<String> = p.shape[r]
            .iter()
            .map(|x| format!("{}", x.round() as i32))
            .collect();
        v.join(", ")
    };
    let _ = writeln!(
        s,
        "/// The shape around the values (see `eval/mod.rs`), learned with them."
    );
    let _ = writeln!(
        s,
        "/// Phase weight of a knight, bishop, rook, queen (a full board is {MAX_PHASE})."
    );
    let _ = writeln!(
        s,
        "pub const PHASE_WEIGHTS: [i32; 4] = [{}];",
        ints(SHAPE_PHASE..SHAPE_PHASE + 4)
    );
    let _ = writeln!(
        s,
        "/// Endgame cost of king danger, per DANGER_MG_DIV units."
    );
    let _ = writeln!(
        s,
        "pub const DANGER_EG: i32 = {};",
        p.shape[SHAPE_DANGER_EG].round() as i32
    );
    let _ = writeln!(
        s,
        "/// Endgame scale of each drawish ending (`eval::Ending`), out of {FULL_SCALE}."
    );
    let _ = writeln!(
        s,
        "pub const SCALES: [i32; {}] = [{}];",
        Ending::COUNT,
        ints(SHAPE_SCALES..SHAPE_COUNT)
    );
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "/// The win/draw/loss model (see `wdl.rs`), fitted with the values."
    );
    let _ = writeln!(s, "pub const WDL_A: f64 = {:.1};", r.wdl.0);
    let _ = writeln!(s, "pub const WDL_B: f64 = {:.1};", r.wdl.1);
    std::fs::write(path, s).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tuner's evaluation, with the current values, is the engine's
    /// (to rounding: the engine divides in integers).
    #[test]
    fn tuner_evaluation_matches_the_engine() {
        let mut data = Data::default();
        let mut rec = Recorder::default();
        let fens = crate::search::bench::POSITIONS.iter().chain(ENDINGS.iter());
        let p = Params::current();
        for fen in fens {
            let pos = Position::from_fen(fen).expect("bench FEN").0;
            data.push(&pos, 0, 0.5, &mut rec);
            let e = data.entries.last().expect("just pushed");
            let tuned = evaluate(&data, e, &p);
            let engine = eval::evaluate(&pos) as f64;
            let engine = if pos.side_to_move() == Color::White {
                engine
            } else {
                -engine
            };
            assert!(
                (tuned - engine).abs() <= 2.0,
                "{fen}: tuner {tuned}, engine {engine}"
            );
        }
    }

    /// The model fit recovers the parameters of synthetic games.
    #[test]
    fn wdl_fit_recovers_a_known_model() {
        let (a, b) = (180.0, 70.0);
        let p = |x: f64| 1.0 / (1.0 + ((a - x) / b).exp());
        let mut samples = Vec::new();
        let mut rng = Rng::new(5);
        for i in 0..40_000 {
            let e = (i % 801) as f64 - 400.0;
            let u = rng.unit();
            let r = if u < p(e) {
                1.0
            } else if u > 1.0 - p(-e) {
                0.0
            } else {
                0.5
            };
            samples.push((e, r));
        }
        let (fa, fb) = fit_wdl(&samples);
        assert!((fa - a).abs() < 10.0 && (fb - b).abs() < 8.0, "{fa} {fb}");
    }

    /// Drawish endings of every kind, for the scales' gradients.
    const ENDINGS: [&str; 5] = [
        "8/8/4k3/8/8/3NK3/8/8 w - - 0 1",
        "8/8/4k3/4b3/8/3RK3/8/8 w - - 0 1",
        "8/5p2/4kb2/8/1P6/3BK3/P7/8 w - - 0 1",
        "r7/5p2/4kb2/8/1P6/3BK3/P7/7R w - - 0 1",
        "8/8/4k3/8/6P1/4K3/r7/7R w - - 0 1",
    ];

    /// The gradient agrees with a finite difference of the error, for
    /// values of every kind and for every number of the shape.
    #[test]
    fn gradient_matches_finite_differences() {
        let mut data = Data::default();
        let mut rec = Recorder::default();
        let fens = crate::search::bench::POSITIONS.iter().chain(ENDINGS.iter());
        for (i, fen) in fens.enumerate() {
            let pos = Position::from_fen(fen).expect("test FEN").0;
            data.push(&pos, 0, (i % 3) as f32 / 2.0, &mut rec);
        }
        let endings: Vec<u8> = data.entries.iter().map(|e| e.ending).collect();
        for e in Ending::ALL {
            assert!(endings.contains(&(e as u8)), "no {e:?} in the test data");
        }
        let all: Vec<usize> = (0..data.entries.len()).collect();
        // Off the kinks: no position at the phase's cap, no scale at
        // its bounds.
        let mut p = Params::current();
        p.shape[..4].copy_from_slice(&[9.3, 9.1, 19.2, 38.7]);
        p.shape[SHAPE_SCALES..].fill(100.0);
        let k = 1.0;
        let mut g = Params::zero();
        gradient(&data, &all, &p, k, 1.0, &mut g);
        let n = all.len() as f64;
        let check = |name: String, numeric: f64, analytic: f64| {
            assert!(
                (numeric - analytic).abs() <= 1e-3 * analytic.abs().max(1e-6),
                "{name}: numeric {numeric}, analytic {analytic}"
            );
        };
        let h = 0.5;
        let diff = |up: &Params, down: &Params| {
            (mse(&data, &all, up, k, 1.0, 1) - mse(&data, &all, down, k, 1.0, 1)) / (2.0 * h)
        };
        for i in [
            params::MATERIAL + 1,
            params::PST + 64 + 27,
            params::MOBILITY_ROOK + 7,
            params::TEMPO,
            params::DANGER_ATTACKER + 3,
        ] {
            let (mut up, mut down) = (p.clone(), p.clone());
            up.mg[i] += h;
            down.mg[i] -= h;
            check(params::name_of(i), diff(&up, &down), g.mg[i] / n);
        }
        for i in [params::MATERIAL + 3, params::PASSED_RANK + 5] {
            let (mut up, mut down) = (p.clone(), p.clone());
            up.eg[i] += h;
            down.eg[i] -= h;
            check(params::name_of(i), diff(&up, &down), g.eg[i] / n);
        }
        for i in 0..SHAPE_COUNT {
            let (mut up, mut down) = (p.clone(), p.clone());
            up.shape[i] += h;
            down.shape[i] -= h;
            let analytic = g.shape[i] / n;
            assert!(analytic != 0.0, "shape {i} has no gradient");
            check(format!("shape {i}"), diff(&up, &down), analytic);
        }
    }

    /// The shape's numbers reach the engine as the tuner reads them.
    #[test]
    fn current_shape_is_the_engines() {
        let p = Params::current();
        let weights: Vec<i32> = p.shape[..4].iter().map(|&x| x as i32).collect();
        assert_eq!(weights, PHASE_WEIGHTS);
        assert_eq!(p.shape[SHAPE_DANGER_EG] as i32, DANGER_EG);
        let scales: Vec<i32> = p.shape[SHAPE_SCALES..].iter().map(|&x| x as i32).collect();
        assert_eq!(scales, SCALES);
    }
}
