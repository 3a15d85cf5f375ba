//! `forsyth datagen`: self-play games at a fixed node count per move on
//! several threads, writing whole games (every ply with its move and
//! search score; [`games`]) or, with `--format records`, quiet positions
//! with their search score and the game's result, for training the evaluation network
//! ([`crate::tools::train`]). The games are played and scored by the active network
//! (the one built in), or by `--eval-file`'s.
//!
//! Worker threads each own a one-thread [`SearchPool`] and play whole
//! games ([`game`]); finished games travel over a channel to the writer
//! (the calling thread), which appends them in the order of their numbers
//! to `PATH.bin` ([`games`] or [`mod@format`]) and `PATH.txt`, flushes, and only then
//! records the new totals in `PATH.progress`. Killing the process therefore loses at most the games
//! in progress; a later run with the same `--out` trims anything written
//! after the last recorded game and carries on up to `--games`.
//!
//! # A game
//!
//! Each game starts from a random line of `--openings` (its first four FEN
//! fields, and the move counters when given; the start position without
//! the option), then `--random-plies` uniformly random legal moves. The
//! opening is drawn again when those moves end the game or the first search
//! scores the position beyond ±1000 cp. Every move is then a search on
//! one thread, with a table of `--hash` MB cleared before every game, of
//! at most `--nodes` nodes (the hard limit) that starts no iteration once
//! `--soft-nodes` are searched (the soft limit, half of `--nodes` by
//! default): it finishes the iteration that passed the soft limit unless
//! the hard one cuts it, so fewer nodes go to iterations that are cut off
//! and thrown away. A game ends by the rules (checkmate, stalemate,
//! threefold repetition, the fifty-move rule, insufficient material), by
//! the tables with `--syzygy` (a move reaches a position within their
//! reach: the game takes their result, the fifty-move rule counted; see
//! [`game::tablebase_result`]), or by adjudication
//! ([`game::Adjudication`]): a win once the score has stayed at
//! `--win-score` (2000 cp) or more, mates included, for the same side for
//! `--win-plies` (4) plies in a row; a draw once, from the `--draw-after`th
//! (80th) searched ply on, it has stayed within ±`--draw-score` (10 cp) for
//! `--draw-plies` (12) plies in a row; a draw after `--max-plies` (400)
//! searched plies.
//!
//! With `--format records`, kept are the searched positions that are not in check, whose best move is
//! neither a capture nor a promotion, and whose score is not a mate score,
//! each with the search score in centipawns from White's point of view and
//! White's result. The text form (`--text`, or `forsyth datagen text
//! FILE.bin` later) is one line a position:
//!
//! ```text
//! rnbqkb1r/ppp1p1pp/3p1p1n/8/P1P3P1/1Q5B/1P1PPP1P/RNB1K1NR w KQkq - 0 6 | 10 | 0.0
//! ```
//!
//! # Game files
//!
//! By default (`--format games`), `PATH.bin` holds whole games
//! ([`games`], viriformat): the book line's position, then every ply with
//! its move and score, the opening's random plies included and flagged
//! (score 0), checks, captures, promotions and mate scores too (mates
//! marked, see [`games::stored_score`]); `forsyth train` filters them when
//! it loads them. Loaded with its default filters, a game file gives
//! exactly the records that a record run with the same seed writes. The
//! progress file counts plies as positions, and `PATH.txt` has one line a
//! ply: `FEN | score | result | move`, the score `-` for random plies. A
//! resumed run keeps the first `games` whole games of the file and must
//! use the format the file was begun with.
//!
//! # Resuming and determinism
//!
//! Games are numbered and each number has its own random stream (from
//! `--seed`, or the clock, printed at the start). A game therefore depends
//! only on its number and on the options other than `--threads` and
//! `--games`: with a fixed seed a run writes the same bytes every time, on
//! any number of threads, and so does a run that was stopped and resumed (a
//! game lost in a kill is played again exactly as it would have been, and
//! no written game is replayed). A stop loses only the games being played,
//! and those that ended before a slower game with a lower number. A run
//! never overwrites a `PATH.bin` or `PATH.txt` it did not start (no
//! `PATH.progress`), and a `PATH.txt` already written must be continued
//! with `--text`.
//!
//! Progress goes to stderr (games, positions, positions per second, elapsed
//! and remaining time): a bar on a terminal, else a line rewritten once a
//! second; then a summary with White's wins,
//! draws and losses. A trainer reads the records with [`format::open`] (a
//! streaming iterator, also by chunks) or [`format::read_file`];
//! [`format::PackedPosition::unpack`] gives the position, score and result.

