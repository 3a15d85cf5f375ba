//! The transposition table: shared by all search threads without locks.
//!
//! Memory is an array of 64-byte buckets (one cache line), each holding four
//! 16-byte entries. An entry is two atomic words, `key ^ data` and `data`;
//! a reader recomputes the key from both and so never trusts an entry that
//! another thread tore by writing one word between the reader's two loads
//! (the XOR trick). The table holds exactly as many buckets as fit in the
//! requested size, and the key maps onto them by a multiply-high, so sizes
//! need not be powers of two.
//!
//! Data word layout:
//! ```text
//!  63 ..... 48 | 47 ..... 32 | 31 ..... 16 | 15 .. 8 | 7 .. 2 | 1 0
//!     move     |    score    |  static eval|  depth  |  age   | bound
//! ```
//!
//! # Memory
//!
//! `Hash N` is exactly N MiB: 16,384 buckets per MiB. The table is
//! allocated zeroed, 64-byte aligned, so the whole of it is resident as
//! soon as `setoption` returns, not only once searches fill it (measured
//! with `make hash-rss`: the table's mapping is 16,388 kB for `Hash 16`,
//! 1,048,580 kB for `Hash 1024`, the allocator adding one page). A size
//! larger than the memory available (`MemAvailable` on Linux) is refused
//! before anything is allocated, and the old table is kept with its
//! contents: otherwise a size the machine cannot hold gets the engine killed
//! by the kernel rather than refused. Cgroup limits (a container allowed
//! less than the machine's `MemAvailable`) are not read. While a new table
//! is allocated the old one still exists, so growing a table that leaves no
//! room for both takes a small size first.

use crate::engine::chess::Move;
use crate::engine::score::MATE_BOUND;
use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Bound {
    None = 0,
    /// The score is at most this (fail low).
    Upper = 1,
    /// The score is at least this (fail high).
    Lower = 2,
    Exact = 3,
}

impl Bound {
    fn from_bits(b: u64) -> Bound {
        match b & 3 {
            1 => Bound::Upper,
            2 => Bound::Lower,
            3 => Bound::Exact,
            _ => Bound::None,
        }
    }
}

/// What a probe finds.
#[derive(Copy, Clone, Debug)]
pub struct TtHit {
    pub mv: Move,
    /// Mate scores are relative to the node (already adjusted by ply).
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

#[repr(C)]
struct Entry {
    key_xor_data: AtomicU64,
    data: AtomicU64,
}

const ENTRIES_PER_BUCKET: usize = 4;

#[repr(C, align(64))]
struct Bucket {
    entries: [Entry; ENTRIES_PER_BUCKET],
}

/// Depth is stored with this offset so that quiescence depths (negative) fit in a byte.
const DEPTH_OFFSET: i32 = 32;
const AGE_CYCLE: u8 = 64;

pub struct TranspositionTable {
    buckets: *mut Bucket,
    len: usize,
    age: AtomicU8,
}

// The buckets are only touched through atomics.
unsafe impl Send for TranspositionTable {}
unsafe impl Sync for TranspositionTable {}

// Mate scores are stored relative to the node, not the root: the table
// serves the same position at other distances from the root.
#[inline]
fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

#[inline]
fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// The memory the machine can still give without swapping, in bytes:
/// `MemAvailable` on Linux; `None` elsewhere or when it cannot be read
/// (then only the allocator can refuse a size).
pub fn memory_available() -> Option<u64> {
    if cfg!(target_os = "linux") {
        let text = std::fs::read_to_string("/proc/meminfo").ok()?;
        parse_mem_available(&text)
    } else {
        None
    }
}

/// `MemAvailable:  23654064 kB` in `/proc/meminfo` text, in bytes.
fn parse_mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?;
    let kb: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    kb.checked_mul(1024)
}

impl TranspositionTable {
    pub const BUCKET_BYTES: usize = std::mem::size_of::<Bucket>();

    /// A table of `mb` megabytes (MiB), or an error if the machine cannot
    /// give that much memory (see [`TranspositionTable::new_within`]).
    pub fn new(mb: usize) -> Result<TranspositionTable, String> {
        Self::new_within(mb, memory_available())
    }

    /// A table of `mb` megabytes, refused without allocating anything when
    /// it is larger than `available` bytes (`None`: not known). The
    /// allocation writes every page (the allocator zeroes 64-byte aligned
    /// blocks itself), so a table the machine cannot hold would not fail
    /// here but swap, or have the process killed; hence the check first.
    pub fn new_within(mb: usize, available: Option<u64>) -> Result<TranspositionTable, String> {
        let too_large = || format!("Hash {mb} MB is too large for this machine");
        let len = Self::buckets_for(mb).ok_or_else(too_large)?;
        let bytes = len * Self::BUCKET_BYTES;
        if let Some(avail) = available
            && bytes as u64 > avail
        {
            return Err(format!(
                "Hash {mb} MB is more than the {} MB of memory available",
                avail >> 20
            ));
        }
        let layout = Layout::array::<Bucket>(len).map_err(|_| too_large())?;
        // A null pointer means the allocation failed (a fallible
        // allocation: nothing aborts).
        let buckets = unsafe { alloc_zeroed(layout) } as *mut Bucket;
        if buckets.is_null() {
            return Err(format!("cannot allocate {mb} MB for the hash table"));
        }
        Ok(TranspositionTable {
            buckets,
            len,
            age: AtomicU8::new(0),
        })
    }

