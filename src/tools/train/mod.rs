//! `forsyth train`: trains the evaluation network on `forsyth datagen`
//! records, on the CPU, and writes the quantised file the engine reads.
//!
//! The run:
//! 1. Read every data file whole ([`data`]), check every record, drop the
//!    early plies, and put one game in `--validation-every` aside.
//! 2. Fit the sigmoid scale to the scores and results unless `--scale`
//!    gives it.
//! 3. Each epoch: shuffle the training positions (by seed and epoch), and
//!    for each batch of `--batch` positions, split it into `--threads`
//!    equal slices, each thread adding the gradients of its slice into its
//!    own buffer ([`model::backward`]: only the active features' rows of
//!    the first layer); sum the buffers in thread order, take one AdamW
//!    step with the learning rate of a cosine schedule from `--lr` down to
//!    `--lr-end`. A progress line goes to stderr once a second.
//! 4. After each epoch: the validation loss, a checkpoint, and the
//!    quantised network written to `--out`.
//!
//! Checkpoints (`OUT.ckpt`, also every `--save-every` batches) hold the
//! weights, the optimiser's moments and where the run is. A run started
//! with the same options and data finds it and goes on from there; the
//! result is byte for byte what an unbroken run writes, since shuffles and
//! batches depend only on the seed, the epoch and the thread count.

pub mod data;
pub mod model;

use crate::tools::progress::{Meter, templates};
use data::{DataError, DataOptions, Dataset, Record, Sample};
use model::{AdamW, LossConfig, Params, Scratch, Shape};
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What `forsyth train` was asked to do.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    pub data: Vec<PathBuf>,
    pub out: PathBuf,
    pub hidden: usize,
    /// Output buckets (by piece count).
    pub buckets: usize,
    /// Mirror each perspective's inputs when its king is on files e-h.
    pub king_mirror: bool,
    pub epochs: u64,
    pub batch: usize,
    pub lr: f32,
    pub lr_end: f32,
    pub weight_decay: f32,
    pub lambda: f32,
    pub scale: Option<f32>,
    pub min_ply: u32,
    pub validation_every: u64,
    pub max_positions: u64,
    pub threads: usize,
    pub seed: u64,
    pub save_every: u64,
    /// End this run after this many batches, with a checkpoint, as if it
    /// had been interrupted (0: run to the end).
    pub stop_after: u64,
    /// Train half the positions of each epoch mirrored left to right.
    pub mirror: bool,
    /// The load-time filters of game files (see [`data`]).
    pub filters: data::Filters,
    /// Drop a bad game of a game file with a warning instead of stopping.
    pub skip_bad: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            data: Vec::new(),
            out: PathBuf::new(),
            hidden: crate::engine::nnue::HIDDEN,
            buckets: 1,
            king_mirror: false,
            epochs: 20,
            batch: 16384,
            lr: 0.001,
            lr_end: 0.00001,
            weight_decay: 0.01,
            lambda: 0.75,
            scale: None,
            min_ply: 16,
            validation_every: 50,
            max_positions: 0,
            threads: 1,
            seed: 1,
            save_every: 1000,
            stop_after: 0,
            mirror: true,
            filters: data::Filters::default(),
            skip_bad: false,
        }
    }
}

/// Why training could not run.
#[derive(Debug)]
pub enum TrainError {
    Usage(String),
    Data(DataError),
    Io(PathBuf, std::io::Error),
    /// The checkpoint beside `--out` was made by another run.
    Checkpoint(PathBuf, String),
    /// The trained weights do not fit the engine's quantisation.
    Quantise(String),
}

impl fmt::Display for TrainError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            TrainError::Usage(m) => f.write_str(m),
            TrainError::Data(e) => write!(f, "{e}"),
            TrainError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            TrainError::Checkpoint(p, m) => write!(f, "{}: {m}", p.display()),
            TrainError::Quantise(m) => write!(f, "cannot quantise the network: {m}"),
        }
    }
}

impl std::error::Error for TrainError {}

impl From<DataError> for TrainError {
    fn from(e: DataError) -> TrainError {
        TrainError::Data(e)
    }
}