pub mod format;
pub mod game;
pub mod games;

use crate::engine::chess::{FenError, Position};
use crate::engine::search::SearchPool;
use crate::engine::tablebase::Tablebases;
use crate::tools::progress;
use crossbeam_channel::{RecvTimeoutError, Sender, bounded};
use format::{FormatError, GameResult, PackedPosition, RECORD_BYTES};
use game::{GameError, GameSettings, PlayedGame};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// What `forsyth datagen` was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Output path without extension: `.bin`, `.txt` and `.progress` are added.
    pub out: PathBuf,
    /// Games the output should hold in the end (a resumed run plays the rest).
    pub games: u64,
    /// The hard node limit of every search.
    pub nodes: u64,
    /// The soft one: no iteration starts once it is passed (`None`: off).
    pub soft_nodes: Option<u64>,
    pub threads: usize,
    /// Hash per thread, MB.
    pub hash_mb: usize,
    /// EPD or FEN file of start positions; the start position if none.
    pub openings: Option<PathBuf>,
    pub random_plies: u32,
    pub seed: u64,
    /// Also write `PATH.txt`.
    pub text: bool,
    /// The network that plays and scores the games; the active one (the
    /// embedded network) if none.
    pub eval_file: Option<PathBuf>,
    /// What `PATH.bin` holds.
    pub format: OutputFormat,
    /// When games are called before the rules end them.
    pub adjudication: game::Adjudication,
    /// Syzygy tables (folders as `SyzygyPath` takes them): a game ends
    /// with their result as soon as a move reaches a position in them.
    pub syzygy: Option<String>,
}

/// The kind of `PATH.bin` a run writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// 32-byte records of the quiet positions ([`mod@format`]).
    Records,
    /// Whole games, every ply ([`games`]).
    Games,
}

impl Options {
    pub const DEFAULT_GAMES: u64 = 100;
    pub const DEFAULT_NODES: u64 = 5000;
    /// The soft limit without `--soft-nodes`, as a share of `--nodes`.
    pub const DEFAULT_SOFT_NODES_PCT: u64 = 50;
    pub const DEFAULT_HASH_MB: usize = 8;
    pub const DEFAULT_RANDOM_PLIES: u32 = 8;
}

/// The seed of a run without `--seed` (printed, so it can be repeated).
pub fn clock_seed() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

#[derive(Debug)]
pub enum DatagenError {
    Usage(String),
    Io {
        path: PathBuf,
        error: io::Error,
    },
    Opening {
        path: PathBuf,
        line: usize,
        error: FenError,
    },
    NoOpenings(PathBuf),
    /// The progress file cannot be read.
    Progress {
        path: PathBuf,
        reason: String,
    },
    /// The output files do not agree with each other or with the progress
    /// file, or would be overwritten.
    Resume(String),
    Record {
        path: PathBuf,
        index: u64,
        error: FormatError,
    },
    Search(String),
    Game(GameError),
    /// A bad game in a game file.
    BadGame(PathBuf, games::GameError),
    /// `datagen convert` cannot read its input.
    Convert(String),
    /// `--eval-file` names no usable network.
    Network(PathBuf, crate::engine::nnue::NetworkError),
    /// `--syzygy` names folders without usable tables.
    Syzygy(String),
}

impl fmt::Display for DatagenError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            DatagenError::Usage(s) => write!(f, "datagen: {s}"),
            DatagenError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            DatagenError::Opening { path, line, error } => {
                write!(f, "{}:{line}: {error}", path.display())
            }
            DatagenError::NoOpenings(path) => write!(f, "{}: no positions", path.display()),
            DatagenError::Progress { path, reason } => {
                write!(f, "{}: {reason}", path.display())
            }
            DatagenError::Resume(s) => f.write_str(s),
            DatagenError::Record { path, index, error } => {
                write!(f, "{}: record {index}: {error}", path.display())
            }
            DatagenError::Search(s) => write!(f, "cannot start a search: {s}"),
            DatagenError::Game(e) => e.fmt(f),
            DatagenError::BadGame(path, e) => write!(f, "{}: {e}", path.display()),
            DatagenError::Convert(s) => write!(f, "datagen convert: {s}"),
            DatagenError::Network(path, e) => write!(f, "--eval-file {}: {e}", path.display()),
            DatagenError::Syzygy(s) => write!(f, "--syzygy {s}"),
        }
    }
}

