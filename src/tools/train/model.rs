//! The network in floating point, as the trainer sees it: forward pass,
//! gradients, AdamW, and quantisation into the engine's file.
//!
//! Prediction and loss, per position (side to move's view):
//!
//! ```text
//!  h_us  = b0 + sum of W0[f] over the side to move's active features f
//!  h_them = b0 + sum of W0[f] over the other side's view
//!  z = b1 + sum_i screlu(h_us[i]) * W1[i] + sum_i screlu(h_them[i]) * W1[H + i]
//!  p = sigmoid(z * SCALE / scale)        (z * SCALE is the engine's centipawns)
//!  t = lambda * sigmoid(score / scale) + (1 - lambda) * result
//!  loss = (p - t)^2
//! ```
//!
//! with `screlu(x) = clamp(x, 0, 1)^2`. Only the rows of the active
//! features get a gradient in the first layer: a position touches about 30
//! of its 768 rows per view.
//!
//! With output buckets, `W1` and `b1` are those of the position's bucket
//! (by its piece count, as the engine chooses it), and only they get a
//! gradient. With mirroring, each view's feature indices have their files
//! turned round (`f ^ 7`) when that view's own king stands on files e-h.

use super::data::Sample;
use crate::engine::nnue::network::{self, NetworkError};
use crate::engine::nnue::{INPUTS, QA, QB, SCALE, WEIGHT_CLIP};

/// The shape of a network beyond its constants: hidden neurons per
/// perspective, output buckets, and whether its inputs are mirrored.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    pub hidden: usize,
    pub buckets: usize,
    pub mirrored: bool,
}

impl Shape {
    /// `hidden` neurons, one bucket, no mirroring (the first two
    /// generations' shape).
    pub fn plain(hidden: usize) -> Shape {
        Shape {
            hidden,
            buckets: 1,
            mirrored: false,
        }
    }
}

/// Parameters (or gradients, or optimiser moments) of one network.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    pub hidden: usize,
    pub buckets: usize,
    /// Not a parameter: how the inputs are read.
    pub mirrored: bool,
    /// [INPUTS][hidden], row-major by feature.
    pub ft_w: Vec<f32>,
    pub ft_b: Vec<f32>,
    /// [buckets][2 * hidden]: in each, the side to move's half, then the other's.
    pub out_w: Vec<f32>,
    /// [buckets]
    pub out_b: Vec<f32>,
}

impl Params {
    pub fn zeros(shape: Shape) -> Params {
        let Shape {
            hidden,
            buckets,
            mirrored,
        } = shape;
        Params {
            hidden,
            buckets,
            mirrored,
            ft_w: vec![0.0; INPUTS * hidden],
            ft_b: vec![0.0; hidden],
            out_w: vec![0.0; buckets * 2 * hidden],
            out_b: vec![0.0; buckets],
        }
    }

    pub fn shape(&self) -> Shape {
        Shape {
            hidden: self.hidden,
            buckets: self.buckets,
            mirrored: self.mirrored,
        }
    }

    /// The output bucket of `s`, by its piece count, as the engine's
    /// [`crate::engine::nnue::Network::bucket`] chooses it.
    #[inline(always)]
    pub fn bucket(&self, s: &Sample) -> usize {
        crate::engine::nnue::Network::bucket_of(s.stm.len() as u32, self.buckets)
    }

