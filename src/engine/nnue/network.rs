//! The quantised network and its file.
//!
//! ```text
//!  byte  0 ..  8  magic "FSYTHNET"
//!  byte  8 .. 12  format version, u32 (2; version 1 is read too)
//!  byte 12 .. 16  inputs per perspective, u32 (768)
//!  byte 16 .. 20  hidden neurons per perspective, u32
//!  byte 20 .. 24  output buckets, u32 (1 to 16)
//!  byte 24 .. 28  QA, u32      byte 28 .. 32  QB, u32
//!  byte 32 .. 36  SCALE, u32
//!  byte 36 .. 40  flags, u32: bit 0 horizontal mirroring; the others 0
//!  byte 40 .. 48  payload length in bytes, u64
//!  byte 48 .. 56  FNV-1a 64 hash of the payload
//!  byte 56 .. 64  reserved, 0
//!  payload        feature weights i16 [inputs][hidden], feature biases i16
//!                 [hidden], output weights i16 [buckets][2 * hidden] (in
//!                 each bucket the side to move's half first), output
//!                 biases i32 [buckets]
//! ```
//!
//! All numbers little endian. Version 1 is the same layout from before
//! buckets and mirroring could be chosen: its bucket count is 1 and its
//! flags field (then reserved) is 0, so its files read unchanged.
//!
//! **Output buckets.** The output layer has one set of weights and a bias
//! per bucket, and a position uses the bucket of its number of pieces
//! (kings included): `(pieces - 2) / ceil(32 / buckets)`, so 8 buckets
//! take 2-5 pieces, 6-9, ..., 30-32.
//!
//! **Horizontal mirroring.** With the flag set, each perspective reads the
//! board with files a-h turned round whenever its own king stands on
//! files e-h, so its king is always on files a-d; the accumulator of that
//! perspective is rebuilt when its king crosses between files d and e.
//!
//! A file is accepted only if every header field matches this engine's
//! architecture, the payload has the announced length and hash, the
//! output weights fit the SIMD bound and no accumulator can overflow:
//! random bytes or another engine's network are refused with a reason,
//! never half loaded.

use super::{HIDDEN, INPUTS, QA, QB, SCALE};
use std::fmt;

pub const MAGIC: &[u8; 8] = b"FSYTHNET";
pub const VERSION: u32 = 2;
pub const HEADER_BYTES: usize = 64;
/// The most output buckets a file may have.
pub const MAX_BUCKETS: usize = 16;
/// The flag of horizontal mirroring in the header's flags field.
pub const FLAG_MIRRORED: u32 = 1;

/// Bytes of the payload of a network with `hidden` neurons and `buckets`
/// output buckets.
pub const fn payload_bytes(hidden: usize, buckets: usize) -> usize {
    2 * (INPUTS * hidden + hidden + buckets * 2 * hidden) + 4 * buckets
}
/// The largest output weight, so that `v * w` with `v <= QA` fits in i16.
pub const MAX_OUTPUT_WEIGHT: i16 = (i16::MAX as i32 / QA) as i16;

/// The network, quantised.
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    /// Row `f` (HIDDEN values) is what feature `f` adds to an accumulator.
    pub(crate) ft_weights: Box<[i16]>,
    pub(crate) ft_bias: Box<[i16]>,
    /// For each bucket, the side to move's HIDDEN weights, then the other
    /// side's.
    pub(crate) out_weights: Box<[i16]>,
    /// One per bucket.
    pub(crate) out_bias: Box<[i32]>,
    /// Whether each perspective is mirrored when its king is on files e-h.
    pub(crate) mirrored: bool,
    /// Pieces per bucket: `ceil(32 / buckets)`.
    bucket_span: u32,
    hash: u64,
}

/// Why a network file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetworkError {
    TooShort(usize),
    BadMagic,
    Version(u32),
    /// A header field that does not match this engine: (field, found, expected).
    Architecture(&'static str, u64, u64),
    /// The file's length does not match its header: (found, expected).
    Length(usize, usize),
    /// The payload's hash does not match the header: (found, expected).
    Checksum(u64, u64),
    /// A reserved header field is not zero.
    Reserved,
    /// Flags this engine does not know.
    Flags(u32),
    /// An output weight beyond ±MAX_OUTPUT_WEIGHT: (index, value).
    OutputWeight(usize, i16),
    /// A neuron whose accumulator could overflow i16.
    Overflow(usize),
    Io(String),
}