impl std::error::Error for DatagenError {}

/// Attaches a path to an I/O error.
fn io_at(path: &Path) -> impl FnOnce(io::Error) -> DatagenError + '_ {
    move |error| DatagenError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// Prints every record of a record file in the text format, or every ply
/// of a game file as `FEN | score | result | move` (score `-` for the
/// opening's random plies). The kind comes from the contents.
pub fn print_text(path: &Path) -> Result<(), DatagenError> {
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let stdout_path = Path::new("<stdout>");
    let mut prefix = Vec::new();
    File::open(path)
        .map_err(io_at(path))?
        .take(1 << 16)
        .read_to_end(&mut prefix)
        .map_err(io_at(path))?;
    if games::sniff(&prefix) == games::FileKind::Games {
        let file = File::open(path).map_err(io_at(path))?;
        for game in games::GameReader::new(BufReader::new(file)) {
            let game = game.map_err(|e| DatagenError::BadGame(path.to_path_buf(), e))?;
            let mut text = String::new();
            game.for_each_position(|i, pos, ply| {
                let score = if i < game.opening_plies as usize {
                    "-".to_string()
                } else {
                    ply.score.to_string()
                };
                text.push_str(&format!(
                    "{} | {score} | {} | {}\n",
                    pos.fen(),
                    game.result.as_text(),
                    ply.mv.uci(true)
                ));
            });
            out.write_all(text.as_bytes()).map_err(io_at(stdout_path))?;
        }
        return out.flush().map_err(io_at(stdout_path));
    }
    for (index, rec) in format::open(path).map_err(io_at(path))?.enumerate() {
        let rec = rec.map_err(io_at(path))?;
        let line = rec.to_text().map_err(|error| DatagenError::Record {
            path: path.to_path_buf(),
            index: index as u64,
            error,
        })?;
        writeln!(out, "{line}").map_err(io_at(stdout_path))?;
    }
    out.flush().map_err(io_at(stdout_path))
}

/// Writes the positions of the game file `input` that a record run keeps
/// (searched, not in check, best move neither a capture nor a promotion,
/// no mate score) as a record file `output`, which must not exist: a
/// game file of a seed converts to the record file of the same seed.
/// Returns the records written.
pub fn convert(input: &Path, output: &Path) -> Result<u64, DatagenError> {
    let bytes = crate::tools::train::data::read_data_file(input)
        .map_err(|e| DatagenError::Convert(e.to_string()))?;
    if games::sniff(&bytes[..bytes.len().min(1 << 16)]) != games::FileKind::Games {
        return Err(DatagenError::Convert(format!(
            "{}: not a game file",
            input.display()
        )));
    }
    let mut out = Vec::new();
    let mut count = 0;
    for game in games::GameReader::new(&bytes[..]) {
        let game = game.map_err(|e| DatagenError::BadGame(input.to_path_buf(), e))?;
        game.for_each_position(|i, pos, ply| {
            let keep = i >= game.opening_plies as usize
                && !pos.in_check()
                && !pos.is_capture(ply.mv)
                && ply.mv.promo().is_none()
                && !games::is_mate_score(ply.score);
            if keep {
                out.extend_from_slice(&PackedPosition::pack(pos, ply.score, game.result).0);
                count += 1;
            }
        });
    }
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(output)
        .map_err(io_at(output))?;
    file.write_all(&out).map_err(io_at(output))?;
    Ok(count)
}

/// The tables of `spec`: every folder must load, and hold a table.
fn load_tablebases(spec: &str) -> Result<Tablebases, DatagenError> {
    let (tables, errors) = Tablebases::load(spec);
    if !errors.is_empty() {
        let why: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        return Err(DatagenError::Syzygy(format!("{spec}: {}", why.join("; "))));
    }
    if tables.files() == 0 {
        return Err(DatagenError::Syzygy(format!("{spec}: no tables found")));
    }
    eprintln!(
        "datagen: {} table files up to {} pieces from {spec}",
        tables.files(),
        tables.max_pieces()
    );
    Ok(tables)
}