impl Options {
    /// Range checks that parsing alone cannot make.
    pub fn validate(&self) -> Result<(), TrainError> {
        let bad = |m: &str| Err(TrainError::Usage(m.to_string()));
        if self.data.is_empty() {
            return bad("--data FILE.bin is required (one or more)");
        }
        if self.hidden == 0 || !self.hidden.is_multiple_of(16) || self.hidden > 1024 {
            return bad("--hidden must be a multiple of 16 from 16 to 1024");
        }
        if !(1..=crate::engine::nnue::network::MAX_BUCKETS).contains(&self.buckets) {
            return bad("--buckets must be from 1 to 16");
        }
        if self.epochs == 0 || self.batch == 0 || self.threads == 0 || self.save_every == 0 {
            return bad("--epochs, --batch, --threads and --save-every must be at least 1");
        }
        if !(self.lr > 0.0 && self.lr_end > 0.0 && self.lr_end <= self.lr && self.lr < 1.0) {
            return bad("--lr and --lr-end must be positive, below 1, and --lr-end <= --lr");
        }
        if !(0.0..=1.0).contains(&self.lambda) {
            return bad("--lambda must be between 0 and 1");
        }
        if !(0.0..1.0).contains(&self.weight_decay) {
            return bad("--weight-decay must be in [0, 1)");
        }
        if let Some(s) = self.scale
            && !(s.is_finite() && s > 0.0)
        {
            return bad("--scale must be a positive number of centipawns");
        }
        Ok(())
    }

    /// The network's shape.
    pub fn shape(&self) -> Shape {
        Shape {
            hidden: self.hidden,
            buckets: self.buckets,
            mirrored: self.king_mirror,
        }
    }

    /// The checkpoint's path: beside the output.
    pub fn checkpoint_path(&self) -> PathBuf {
        let mut s = self.out.clone().into_os_string();
        s.push(".ckpt");
        PathBuf::from(s)
    }

    /// Everything that shapes the result, as a number the checkpoint keeps.
    fn fingerprint(&self, scale: f32) -> u64 {
        let text = format!(
            "{} {} {} {} {} {} {} {} {} {} {} {} {} {} {}",
            self.hidden,
            self.buckets,
            self.king_mirror,
            self.epochs,
            self.batch,
            self.lr,
            self.lr_end,
            self.weight_decay,
            self.lambda,
            scale,
            self.min_ply,
            self.validation_every,
            self.threads,
            self.seed,
            self.mirror
        );
        crate::engine::nnue::network::fnv1a(text.as_bytes())
    }
}

/// What a run reports at the end.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub train_positions: usize,
    pub validation_positions: usize,
    pub scale: f32,
    pub train_loss: f64,
    pub validation_loss: Option<f64>,
    pub positions_per_second: f64,
    /// The win/draw/loss model fitted to the network's evaluations
    /// (`score::wdl`'s A and B), when the run ended.
    pub wdl: Option<(f64, f64)>,
}

/// Fits the engine's win/draw/loss model to what the network says of
/// `records` (at most 1M, evenly spread) and their results.
pub fn fit_wdl(p: &Params, records: &[Record]) -> (f64, f64) {
    let step = (records.len() / 1_000_000).max(1);
    let mut sample = Sample::with_capacity();
    let mut scratch = Scratch::new(p.hidden);
    let pairs: Vec<(f64, f32)> = records
        .iter()
        .step_by(step)
        .filter_map(|r| {
            data::decode(r, &mut sample).ok()?;
            let cp = model::forward(p, &sample, &mut scratch) * crate::engine::nnue::SCALE as f32;
            Some((f64::from(cp), sample.result))
        })
        .collect();
    crate::engine::score::wdl::fit(&pairs)
}

/// Fits the scale `s` that makes `sigmoid(score / s)` predict the results
/// best (least squares), on at most 1M evenly spread training positions.
pub fn fit_scale(records: &[Record]) -> f32 {
    let step = (records.len() / 1_000_000).max(1);
    let mut sample = Sample::with_capacity();
    let pairs: Vec<(f32, f32)> = records
        .iter()
        .step_by(step)
        .filter_map(|r| {
            data::decode(r, &mut sample).ok()?;
            Some((sample.score, sample.result))
        })
        .collect();
    let mse = |s: f64| {
        pairs
            .iter()
            .map(|&(score, result)| {
                let d = 1.0 / (1.0 + (-f64::from(score) / s).exp()) - f64::from(result);
                d * d
            })
            .sum::<f64>()
    };
    // Golden-section search; the error is unimodal in s.
    let (mut a, mut b) = (20.0f64, 2000.0f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let (mut c, mut d) = (b - g * (b - a), a + g * (b - a));
    let (mut fc, mut fd) = (mse(c), mse(d));
    while b - a > 0.5 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - g * (b - a);
            fc = mse(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + g * (b - a);
            fd = mse(d);
        }
    }
    ((a + b) / 2.0).round() as f32
}