impl fmt::Display for NetworkError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            NetworkError::TooShort(n) => {
                write!(
                    f,
                    "{n} bytes is too short for a network (header {HEADER_BYTES})"
                )
            }
            NetworkError::BadMagic => f.write_str("not a Forsyth network (bad magic)"),
            NetworkError::Version(v) => {
                write!(f, "network format version {v}, this engine reads {VERSION}")
            }
            NetworkError::Architecture(field, found, expected) => write!(
                f,
                "the network has {field} {found}, this engine needs {expected}"
            ),
            NetworkError::Length(found, expected) => write!(
                f,
                "the file has {found} bytes, its header announces {expected}"
            ),
            NetworkError::Checksum(found, expected) => write!(
                f,
                "the weights are damaged (hash {found:016x}, header says {expected:016x})"
            ),
            NetworkError::Reserved => f.write_str("a reserved header field is not zero"),
            NetworkError::Flags(bits) => write!(
                f,
                "the network has flags {bits:#x}, this engine knows only {FLAG_MIRRORED:#x} (mirroring)"
            ),
            NetworkError::OutputWeight(i, w) => {
                write!(f, "output weight {i} is {w}, beyond ±{MAX_OUTPUT_WEIGHT}")
            }
            NetworkError::Overflow(n) => {
                write!(f, "neuron {n} can overflow its 16-bit accumulator")
            }
            NetworkError::Io(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for NetworkError {}

/// FNV-1a, 64 bits: the file's checksum and the network's short name.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut x = [0u8; 4];
    x.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(x)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(x)
}

fn i16s(b: &[u8]) -> Box<[i16]> {
    b.chunks_exact(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]))
        .collect()
}

impl Network {
    /// A network that evaluates every position as 0.
    pub fn zeroed() -> Network {
        Network::from_parts(
            vec![0; INPUTS * HIDDEN],
            vec![0; HIDDEN],
            vec![0; 2 * HIDDEN],
            vec![0],
            false,
        )
    }

    /// Builds a network from quantised weights (the trainer's output):
    /// as many buckets as `out_bias` has values. The slices must have
    /// this architecture's lengths, and 1 to [`MAX_BUCKETS`] buckets.
    pub fn from_parts(
        ft_weights: Vec<i16>,
        ft_bias: Vec<i16>,
        out_weights: Vec<i16>,
        out_bias: Vec<i32>,
        mirrored: bool,
    ) -> Network {
        let buckets = out_bias.len();
        assert!((1..=MAX_BUCKETS).contains(&buckets));
        assert_eq!(ft_weights.len(), INPUTS * HIDDEN);
        assert_eq!(ft_bias.len(), HIDDEN);
        assert_eq!(out_weights.len(), buckets * 2 * HIDDEN);
        let hash = fnv1a(&payload(&ft_weights, &ft_bias, &out_weights, &out_bias));
        Network {
            ft_weights: ft_weights.into_boxed_slice(),
            ft_bias: ft_bias.into_boxed_slice(),
            out_weights: out_weights.into_boxed_slice(),
            out_bias: out_bias.into_boxed_slice(),
            mirrored,
            bucket_span: bucket_span(buckets),
            hash,
        }
    }

    /// Output buckets.
    pub fn buckets(&self) -> usize {
        self.out_bias.len()
    }

    /// Whether the network mirrors a perspective whose king is on files e-h.
    pub fn mirrored(&self) -> bool {
        self.mirrored
    }

    /// The output bucket of a position with `pieces` pieces (kings included).
    #[inline(always)]
    pub fn bucket(&self, pieces: u32) -> usize {
        (pieces.saturating_sub(2) / self.bucket_span) as usize
    }