/// Reads start positions: one per line, the first four FEN fields (EPD
/// operations after them are ignored), plus the move counters when the
/// line gives them. Blank lines and `#` comments are skipped.
pub fn load_openings(path: &Path) -> Result<Vec<Position>, DatagenError> {
    let text = std::fs::read_to_string(path).map_err(io_at(path))?;
    let mut book = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_ascii_whitespace().collect();
        let counters = fields.len() >= 6
            && fields[4..6]
                .iter()
                .all(|f| f.bytes().all(|b| b.is_ascii_digit()));
        let used = if counters { 6 } else { fields.len().min(4) };
        let (pos, _) = Position::from_fen(&fields[..used].join(" ")).map_err(|error| {
            DatagenError::Opening {
                path: path.to_path_buf(),
                line: n + 1,
                error,
            }
        })?;
        book.push(pos);
    }
    if book.is_empty() {
        return Err(DatagenError::NoOpenings(path.to_path_buf()));
    }
    Ok(book)
}

/// `base` with `ext` appended (`data` -> `data.bin`).
fn with_ext(base: &Path, ext: &str) -> PathBuf {
    let mut s: OsString = base.as_os_str().to_owned();
    s.push(ext);
    PathBuf::from(s)
}

/// What `PATH.progress` records: the totals of the games completely
/// written to the data files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    pub games: u64,
    pub positions: u64,
    /// One past the highest game number written: a resumed run starts
    /// here. Games are written in the order of their numbers, so the games
    /// a kill loses (played or waiting for a lower number) are all at or
    /// beyond it, and a resumed run plays them again exactly as they were
    /// (files of older versions, written in the order games ended, may have
    /// skipped numbers below it: those openings are then not drawn).
    pub next_game: u64,
    pub white_wins: u64,
    pub draws: u64,
    pub black_wins: u64,
}

impl Progress {
    const KEYS: [&'static str; 6] = [
        "games",
        "positions",
        "next_game",
        "white_wins",
        "draws",
        "black_wins",
    ];

    fn values(&self) -> [u64; 6] {
        [
            self.games,
            self.positions,
            self.next_game,
            self.white_wins,
            self.draws,
            self.black_wins,
        ]
    }

    fn to_text(&self) -> String {
        Progress::KEYS
            .iter()
            .zip(self.values())
            .map(|(k, v)| format!("{k} {v}\n"))
            .collect()
    }

    fn parse(text: &str) -> Result<Progress, String> {
        let mut values = [None; 6];
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let mut parts = line.split_ascii_whitespace();
            let (Some(key), Some(value), None) = (parts.next(), parts.next(), parts.next()) else {
                return Err(format!("'{line}' is not 'name number'"));
            };
            let i = Progress::KEYS
                .iter()
                .position(|&k| k == key)
                .ok_or_else(|| format!("unknown entry '{key}'"))?;
            values[i] = Some(
                value
                    .parse::<u64>()
                    .map_err(|_| format!("'{value}' is not a count"))?,
            );
        }
        let get = |i: usize| values[i].ok_or_else(|| format!("no '{}' entry", Progress::KEYS[i]));
        let p = Progress {
            games: get(0)?,
            positions: get(1)?,
            next_game: get(2)?,
            white_wins: get(3)?,
            draws: get(4)?,
            black_wins: get(5)?,
        };
        if p.white_wins + p.draws + p.black_wins != p.games || p.next_game < p.games {
            return Err("the counts do not add up".into());
        }
        Ok(p)
    }

    pub fn read(path: &Path) -> Result<Progress, DatagenError> {
        let text = std::fs::read_to_string(path).map_err(io_at(path))?;
        Progress::parse(&text).map_err(|reason| DatagenError::Progress {
            path: path.to_path_buf(),
            reason,
        })
    }

    /// Replaces the file in one rename, so a kill leaves the old or the new
    /// totals, never half of them.
    fn write(&self, path: &Path) -> Result<(), DatagenError> {
        let tmp = with_ext(path, ".tmp");
        std::fs::write(&tmp, self.to_text()).map_err(io_at(&tmp))?;
        std::fs::rename(&tmp, path).map_err(io_at(path))
    }

    fn add(&mut self, index: u64, positions: u64, result: GameResult) {
        self.games += 1;
        self.positions += positions;
        self.next_game = self.next_game.max(index + 1);
        match result {
            GameResult::WhiteWin => self.white_wins += 1,
            GameResult::Draw => self.draws += 1,
            GameResult::BlackWin => self.black_wins += 1,
        }
    }
}