    /// How many buckets a table of `mb` MiB has (`None`: the size overflows
    /// the address space). Exactly `mb` MiB: 16,384 buckets per MiB.
    pub fn buckets_for(mb: usize) -> Option<usize> {
        let bytes = mb.checked_mul(1024 * 1024)?;
        Layout::array::<Bucket>(bytes / Self::BUCKET_BYTES).ok()?;
        Some((bytes / Self::BUCKET_BYTES).max(1))
    }

    /// The size in bytes.
    pub fn bytes(&self) -> usize {
        self.len * Self::BUCKET_BYTES
    }

    #[inline(always)]
    fn bucket(&self, key: u64) -> &Bucket {
        let i = ((key as u128 * self.len as u128) >> 64) as usize;
        // i < len by construction of the multiply-high.
        unsafe { &*self.buckets.add(i) }
    }

    /// Hints the CPU to fetch the bucket of `key` (before the move is made).
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        super::prefetch(self.bucket(key));
    }

    /// Starts a new search: older entries become preferred for replacement.
    pub fn new_search(&self) {
        let a = self.age.load(Ordering::Relaxed);
        self.age.store((a + 1) % AGE_CYCLE, Ordering::Relaxed);
    }

    pub fn probe(&self, key: u64, ply: usize) -> Option<TtHit> {
        let bucket = self.bucket(key);
        for e in &bucket.entries {
            let data = e.data.load(Ordering::Relaxed);
            let kx = e.key_xor_data.load(Ordering::Relaxed);
            if kx ^ data == key && data != 0 {
                let bound = Bound::from_bits(data);
                return Some(TtHit {
                    mv: Move::from_bits((data >> 48) as u16),
                    score: score_from_tt((data >> 32) as u16 as i16 as i32, ply),
                    eval: (data >> 16) as u16 as i16 as i32,
                    depth: ((data >> 8) & 0xFF) as i32 - DEPTH_OFFSET,
                    bound,
                });
            }
        }
        None
    }

    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &self,
        key: u64,
        ply: usize,
        mv: Move,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
        pv: bool,
    ) {
        let bucket = self.bucket(key);
        let age = self.age.load(Ordering::Relaxed) as i32;
        // The entry of this position if there is one, else the least
        // valuable: shallow entries from old searches go first.
        let mut victim = 0;
        let mut worst = i32::MAX;
        let mut same: Option<u64> = None;
        for (i, e) in bucket.entries.iter().enumerate() {
            let data = e.data.load(Ordering::Relaxed);
            let kx = e.key_xor_data.load(Ordering::Relaxed);
            if data == 0 || kx ^ data == key {
                victim = i;
                same = (data != 0).then_some(data);
                break;
            }
            let e_age = ((data >> 2) & 63) as i32;
            let age_diff = (AGE_CYCLE as i32 + age - e_age) % AGE_CYCLE as i32;
            let e_depth = ((data >> 8) & 0xFF) as i32 - DEPTH_OFFSET;
            let value = e_depth - 8 * age_diff;
            if value < worst {
                worst = value;
                victim = i;
            }
        }
        let mut mv = mv;
        if let Some(old) = same {
            // Keep the old move when this store has none (a fail-low).
            if mv.is_null() {
                mv = Move::from_bits((old >> 48) as u16);
            }
            // A much deeper result of this very position from this search
            // is worth more than a shallow bound (PV nodes count as deeper).
            let old_depth = ((old >> 8) & 0xFF) as i32 - DEPTH_OFFSET;
            let old_age = ((old >> 2) & 63) as i32;
            if bound != Bound::Exact && old_age == age && depth + 2 * i32::from(pv) < old_depth - 4
            {
                return;
            }
        }
        let depth = depth.clamp(-DEPTH_OFFSET + 1, 255 - DEPTH_OFFSET) + DEPTH_OFFSET;
        let data = (mv.bits() as u64) << 48
            | (score_to_tt(score, ply) as i16 as u16 as u64) << 32
            | (eval as i16 as u16 as u64) << 16
            | (depth as u64) << 8
            | (age as u64) << 2
            | bound as u64;
        let e = &bucket.entries[victim];
        e.key_xor_data.store(key ^ data, Ordering::Relaxed);
        e.data.store(data, Ordering::Relaxed);
    }

    /// Permille of sampled entries written in the current search.
    pub fn hashfull(&self) -> u32 {
        let age = self.age.load(Ordering::Relaxed) as u64;
        let sample = self.len.min(250);
        let mut used = 0;
        for i in 0..sample {
            let b = unsafe { &*self.buckets.add(i) };
            for e in &b.entries {
                let data = e.data.load(Ordering::Relaxed);
                if data != 0 && (data >> 2) & 63 == age {
                    used += 1;
                }
            }
        }
        (used * 1000 / (sample * ENTRIES_PER_BUCKET).max(1)) as u32
    }

    /// Empties the table, using `threads` threads for large tables.
    pub fn clear(&self, threads: usize) {
        let threads = threads.clamp(1, 64);
        let chunk = self.len.div_ceil(threads);
        let base = self.buckets as usize;
        std::thread::scope(|s| {
            for t in 0..threads {
                let start = (t * chunk).min(self.len);
                let end = ((t + 1) * chunk).min(self.len);
                s.spawn(move || {
                    for i in start..end {
                        let b = unsafe { &*(base as *const Bucket).add(i) };
                        for e in &b.entries {
                            e.key_xor_data.store(0, Ordering::Relaxed);
                            e.data.store(0, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        self.age.store(0, Ordering::Relaxed);
    }
}

impl Drop for TranspositionTable {
    fn drop(&mut self) {
        if let Ok(layout) = Layout::array::<Bucket>(self.len) {
            unsafe { dealloc(self.buckets as *mut u8, layout) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::chess::{MoveKind, Square};

    #[test]
    fn sizes_are_exact() {
        assert_eq!(TranspositionTable::BUCKET_BYTES, 64);
        let tt = TranspositionTable::new(16).unwrap();
        assert_eq!(tt.bytes(), 16 * 1024 * 1024);
        let tt = TranspositionTable::new(3).unwrap();
        assert_eq!(tt.bytes(), 3 * 1024 * 1024);
    }

    #[test]
    fn store_and_probe() {
        let tt = TranspositionTable::new(1).unwrap();
        let m = Move::new(Square::E1, Square::G1, MoveKind::Normal);
        tt.store(0xDEAD_BEEF, 3, m, 123, -45, 7, Bound::Lower, false);
        let hit = tt.probe(0xDEAD_BEEF, 3).unwrap();
        assert_eq!(
            (hit.mv, hit.score, hit.eval, hit.depth, hit.bound),
            (m, 123, -45, 7, Bound::Lower)
        );
        assert!(tt.probe(0xDEAD_BEEE, 3).is_none());
        // Mate scores are stored relative to the node.
        tt.store(42, 5, m, super::super::MATE - 10, 0, 1, Bound::Exact, false);
        assert_eq!(tt.probe(42, 2).unwrap().score, super::super::MATE - 7);
        tt.clear(2);
        assert!(tt.probe(42, 2).is_none());
        assert_eq!(tt.hashfull(), 0);
    }

    #[test]
    fn impossible_size_is_an_error() {
        assert!(TranspositionTable::new(usize::MAX / 2).is_err());
        assert!(TranspositionTable::new_within(usize::MAX / 2, None).is_err());
    }

    /// `Hash` is honoured exactly (well within the 1% promised): the
    /// table of N MB is N MiB of buckets, for every size the option allows.
    #[test]
    fn every_size_is_exact() {
        for mb in [1, 16, 100, 256, 1000, 1024, 65_536, 33_554_432] {
            let len = TranspositionTable::buckets_for(mb).unwrap();
            assert_eq!(len * TranspositionTable::BUCKET_BYTES, mb << 20, "{mb} MB");
        }
    }

    /// A table larger than the memory available is refused before any
    /// allocation, with a reason; one that fits is made.
    #[test]
    fn sizes_beyond_the_memory_available_are_refused() {
        let avail = Some(24 << 20);
        let err = TranspositionTable::new_within(32, avail).err().unwrap();
        assert_eq!(err, "Hash 32 MB is more than the 24 MB of memory available");
        let err = TranspositionTable::new_within(33_554_432, avail)
            .err()
            .unwrap();
        assert!(err.contains("more than the 24 MB"), "{err}");
        assert_eq!(
            TranspositionTable::new_within(24, avail).unwrap().bytes(),
            24 << 20
        );
        assert_eq!(
            TranspositionTable::new_within(2, None).unwrap().bytes(),
            2 << 20
        );
    }

    #[test]
    fn mem_available_is_read_from_meminfo() {
        let text = "MemTotal:       24684096 kB\nMemFree:        22184000 kB\n\
                    MemAvailable:   23654064 kB\nBuffers:           1000 kB\n";
        assert_eq!(parse_mem_available(text), Some(23_654_064 * 1024));
        assert_eq!(parse_mem_available("MemTotal: 1 kB\n"), None);
        assert_eq!(parse_mem_available("MemAvailable: lots\n"), None);
        if cfg!(target_os = "linux") {
            assert!(memory_available().is_some_and(|b| b > 0));
        }
    }
}