    /// Random initial weights from `seed`: uniform in ±1/sqrt(fan-in) for
    /// each layer (32 active inputs for the first), zero biases.
    pub fn random(shape: Shape, seed: u64) -> Params {
        let hidden = shape.hidden;
        let mut rng = crate::engine::rng::Rng::new(seed);
        let mut uniform = |bound: f32| {
            let u = (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
            (2.0 * u - 1.0) * bound
        };
        let mut p = Params::zeros(shape);
        let b0 = 1.0 / 32f32.sqrt();
        for w in &mut p.ft_w {
            *w = uniform(b0);
        }
        let b1 = 1.0 / ((2 * hidden) as f32).sqrt();
        for w in &mut p.out_w {
            *w = uniform(b1);
        }
        p
    }

    pub fn count(&self) -> usize {
        self.ft_w.len() + self.ft_b.len() + self.out_w.len() + self.out_b.len()
    }

    /// Every number, in file order (for checkpoints and tests).
    pub fn flat(&self) -> impl Iterator<Item = &f32> {
        self.ft_w
            .iter()
            .chain(&self.ft_b)
            .chain(&self.out_w)
            .chain(&self.out_b)
    }

    pub fn flat_mut(&mut self) -> impl Iterator<Item = &mut f32> {
        self.ft_w
            .iter_mut()
            .chain(&mut self.ft_b)
            .chain(&mut self.out_w)
            .chain(&mut self.out_b)
    }

    pub fn fill(&mut self, v: f32) {
        for x in self.flat_mut() {
            *x = v;
        }
    }

    /// `self += other`, elementwise.
    pub fn add(&mut self, other: &Params) {
        add_into(&mut self.ft_w, &other.ft_w);
        add_into(&mut self.ft_b, &other.ft_b);
        add_into(&mut self.out_w, &other.out_w);
        add_into(&mut self.out_b, &other.out_b);
    }
}

#[inline(always)]
fn add_into(dst: &mut [f32], src: &[f32]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d += s;
    }
}

/// The loss's settings.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct LossConfig {
    /// Weight of the search score in the target (1 - lambda: the result).
    pub lambda: f32,
    /// Centipawns per unit of the sigmoid, for the score and the output.
    pub scale: f32,
}

pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

#[inline(always)]
fn screlu(x: f32) -> f32 {
    let c = x.clamp(0.0, 1.0);
    c * c
}

/// Scratch space for one position's pass, reused between positions.
pub struct Scratch {
    h_us: Vec<f32>,
    h_them: Vec<f32>,
    d_us: Vec<f32>,
    d_them: Vec<f32>,
}

impl Scratch {
    pub fn new(hidden: usize) -> Scratch {
        Scratch {
            h_us: vec![0.0; hidden],
            h_them: vec![0.0; hidden],
            d_us: vec![0.0; hidden],
            d_them: vec![0.0; hidden],
        }
    }
}

/// The feature of a view's own king: its piece index (5, the king of the
/// side whose view it is) times 64, plus its square.
const OWN_KING: std::ops::Range<u16> = 5 * 64..6 * 64;

/// What the features of one view are XORed with: 7 (files turned round)
/// when the network is mirrored and the view's own king is on files e-h.
#[inline(always)]
pub fn flip(p: &Params, features: &[u16]) -> usize {
    if !p.mirrored {
        return 0;
    }
    match features.iter().find(|f| OWN_KING.contains(f)) {
        Some(&king) if king & 7 >= 4 => 7,
        _ => 0,
    }
}

/// `h = b0 + sum of the rows of features` (each XORed with `flip`).
#[inline(always)]
fn transform(p: &Params, features: &[u16], flip: usize, h: &mut [f32]) {
    let n = p.hidden;
    h.copy_from_slice(&p.ft_b);
    for &f in features {
        let f = usize::from(f) ^ flip;
        add_into(h, &p.ft_w[f * n..(f + 1) * n]);
    }
}

/// The output `z` (before the sigmoid; `z * SCALE` is centipawns).
pub fn forward(p: &Params, s: &Sample, scratch: &mut Scratch) -> f32 {
    transform(p, &s.stm, flip(p, &s.stm), &mut scratch.h_us);
    transform(p, &s.nstm, flip(p, &s.nstm), &mut scratch.h_them);
    output(p, p.bucket(s), scratch)
}