/// The data files and their progress record, opened for appending.
struct Output {
    bin_path: PathBuf,
    bin: File,
    txt: Option<(PathBuf, File)>,
    progress_path: PathBuf,
    progress: Progress,
}

impl Output {
    /// Opens the files of `opts.out`: fresh ones, or existing ones cut back
    /// to what the progress file says was completely written.
    fn open(opts: &Options) -> Result<Output, DatagenError> {
        let bin_path = with_ext(&opts.out, ".bin");
        let txt_path = with_ext(&opts.out, ".txt");
        let progress_path = with_ext(&opts.out, ".progress");
        let nonempty = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.len() > 0);
        let progress = if progress_path.exists() {
            Progress::read(&progress_path)?
        } else {
            for p in [&bin_path, &txt_path] {
                if nonempty(p) {
                    return Err(DatagenError::Resume(format!(
                        "{} exists but {} does not: not overwriting it",
                        p.display(),
                        progress_path.display()
                    )));
                }
            }
            Progress::default()
        };

        let mut bin = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&bin_path)
            .map_err(io_at(&bin_path))?;
        let len = bin.metadata().map_err(io_at(&bin_path))?.len();
        if progress.games > 0 {
            let mut prefix = Vec::new();
            File::open(&bin_path)
                .and_then(|f| f.take(1 << 16).read_to_end(&mut prefix))
                .map_err(io_at(&bin_path))?;
            let is_games = games::sniff(&prefix) == games::FileKind::Games;
            if is_games != (opts.format == OutputFormat::Games) {
                return Err(DatagenError::Resume(format!(
                    "{} holds {}: resume it with --format {}",
                    bin_path.display(),
                    if is_games { "games" } else { "records" },
                    if is_games { "games" } else { "records" },
                )));
            }
        }
        let want = match opts.format {
            OutputFormat::Records => progress.positions * RECORD_BYTES as u64,
            OutputFormat::Games => games_prefix_len(&bin_path, progress.games)?,
        };
        if len < want {
            return Err(DatagenError::Resume(format!(
                "{} holds {} records but {} counts {}",
                bin_path.display(),
                len / RECORD_BYTES as u64,
                progress_path.display(),
                progress.positions
            )));
        }
        // Anything beyond is a game cut off by a kill: it was never counted.
        bin.set_len(want).map_err(io_at(&bin_path))?;
        bin.seek(SeekFrom::End(0)).map_err(io_at(&bin_path))?;

        let txt = if opts.text {
            let mut file = OpenOptions::new()
                .create(true)
                .truncate(false)
                .read(true)
                .write(true)
                .open(&txt_path)
                .map_err(io_at(&txt_path))?;
            let keep = text_prefix_len(&mut file, progress.positions).map_err(io_at(&txt_path))?;
            let Some(keep) = keep else {
                return Err(DatagenError::Resume(format!(
                    "{} has fewer than the {} lines of {}; rebuild it with \
                     `forsyth datagen text`",
                    txt_path.display(),
                    progress.positions,
                    bin_path.display()
                )));
            };
            file.set_len(keep).map_err(io_at(&txt_path))?;
            file.seek(SeekFrom::End(0)).map_err(io_at(&txt_path))?;
            Some((txt_path, file))
        } else {
            if progress.positions > 0 && nonempty(&txt_path) {
                return Err(DatagenError::Resume(format!(
                    "{} exists: pass --text to keep it in step with {}",
                    txt_path.display(),
                    bin_path.display()
                )));
            }
            None
        };
        progress.write(&progress_path)?;
        Ok(Output {
            bin_path,
            bin,
            txt,
            progress_path,
            progress,
        })
    }

    /// Appends a game, flushes it, then counts it in the progress file.
    fn append(&mut self, game: &Batch) -> Result<(), DatagenError> {
        self.bin
            .write_all(&game.bytes)
            .map_err(io_at(&self.bin_path))?;
        self.bin.flush().map_err(io_at(&self.bin_path))?;
        if let Some((path, file)) = &mut self.txt {
            file.write_all(game.text.as_bytes()).map_err(io_at(path))?;
            file.flush().map_err(io_at(path))?;
        }
        self.progress.add(game.index, game.positions, game.result);
        self.progress.write(&self.progress_path)
    }
}