    /// The output bucket of `pieces` pieces among `buckets`, computed
    /// without a network (the trainer's choice, the same as [`Self::bucket`]).
    pub fn bucket_of(pieces: u32, buckets: usize) -> usize {
        ((pieces.saturating_sub(2) / bucket_span(buckets)) as usize).min(buckets - 1)
    }

    /// What a perspective's feature indices are XORed with when its king
    /// stands on `king` (that perspective's own king): 7 turns the files
    /// round, 0 leaves them.
    #[inline(always)]
    pub fn flip(&self, king: crate::engine::chess::Square) -> usize {
        if self.mirrored && king.index() & 7 >= 4 {
            7
        } else {
            0
        }
    }

    /// A short description: `768->256x2->1`, with the buckets and mirroring.
    pub fn describe(&self) -> String {
        let mut s = format!("{INPUTS}->{HIDDEN}x2->1");
        if self.buckets() > 1 {
            s.push_str(&format!(", {} output buckets", self.buckets()));
        }
        if self.mirrored {
            s.push_str(", mirrored");
        }
        s
    }

    /// The hash of the weights, which names the network.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The whole file: header and payload.
    pub fn to_bytes(&self) -> Vec<u8> {
        encode(
            HIDDEN,
            &self.ft_weights,
            &self.ft_bias,
            &self.out_weights,
            &self.out_bias,
            self.mirrored,
        )
    }

    /// Reads a network file, checking everything the module comment lists.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        if bytes.len() < HEADER_BYTES {
            return Err(NetworkError::TooShort(bytes.len()));
        }
        if &bytes[0..8] != MAGIC {
            return Err(NetworkError::BadMagic);
        }
        let version = u32_at(bytes, 8);
        if version != VERSION && version != 1 {
            return Err(NetworkError::Version(version));
        }
        let buckets = u32_at(bytes, 20) as usize;
        if !(1..=MAX_BUCKETS).contains(&buckets) || (version == 1 && buckets != 1) {
            return Err(NetworkError::Architecture(
                "output buckets",
                buckets as u64,
                if version == 1 { 1 } else { MAX_BUCKETS as u64 },
            ));
        }
        let fields: [(&'static str, usize, u32); 5] = [
            ("inputs", 12, INPUTS as u32),
            ("hidden size", 16, HIDDEN as u32),
            ("QA", 24, QA as u32),
            ("QB", 28, QB as u32),
            ("output scale", 32, SCALE as u32),
        ];
        for (name, at, expected) in fields {
            let found = u32_at(bytes, at);
            if found != expected {
                return Err(NetworkError::Architecture(
                    name,
                    u64::from(found),
                    u64::from(expected),
                ));
            }
        }
        let flags = u32_at(bytes, 36);
        if u64_at(bytes, 56) != 0 || (version == 1 && flags != 0) {
            return Err(NetworkError::Reserved);
        }
        if flags & !FLAG_MIRRORED != 0 {
            return Err(NetworkError::Flags(flags));
        }
        let payload_len = payload_bytes(HIDDEN, buckets);
        let announced = u64_at(bytes, 40);
        if announced != payload_len as u64 {
            return Err(NetworkError::Architecture(
                "payload length",
                announced,
                payload_len as u64,
            ));
        }
        if bytes.len() != HEADER_BYTES + payload_len {
            return Err(NetworkError::Length(
                bytes.len(),
                HEADER_BYTES + payload_len,
            ));
        }
        let payload = &bytes[HEADER_BYTES..];
        let expected_hash = u64_at(bytes, 48);
        let hash = fnv1a(payload);
        if hash != expected_hash {
            return Err(NetworkError::Checksum(hash, expected_hash));
        }
        let ft_end = 2 * INPUTS * HIDDEN;
        let bias_end = ft_end + 2 * HIDDEN;
        let out_end = bias_end + buckets * 4 * HIDDEN;
        let net = Network {
            ft_weights: i16s(&payload[..ft_end]),
            ft_bias: i16s(&payload[ft_end..bias_end]),
            out_weights: i16s(&payload[bias_end..out_end]),
            out_bias: payload[out_end..]
                .chunks_exact(4)
                .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
            mirrored: flags & FLAG_MIRRORED != 0,
            bucket_span: bucket_span(buckets),
            hash,
        };
        net.check_bounds()?;
        Ok(net)
    }

    /// Reads a network file from disk.
    pub fn load(path: &std::path::Path) -> Result<Network, NetworkError> {
        let bytes = std::fs::read(path)
            .map_err(|e| NetworkError::Io(format!("cannot read {}: {e}", path.display())))?;
        Network::from_bytes(&bytes)
    }

    /// See [`check_bounds`].
    pub fn check_bounds(&self) -> Result<(), NetworkError> {
        check_bounds(HIDDEN, &self.ft_weights, &self.ft_bias, &self.out_weights)
    }

    /// Row `feature` of the feature transformer.
    #[inline(always)]
    pub(crate) fn row(&self, feature: usize) -> &[i16] {
        &self.ft_weights[feature * HIDDEN..(feature + 1) * HIDDEN]
    }
}