#[inline(always)]
fn output(p: &Params, bucket: usize, scratch: &Scratch) -> f32 {
    let n = p.hidden;
    let (w_us, w_them) = p.out_w[bucket * 2 * n..(bucket + 1) * 2 * n].split_at(n);
    let mut z = p.out_b[bucket];
    for (h, w) in scratch.h_us.iter().zip(w_us) {
        z += screlu(*h) * w;
    }
    for (h, w) in scratch.h_them.iter().zip(w_them) {
        z += screlu(*h) * w;
    }
    z
}

/// The hidden layer's inputs for both perspectives (side to move first),
/// before SCReLU.
pub fn hidden(p: &Params, s: &Sample) -> (Vec<f32>, Vec<f32>) {
    let mut scratch = Scratch::new(p.hidden);
    transform(p, &s.stm, flip(p, &s.stm), &mut scratch.h_us);
    transform(p, &s.nstm, flip(p, &s.nstm), &mut scratch.h_them);
    (scratch.h_us, scratch.h_them)
}

/// The target of a sample.
#[inline(always)]
fn target(s: &Sample, cfg: &LossConfig) -> f32 {
    cfg.lambda * sigmoid(s.score / cfg.scale) + (1.0 - cfg.lambda) * s.result
}

/// The loss of one position.
pub fn loss(p: &Params, s: &Sample, cfg: &LossConfig, scratch: &mut Scratch) -> f32 {
    let z = forward(p, s, scratch);
    let pred = sigmoid(z * SCALE as f32 / cfg.scale);
    let d = pred - target(s, cfg);
    d * d
}

/// Adds the gradient of one position's loss to `g` (whose first-layer rows
/// are touched only for the active features) and returns the loss.
pub fn backward(
    p: &Params,
    s: &Sample,
    cfg: &LossConfig,
    scratch: &mut Scratch,
    g: &mut Params,
) -> f32 {
    let n = p.hidden;
    let z = forward(p, s, scratch);
    let k = SCALE as f32 / cfg.scale;
    let pred = sigmoid(z * k);
    let diff = pred - target(s, cfg);
    let dz = 2.0 * diff * pred * (1.0 - pred) * k;

    let bucket = p.bucket(s);
    let out = bucket * 2 * n..(bucket + 1) * 2 * n;
    g.out_b[bucket] += dz;
    let (w_us, w_them) = p.out_w[out.clone()].split_at(n);
    let (g_us, g_them) = g.out_w[out].split_at_mut(n);
    // d loss / d h = dz * w * screlu'(h), screlu'(h) = 2h inside (0, 1).
    let half = |h: &[f32], w: &[f32], gw: &mut [f32], dh: &mut [f32]| {
        for i in 0..h.len() {
            let c = h[i].clamp(0.0, 1.0);
            gw[i] += dz * c * c;
            let inside = if h[i] > 0.0 && h[i] < 1.0 { 1.0 } else { 0.0 };
            dh[i] = dz * w[i] * 2.0 * c * inside;
        }
    };
    half(&scratch.h_us, w_us, g_us, &mut scratch.d_us);
    half(&scratch.h_them, w_them, g_them, &mut scratch.d_them);
    add_into(&mut g.ft_b, &scratch.d_us);
    add_into(&mut g.ft_b, &scratch.d_them);
    let (flip_us, flip_them) = (flip(p, &s.stm), flip(p, &s.nstm));
    for &f in &s.stm {
        let f = usize::from(f) ^ flip_us;
        add_into(&mut g.ft_w[f * n..(f + 1) * n], &scratch.d_us);
    }
    for &f in &s.nstm {
        let f = usize::from(f) ^ flip_them;
        add_into(&mut g.ft_w[f * n..(f + 1) * n], &scratch.d_them);
    }
    diff * diff
}

/// AdamW (decoupled weight decay), with the weights clipped to
/// ±[`WEIGHT_CLIP`] after each step so that they quantise without overflow.
#[derive(Clone, Debug, PartialEq)]
pub struct AdamW {
    pub m: Params,
    pub v: Params,
    /// Steps taken.
    pub t: u64,
    pub beta1: f32,
    pub beta2: f32,
    pub eps: f32,
    pub decay: f32,
}