/// The byte length of the first `count` games of the game file at `path`
/// (what a resumed run keeps); an error if it holds fewer whole games or a
/// bad one among them.
fn games_prefix_len(path: &Path, count: u64) -> Result<u64, DatagenError> {
    if count == 0 {
        return Ok(0);
    }
    let file = File::open(path).map_err(io_at(path))?;
    let mut reader = games::GameReader::new(BufReader::new(file));
    for _ in 0..count {
        match reader.next() {
            Some(Ok(_)) => {}
            Some(Err(e)) => {
                return Err(DatagenError::Resume(format!(
                    "{}: {e}; the progress file counts {count} games",
                    path.display()
                )));
            }
            None => {
                return Err(DatagenError::Resume(format!(
                    "{} holds {} games but its progress file counts {count}",
                    path.display(),
                    reader.games()
                )));
            }
        }
    }
    Ok(reader.offset())
}

/// The byte length of the first `lines` lines of `file`, or `None` if it
/// has fewer complete lines.
fn text_prefix_len(file: &mut File, lines: u64) -> io::Result<Option<u64>> {
    file.seek(SeekFrom::Start(0))?;
    let mut reader = BufReader::new(file);
    let mut bytes = 0u64;
    let mut line = Vec::new();
    for _ in 0..lines {
        line.clear();
        let n = reader.read_until(b'\n', &mut line)?;
        if n == 0 || line.last() != Some(&b'\n') {
            return Ok(None);
        }
        bytes += n as u64;
    }
    Ok(Some(bytes))
}

/// A finished game, packed by the worker so the writer only writes.
struct Batch {
    index: u64,
    result: GameResult,
    positions: u64,
    bytes: Vec<u8>,
    text: String,
}

impl Batch {
    fn new(index: u64, game: &PlayedGame, text: bool, format: OutputFormat) -> Batch {
        if format == OutputFormat::Games {
            return Batch::of_game(index, game, text);
        }
        let mut bytes = Vec::with_capacity(game.positions.len() * RECORD_BYTES);
        let mut lines = String::new();
        for (pos, score) in &game.positions {
            bytes.extend_from_slice(&PackedPosition::pack(pos, *score, game.result).0);
            if text {
                lines.push_str(&format::text_line(pos, *score, game.result));
                lines.push('\n');
            }
        }
        Batch {
            index,
            result: game.result,
            positions: game.positions.len() as u64,
            bytes,
            text: lines,
        }
    }
}

impl Batch {
    /// The whole game in the game format, and with `text` one line a ply:
    /// `FEN | score | result | move`, the score `-` for the opening's
    /// random plies.
    fn of_game(index: u64, played: &PlayedGame, text: bool) -> Batch {
        let mut game = games::Game::new(played.start.clone(), played.result);
        // Options::check keeps random plies within a byte for game files.
        game.opening_plies = played.opening.len().min(u8::MAX as usize) as u8;
        let plies = played.opening.iter().map(|&mv| (mv, None));
        let searched = played.moves.iter().map(|&(mv, s)| (mv, Some(s)));
        let mut lines = String::new();
        let mut pos = played.start.clone();
        for (mv, score) in plies.chain(searched) {
            let stored = score.map_or(0, games::stored_score);
            if text {
                let shown = score.map_or("-".to_string(), |_| stored.to_string());
                lines.push_str(&format!(
                    "{} | {shown} | {} | {}\n",
                    pos.fen(),
                    played.result.as_text(),
                    mv.uci(true)
                ));
            }
            game.plies.push(games::Ply { mv, score: stored });
            pos.play(mv);
        }
        let mut bytes = Vec::with_capacity(game.encoded_len());
        game.encode_into(&mut bytes);
        Batch {
            index,
            result: played.result,
            positions: game.plies.len() as u64,
            bytes,
            text: lines,
        }
    }
}

enum Message {
    Game(Batch),
    Failed(DatagenError),
}