/// Pieces per output bucket when there are `buckets`: `ceil(32 / buckets)`.
const fn bucket_span(buckets: usize) -> u32 {
    32u32.div_ceil(buckets as u32)
}

/// The payload of a network of any hidden size, as the file stores it.
fn payload(ft_weights: &[i16], ft_bias: &[i16], out_weights: &[i16], out_bias: &[i32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(
        2 * (ft_weights.len() + ft_bias.len() + out_weights.len()) + 4 * out_bias.len(),
    );
    for v in ft_weights.iter().chain(ft_bias).chain(out_weights) {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for b in out_bias {
        out.extend_from_slice(&b.to_le_bytes());
    }
    out
}

/// The file of a network with `hidden` neurons per perspective and
/// `out_bias.len()` output buckets (the trainer writes any hidden size;
/// this engine reads only [`HIDDEN`]).
pub fn encode(
    hidden: usize,
    ft_weights: &[i16],
    ft_bias: &[i16],
    out_weights: &[i16],
    out_bias: &[i32],
    mirrored: bool,
) -> Vec<u8> {
    let payload = payload(ft_weights, ft_bias, out_weights, out_bias);
    let mut out = Vec::with_capacity(HEADER_BYTES + payload.len());
    out.extend_from_slice(MAGIC);
    for v in [
        VERSION,
        INPUTS as u32,
        hidden as u32,
        out_bias.len() as u32,
        QA as u32,
        QB as u32,
        SCALE as u32,
        if mirrored { FLAG_MIRRORED } else { 0 },
    ] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&fnv1a(&payload).to_le_bytes());
    out.extend_from_slice(&0u64.to_le_bytes());
    out.extend_from_slice(&payload);
    out
}

/// The output weights fit the SIMD bound, and no accumulator can leave i16:
/// the bias plus the 32 largest additions (a position has at most 32
/// pieces) on either side. `ft_weights` is `[INPUTS][hidden]`.
pub fn check_bounds(
    hidden: usize,
    ft_weights: &[i16],
    ft_bias: &[i16],
    out_weights: &[i16],
) -> Result<(), NetworkError> {
    for (i, &w) in out_weights.iter().enumerate() {
        if w.unsigned_abs() > MAX_OUTPUT_WEIGHT as u16 {
            return Err(NetworkError::OutputWeight(i, w));
        }
    }
    let mut column = vec![0i32; INPUTS];
    for n in 0..hidden {
        for (f, c) in column.iter_mut().enumerate() {
            *c = i32::from(ft_weights[f * hidden + n]);
        }
        column.sort_unstable();
        let bias = i32::from(ft_bias[n]);
        let low: i32 = column[..32].iter().filter(|&&w| w < 0).sum();
        let high: i32 = column[INPUTS - 32..].iter().filter(|&&w| w > 0).sum();
        if bias + low < i32::from(i16::MIN) || bias + high > i32::from(i16::MAX) {
            return Err(NetworkError::Overflow(n));
        }
    }
    Ok(())
}

impl fmt::Debug for Network {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "Network({}, {:016x})", self.describe(), self.hash)
    }
}