impl AdamW {
    pub fn new(shape: Shape, decay: f32) -> AdamW {
        AdamW {
            m: Params::zeros(shape),
            v: Params::zeros(shape),
            t: 0,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            decay,
        }
    }

    /// One step on `p` with gradient `g` (already the batch mean).
    pub fn step(&mut self, p: &mut Params, g: &Params, lr: f32) {
        self.t += 1;
        let (b1, b2) = (self.beta1, self.beta2);
        let c1 = 1.0 - b1.powf(self.t as f32);
        let c2 = 1.0 - b2.powf(self.t as f32);
        let (eps, decay) = (self.eps, self.decay);
        let update = |w: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32]| {
            for i in 0..w.len() {
                m[i] = b1 * m[i] + (1.0 - b1) * g[i];
                v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
                let step = (m[i] / c1) / ((v[i] / c2).sqrt() + eps);
                w[i] = (w[i] - lr * (step + decay * w[i])).clamp(-WEIGHT_CLIP, WEIGHT_CLIP);
            }
        };
        update(&mut p.ft_w, &g.ft_w, &mut self.m.ft_w, &mut self.v.ft_w);
        update(&mut p.ft_b, &g.ft_b, &mut self.m.ft_b, &mut self.v.ft_b);
        update(&mut p.out_w, &g.out_w, &mut self.m.out_w, &mut self.v.out_w);
        // The output biases are neither clipped (they are stored as i32)
        // nor decayed.
        for (i, b) in p.out_b.iter_mut().enumerate() {
            let (m, v, gb) = (&mut self.m.out_b[i], &mut self.v.out_b[i], g.out_b[i]);
            *m = b1 * *m + (1.0 - b1) * gb;
            *v = b2 * *v + (1.0 - b2) * gb * gb;
            *b -= lr * (*m / c1) / ((*v / c2).sqrt() + eps);
        }
    }
}

/// The quantised weights of `p`, as the engine's file stores them, checked
/// for the engine's bounds.
pub fn quantise(p: &Params) -> Result<Vec<u8>, NetworkError> {
    let q = |x: f32, by: i32| (x * by as f32).round() as i32;
    let clamp16 = |x: i32| x.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
    let ft_w: Vec<i16> = p.ft_w.iter().map(|&w| clamp16(q(w, QA))).collect();
    let ft_b: Vec<i16> = p.ft_b.iter().map(|&b| clamp16(q(b, QA))).collect();
    let out_w: Vec<i16> = p.out_w.iter().map(|&w| clamp16(q(w, QB))).collect();
    let out_b: Vec<i32> = p.out_b.iter().map(|&b| q(b, QA * QB)).collect();
    network::check_bounds(p.hidden, &ft_w, &ft_b, &out_w)?;
    Ok(network::encode(
        p.hidden, &ft_w, &ft_b, &out_w, &out_b, p.mirrored,
    ))
}

/// The float parameters of a quantised network file's weights (each weight
/// divided by its quantisation), for comparing the engine with the trainer.
pub fn dequantise(
    shape: Shape,
    ft_w: &[i16],
    ft_b: &[i16],
    out_w: &[i16],
    out_b: &[i32],
) -> Params {
    Params {
        hidden: shape.hidden,
        buckets: shape.buckets,
        mirrored: shape.mirrored,
        ft_w: ft_w.iter().map(|&w| f32::from(w) / QA as f32).collect(),
        ft_b: ft_b.iter().map(|&w| f32::from(w) / QA as f32).collect(),
        out_w: out_w.iter().map(|&w| f32::from(w) / QB as f32).collect(),
        out_b: out_b.iter().map(|&b| b as f32 / (QA * QB) as f32).collect(),
    }
}