/// Plays games with indices taken from `next` until `end` or `stop`.
fn worker(
    opts: &Options,
    tablebases: Option<&Arc<Tablebases>>,
    book: &[Position],
    next: &AtomicU64,
    end: u64,
    stop: &AtomicBool,
    tx: Sender<Message>,
) {
    let mut pool = match SearchPool::new(opts.hash_mb, 1) {
        Ok(pool) => pool,
        Err(e) => {
            let _ = tx.send(Message::Failed(DatagenError::Search(e)));
            return;
        }
    };
    let settings = GameSettings {
        nodes: opts.nodes,
        soft_nodes: opts.soft_nodes,
        random_plies: opts.random_plies,
        adjudication: opts.adjudication,
        tablebases: tablebases.cloned(),
    };
    while !stop.load(Ordering::Relaxed) {
        let index = next.fetch_add(1, Ordering::Relaxed);
        if index >= end {
            break;
        }
        let mut rng = game::rng_for_game(opts.seed, index);
        let message = match game::play(&mut pool, &settings, book, &mut rng) {
            Ok(game) => Message::Game(Batch::new(index, &game, opts.text, opts.format)),
            Err(e) => Message::Failed(DatagenError::Game(e)),
        };
        let failed = matches!(message, Message::Failed(_));
        // A closed channel means the writer has stopped: nothing to do.
        if tx.send(message).is_err() || failed {
            break;
        }
    }
}

/// What a run did, for the summary and for tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// Totals of the output files, earlier runs included.
    pub total: Progress,
    pub games_this_run: u64,
    pub positions_this_run: u64,
    pub elapsed: Duration,
}

/// Plays the games still missing from `opts.out` and writes them.
pub fn run(opts: &Options) -> Result<Summary, DatagenError> {
    if opts.format == OutputFormat::Games && opts.random_plies > u32::from(u8::MAX) {
        return Err(DatagenError::Usage(format!(
            "--random-plies {} is more than a game file can flag (255)",
            opts.random_plies
        )));
    }
    // The network first: a bad file must fail before any output is touched.
    if let Some(path) = &opts.eval_file {
        let net = crate::engine::nnue::Network::load(path)
            .map_err(|e| DatagenError::Network(path.clone(), e))?;
        crate::engine::nnue::set_active(std::sync::Arc::new(net));
    }
    let tablebases = match &opts.syzygy {
        Some(spec) => Some(Arc::new(load_tablebases(spec)?)),
        None => None,
    };
    let book = match &opts.openings {
        Some(path) => load_openings(path)?,
        None => Vec::new(),
    };
    let mut out = Output::open(opts)?;
    let already = out.progress.clone();
    let remaining = opts.games.saturating_sub(already.games);
    let soft = opts
        .soft_nodes
        .map_or(String::new(), |n| format!("{n} (soft) to "));
    eprintln!(
        "datagen: {} games to play ({} already in {}), {soft}{} nodes per move, {} threads, seed {}, network {:016x}",
        remaining,
        already.games,
        out.bin_path.display(),
        opts.nodes,
        opts.threads,
        opts.seed,
        crate::engine::nnue::active().hash()
    );
    let start = Instant::now();
    let first = already.next_game;
    let next = AtomicU64::new(first);
    let stop = AtomicBool::new(false);
    let (tx, rx) = bounded::<Message>(opts.threads * 2);
    let written = std::thread::scope(|scope| {
        for _ in 0..opts.threads.min(remaining.max(1) as usize) {
            let tx = tx.clone();
            let (book, next, stop, tables) = (&book, &next, &stop, tablebases.as_ref());
            scope.spawn(move || worker(opts, tables, book, next, first + remaining, stop, tx));
        }
        drop(tx);
        let mut meter = Meter::new(remaining, start);
        // Games are written in the order of their numbers, whatever order
        // they end in: the files then depend only on the options, not on
        // --threads or on the timing, and a game that ended before a slower
        // one with a lower number waits here. A kill loses the waiting ones
        // with the ones being played; the progress file never counts past
        // the first missing number, so a resumed run plays them again.
        let mut waiting = BTreeMap::new();
        let mut wanted = first;
        let result = 'recv: loop {
            match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(Message::Game(batch)) => {
                    waiting.insert(batch.index, batch);
                    while let Some(batch) = waiting.remove(&wanted) {
                        if let Err(e) = out.append(&batch) {
                            break 'recv Err(e);
                        }
                        wanted += 1;
                        meter.game(batch.positions);
                    }
                }
                Ok(Message::Failed(e)) => break Err(e),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break Ok(()),
            }
            meter.maybe_show();
        };
        // Workers finish their current game, find the channel closed and end.
        stop.store(true, Ordering::Relaxed);
        drop(rx);
        meter.end();
        result.map(|()| (meter.games, meter.positions))
    })?;
    let summary = Summary {
        total: out.progress.clone(),
        games_this_run: written.0,
        positions_this_run: written.1,
        elapsed: start.elapsed(),
    };
    let t = &summary.total;
    eprintln!(
        "games {} ({} this run), positions {} ({}/s), White +{} ={} -{}, time {}",
        t.games,
        summary.games_this_run,
        t.positions,
        per_second(summary.positions_this_run, summary.elapsed),
        t.white_wins,
        t.draws,
        t.black_wins,
        clock(summary.elapsed)
    );
    Ok(summary)
}