/// The learning rate at step `t` of `total`: cosine from `lr` to `lr_end`.
pub fn learning_rate(opts: &Options, t: u64, total: u64) -> f32 {
    let x = t as f64 / total.max(1) as f64;
    let (hi, lo) = (f64::from(opts.lr), f64::from(opts.lr_end));
    (lo + 0.5 * (hi - lo) * (1.0 + (std::f64::consts::PI * x).cos())) as f32
}

/// The training order of epoch `epoch`: a permutation of `0..n`.
fn epoch_order(n: usize, seed: u64, epoch: u64) -> Vec<u32> {
    let mut order: Vec<u32> = (0..n as u32).collect();
    let mut rng =
        crate::engine::rng::Rng::new(seed ^ (epoch + 1).wrapping_mul(0xA076_1D64_78BD_642F));
    for i in (1..n).rev() {
        let j = rng.below(i + 1);
        order.swap(i, j);
    }
    order
}

/// One thread's buffers.
struct Lane {
    grad: Params,
    scratch: Scratch,
    sample: Sample,
    loss: f64,
}

impl Lane {
    fn new(shape: Shape) -> Lane {
        Lane {
            grad: Params::zeros(shape),
            scratch: Scratch::new(shape.hidden),
            sample: Sample::with_capacity(),
            loss: 0.0,
        }
    }
}

/// Adds the gradients of `indices` (into `records`) to `lane`.
fn lane_gradients(
    p: &Params,
    records: &[Record],
    indices: &[u32],
    cfg: &LossConfig,
    mirror: Option<u64>,
    lane: &mut Lane,
) {
    lane.grad.fill(0.0);
    lane.loss = 0.0;
    for &i in indices {
        // Records were all checked when loaded.
        if data::decode(&records[i as usize], &mut lane.sample).is_ok() {
            if let Some(salt) = mirror
                && mirrored(i, salt)
            {
                lane.sample.mirror();
            }
            lane.loss += f64::from(model::backward(
                p,
                &lane.sample,
                cfg,
                &mut lane.scratch,
                &mut lane.grad,
            ));
        }
    }
}

/// Whether position `i` is trained mirrored (files a-h turned round) in
/// the epoch of `salt`: half of them, a different half each epoch.
fn mirrored(i: u32, salt: u64) -> bool {
    crate::engine::rng::Rng::new(u64::from(i) ^ salt).next_u64() & 1 == 1
}

/// The mean gradient and loss of a batch, computed on `lanes.len()` threads.
fn batch_gradient(
    p: &Params,
    records: &[Record],
    batch: &[u32],
    cfg: &LossConfig,
    mirror: Option<u64>,
    lanes: &mut [Lane],
) -> f64 {
    let per = batch.len().div_ceil(lanes.len()).max(1);
    std::thread::scope(|scope| {
        // Lanes beyond the last slice get an empty one (and a zero gradient).
        let slices = batch.chunks(per).chain(std::iter::repeat(&[][..]));
        let mut work = lanes.iter_mut().zip(slices);
        let first = work.next();
        for (lane, slice) in work {
            scope.spawn(move || lane_gradients(p, records, slice, cfg, mirror, lane));
        }
        if let Some((lane, slice)) = first {
            lane_gradients(p, records, slice, cfg, mirror, lane);
        }
    });
    let (head, tail) = lanes.split_at_mut(1);
    let total = &mut head[0];
    for lane in tail.iter() {
        total.grad.add(&lane.grad);
        total.loss += lane.loss;
    }
    let inv = 1.0 / batch.len() as f32;
    for g in total.grad.flat_mut() {
        *g *= inv;
    }
    total.loss / batch.len() as f64
}

/// The mean loss over `records`, on `threads` threads.
pub fn mean_loss(p: &Params, records: &[Record], cfg: &LossConfig, threads: usize) -> f64 {
    if records.is_empty() {
        return 0.0;
    }
    let per = records.len().div_ceil(threads.max(1));
    let sums: Vec<f64> = std::thread::scope(|scope| {
        let handles: Vec<_> = records
            .chunks(per)
            .map(|chunk| {
                scope.spawn(move || {
                    let mut scratch = Scratch::new(p.hidden);
                    let mut sample = Sample::with_capacity();
                    let mut sum = 0.0f64;
                    for r in chunk {
                        if data::decode(r, &mut sample).is_ok() {
                            sum += f64::from(model::loss(p, &sample, cfg, &mut scratch));
                        }
                    }
                    sum
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(0.0))
            .collect()
    });
    sums.iter().sum::<f64>() / records.len() as f64
}

/// Where a run stands, as its checkpoint records it.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub params: Params,
    pub adam: AdamW,
    /// The next epoch and batch to train.
    pub epoch: u64,
    pub batch: u64,
}

const CKPT_MAGIC: &[u8; 8] = b"FSYTHCKP";
const CKPT_VERSION: u32 = 2;

/// The checkpoint file: magic, version, hidden size, output buckets,
/// mirroring (0 or 1), option and data fingerprints, epoch, batch,
/// optimiser step, then the weights and both optimiser moments as f32,
/// then an FNV-1a hash of all that precedes it.
pub fn write_checkpoint(
    path: &Path,
    state: &State,
    options: u64,
    data: u64,
) -> Result<(), TrainError> {
    let mut b = Vec::with_capacity(16 + 12 * state.params.count() + 64);
    b.extend_from_slice(CKPT_MAGIC);
    b.extend_from_slice(&CKPT_VERSION.to_le_bytes());
    b.extend_from_slice(&(state.params.hidden as u32).to_le_bytes());
    b.extend_from_slice(&(state.params.buckets as u32).to_le_bytes());
    b.extend_from_slice(&u32::from(state.params.mirrored).to_le_bytes());
    for v in [options, data, state.epoch, state.batch, state.adam.t] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    for p in [&state.params, &state.adam.m, &state.adam.v] {
        for x in p.flat() {
            b.extend_from_slice(&x.to_le_bytes());
        }
    }
    let h = crate::engine::nnue::network::fnv1a(&b);
    b.extend_from_slice(&h.to_le_bytes());
    let mut tmp = path.to_path_buf().into_os_string();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, &b).map_err(|e| TrainError::Io(tmp.clone(), e))?;
    std::fs::rename(&tmp, path).map_err(|e| TrainError::Io(path.to_path_buf(), e))
}

/// Reads a checkpoint made with the same options and data.
pub fn read_checkpoint(
    path: &Path,
    shape: Shape,
    decay: f32,
    options: u64,
    data: u64,
) -> Result<State, TrainError> {
    let bad = |m: &str| TrainError::Checkpoint(path.to_path_buf(), m.to_string());
    let b = std::fs::read(path).map_err(|e| TrainError::Io(path.to_path_buf(), e))?;
    let hidden = shape.hidden;
    let count = Params::zeros(shape).count();
    let want = 8 + 4 + 12 + 40 + 12 * count + 8;
    if b.len() < 16 || &b[..8] != CKPT_MAGIC {
        return Err(bad("not a training checkpoint"));
    }
    let u32_at = |at: usize| u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
    if u32_at(8) != CKPT_VERSION {
        return Err(bad("checkpoint of another trainer version"));
    }
    if u32_at(12) as usize != hidden {
        return Err(bad(&format!(
            "made with --hidden {}, not {hidden}; remove it or choose another --out",
            u32_at(12)
        )));
    }
    if u32_at(16) as usize != shape.buckets || (u32_at(20) == 1) != shape.mirrored {
        return Err(bad(&format!(
            "made with --buckets {} and --king-mirror {}; remove it or choose another --out",
            u32_at(16),
            if u32_at(20) == 1 { "on" } else { "off" }
        )));
    }
    if b.len() != want {
        return Err(bad("truncated or damaged checkpoint"));
    }
    let (body, tail) = b.split_at(want - 8);
    let mut h = [0u8; 8];
    h.copy_from_slice(tail);
    if crate::engine::nnue::network::fnv1a(body) != u64::from_le_bytes(h) {
        return Err(bad("damaged checkpoint (hash mismatch)"));
    }
    let u64_at = |at: usize| {
        let mut x = [0u8; 8];
        x.copy_from_slice(&b[at..at + 8]);
        u64::from_le_bytes(x)
    };
    if u64_at(24) != options || u64_at(32) != data {
        return Err(bad(
            "made with other options or data; remove it to start again, or choose another --out",
        ));
    }
    let mut state = State {
        params: Params::zeros(shape),
        adam: AdamW::new(shape, decay),
        epoch: u64_at(40),
        batch: u64_at(48),
    };
    state.adam.t = u64_at(56);
    let mut at = 64;
    for p in [&mut state.params, &mut state.adam.m, &mut state.adam.v] {
        for x in p.flat_mut() {
            *x = f32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
            at += 4;
        }
    }
    Ok(state)
}

fn clock(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// Writes the quantised network of `p` to `path`.
fn write_net(p: &Params, path: &Path) -> Result<(), TrainError> {
    let bytes = model::quantise(p).map_err(|e| TrainError::Quantise(e.to_string()))?;
    let mut tmp = path.to_path_buf().into_os_string();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, &bytes).map_err(|e| TrainError::Io(tmp.clone(), e))?;
    std::fs::rename(&tmp, path).map_err(|e| TrainError::Io(path.to_path_buf(), e))
}

/// Trains as `opts` says; see the module documentation.
pub fn run(opts: &Options) -> Result<Summary, TrainError> {
    opts.validate()?;
    let start = Instant::now();
    let set: Dataset = data::load(
        &opts.data,
        &DataOptions {
            min_ply: opts.min_ply,
            validation_every: opts.validation_every,
            max_records: opts.max_positions,
            filters: opts.filters,
            skip_bad: opts.skip_bad,
        },
    )?;
    let scale = opts.scale.unwrap_or_else(|| fit_scale(&set.train));
    let cfg = LossConfig {
        lambda: opts.lambda,
        scale,
    };
    eprintln!(
        "train: {} positions read from {} games, {} dropped (before ply {}: {}); {} to train on, {} to validate; scale {scale}; {} threads; {:.1} s",
        set.read,
        set.games,
        set.dropped,
        opts.min_ply,
        set.drops.min_ply,
        set.train.len(),
        set.validation.len(),
        opts.threads,
        start.elapsed().as_secs_f64()
    );
    eprintln!("train: {}", set.drops);

    let ckpt = opts.checkpoint_path();
    let (opt_fp, data_fp) = (opts.fingerprint(scale), data::fingerprint(&set.train));
    let mut state = if ckpt.exists() {
        let s = read_checkpoint(&ckpt, opts.shape(), opts.weight_decay, opt_fp, data_fp)?;
        eprintln!(
            "train: resuming {} at epoch {}, batch {}",
            ckpt.display(),
            s.epoch + 1,
            s.batch
        );
        s
    } else {
        State {
            params: Params::random(opts.shape(), opts.seed),
            adam: AdamW::new(opts.shape(), opts.weight_decay),
            epoch: 0,
            batch: 0,
        }
    };

    let batch = opts.batch.min(set.train.len());
    let per_epoch = (set.train.len() / batch) as u64;
    let total = per_epoch * opts.epochs;
    let mut lanes: Vec<Lane> = (0..opts.threads).map(|_| Lane::new(opts.shape())).collect();
    let mut trained = 0u64;
    let run_start = Instant::now();
    let mut last_shown = Instant::now();
    let mut last_loss = f64::NAN;
    let mut validation_loss = None;
    let meter = Meter::new(total, templates::TRAIN);
    meter.set_position(state.epoch * per_epoch + state.batch);
    while state.epoch < opts.epochs {
        let order = epoch_order(set.train.len(), opts.seed, state.epoch);
        let mut epoch_loss = 0.0;
        let mut epoch_batches = 0u64;
        while state.batch < per_epoch {
            let b = state.batch as usize;
            let indices = &order[b * batch..(b + 1) * batch];
            let step = state.epoch * per_epoch + state.batch;
            let mirror = opts
                .mirror
                .then(|| opts.seed.rotate_left(17) ^ state.epoch.wrapping_mul(0x9E37_79B9));
            let loss = batch_gradient(&state.params, &set.train, indices, &cfg, mirror, &mut lanes);
            let lr = learning_rate(opts, step, total);
            state.adam.step(&mut state.params, &lanes[0].grad, lr);
            state.batch += 1;
            trained += batch as u64;
            epoch_loss += loss;
            epoch_batches += 1;
            last_loss = epoch_loss / epoch_batches as f64;
            if state.batch % opts.save_every == 0 && state.batch < per_epoch {
                write_checkpoint(&ckpt, &state, opt_fp, data_fp)?;
            }
            if opts.stop_after > 0 && trained / batch as u64 >= opts.stop_after {
                write_checkpoint(&ckpt, &state, opt_fp, data_fp)?;
                meter.finish();
                eprintln!(
                    "\ntrain: stopped after {} batches; {} holds the run",
                    opts.stop_after,
                    ckpt.display()
                );
                return Ok(Summary {
                    train_positions: set.train.len(),
                    validation_positions: set.validation.len(),
                    scale,
                    train_loss: last_loss,
                    validation_loss: None,
                    positions_per_second: trained as f64
                        / run_start.elapsed().as_secs_f64().max(1e-9),
                    wdl: None,
                });
            }
            if last_shown.elapsed() >= Duration::from_secs(1) {
                last_shown = Instant::now();
                let elapsed = run_start.elapsed().as_secs_f64();
                let rate = trained as f64 / elapsed.max(1e-9);
                let done = state.epoch * per_epoch + state.batch;
                let epoch = format!(
                    "epoch {}/{}  batch {}/{}  {rate:.0} pos/s  loss {last_loss:.6}  lr {lr:.2e}",
                    state.epoch + 1,
                    opts.epochs,
                    state.batch,
                    per_epoch,
                );
                if meter.is_bar() {
                    meter.set_position(done);
                    meter.set_message(epoch);
                } else {
                    let left = (total - done) as f64 * batch as f64 / rate.max(1.0);
                    eprint!(
                        "\r{epoch}  left {}   ",
                        clock(Duration::from_secs_f64(left))
                    );
                    let _ = std::io::stderr().flush();
                }
            }
        }
        state.epoch += 1;
        state.batch = 0;
        let vloss = (!set.validation.is_empty())
            .then(|| mean_loss(&state.params, &set.validation, &cfg, opts.threads));
        validation_loss = vloss;
        write_checkpoint(&ckpt, &state, opt_fp, data_fp)?;
        write_net(&state.params, &opts.out)?;
        let line = format!(
            "epoch {}/{}  train loss {:.6}  validation loss {}  {:.0} pos/s  elapsed {}",
            state.epoch,
            opts.epochs,
            last_loss,
            vloss.map_or("-".to_string(), |v| format!("{v:.6}")),
            trained as f64 / run_start.elapsed().as_secs_f64().max(1e-9),
            clock(start.elapsed())
        );
        if meter.is_bar() {
            meter.line(&line);
        } else {
            eprintln!("\r{line}          ");
        }
    }
    meter.finish();
    if trained == 0 {
        // A finished run started again: write the network once more.
        write_net(&state.params, &opts.out)?;
    }
    let train_loss = if last_loss.is_nan() {
        mean_loss(&state.params, &set.train, &cfg, opts.threads)
    } else {
        last_loss
    };
    let fitted = if set.validation.is_empty() {
        &set.train
    } else {
        &set.validation
    };
    let wdl = fit_wdl(&state.params, fitted);
    eprintln!(
        "train: win/draw/loss model of this network: A = {:.1}, B = {:.1} (score::wdl)",
        wdl.0, wdl.1
    );
    println!("network written to {}", opts.out.display());
    Ok(Summary {
        wdl: Some(wdl),
        train_positions: set.train.len(),
        validation_positions: set.validation.len(),
        scale,
        train_loss,
        validation_loss,
        positions_per_second: trained as f64 / run_start.elapsed().as_secs_f64().max(1e-9),
    })
}

#[cfg(test)]
mod tests;