/// The progress on stderr: a bar on a terminal; otherwise the line of
/// totals, rewritten in place (`\r`) about once a second.
struct Meter {
    target: u64,
    games: u64,
    positions: u64,
    start: Instant,
    shown: Instant,
    bar: progress::Meter,
}

impl Meter {
    fn new(target: u64, start: Instant) -> Meter {
        Meter {
            target,
            games: 0,
            positions: 0,
            start,
            shown: start,
            bar: progress::Meter::new(target, progress::templates::DATAGEN),
        }
    }

    fn game(&mut self, positions: u64) {
        self.games += 1;
        self.positions += positions;
        self.bar.set_position(self.games);
        self.bar.set_message(format!(
            "positions {}  {}/s",
            self.positions,
            per_second(self.positions, self.start.elapsed())
        ));
    }

    fn maybe_show(&mut self) {
        if self.shown.elapsed() >= Duration::from_secs(1) {
            self.show();
        }
    }

    /// The last totals, and the bar gone.
    fn end(&mut self) {
        if self.bar.is_bar() {
            self.bar.finish();
        } else {
            self.show();
            eprintln!();
        }
    }

    fn show(&mut self) {
        if self.bar.is_bar() {
            return;
        }
        self.shown = Instant::now();
        let elapsed = self.start.elapsed();
        let left = if self.games == 0 {
            "?".to_string()
        } else {
            let per_game = elapsed.as_secs_f64() / self.games as f64;
            let rest = self.target.saturating_sub(self.games) as f64 * per_game;
            clock(Duration::from_secs_f64(rest))
        };
        eprint!(
            "\rgames {}/{}  positions {}  {}/s  elapsed {}  left {}   ",
            self.games,
            self.target,
            self.positions,
            per_second(self.positions, elapsed),
            clock(elapsed),
            left
        );
    }
}

fn per_second(n: u64, time: Duration) -> u64 {
    (n as f64 / time.as_secs_f64().max(1e-3)) as u64
}

/// `h:mm:ss`.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_round_trip_and_checks() {
        let p = Progress {
            games: 3,
            positions: 250,
            next_game: 5,
            white_wins: 1,
            draws: 1,
            black_wins: 1,
        };
        assert_eq!(Progress::parse(&p.to_text()), Ok(p));
        assert!(Progress::parse("games 1\npositions 2\n").is_err());
        assert!(
            Progress::parse(&Progress::default().to_text().replace("draws 0", "draws 1")).is_err()
        );
        assert!(Progress::parse("games x").is_err());
    }

    #[test]
    fn openings_take_four_fields_and_counters_when_given() {
        let dir = std::env::temp_dir().join(format!("forsyth-openings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("book.epd");
        std::fs::write(
            &path,
            "# comment\n\
             rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - bm e5; id \"x\";\n\
             \n\
             rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\n",
        )
        .unwrap();
        let book = load_openings(&path).unwrap();
        assert_eq!(book.len(), 2);
        assert_eq!(
            book[0].fen(),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        );
        assert_eq!(book[1].fullmove_number(), 2);
        std::fs::write(&path, "rnbqkbnr/pppppppp/8/8 w KQkq -\n").unwrap();
        assert!(matches!(
            load_openings(&path),
            Err(DatagenError::Opening { line: 1, .. })
        ));
        std::fs::write(&path, "\n# nothing\n").unwrap();
        assert!(matches!(
            load_openings(&path),
            Err(DatagenError::NoOpenings(_))
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_test_book_loads() {
        // Every 97th line of the 8moves_v3 book (tests/data/README.md).
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/openings/8moves_v3-every97.epd"
        );
        let book = load_openings(Path::new(path)).unwrap();
        assert_eq!(book.len(), 358);
    }

    #[test]
    fn durations_print_as_clock_time() {
        assert_eq!(clock(Duration::from_secs(3725)), "1:02:05");
        assert_eq!(clock(Duration::from_millis(999)), "0:00:00");
    }
}
