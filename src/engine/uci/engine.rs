//! The UCI loop: one thread reads stdin and handles each command; searches
//! run on the search pool's threads and report through `UciReporter`; a
//! writer thread owns stdout and writes whole lines, flushed one by one.

use super::command::{Command, GoParams, PositionStart, parse_line};
use super::output::{self, Bound as OutBound, Info, OptionKind, Score as OutScore};
use crate::engine::book::{self, Book, Rng};
use crate::engine::chess::{Move, Position};
use crate::engine::score;
use crate::engine::search::{
    Clock, Iteration, Job, Limits, Reporter, ScoreBound, SearchOptions, SearchPool, SyzygyOptions,
    bench, mate_in, strength,
};
use crate::engine::tablebase::{Tablebases, Wdl};
use crossbeam_channel::{Sender, unbounded};
use std::io::{BufRead, Write};
use std::sync::Arc;
use std::time::Instant;

pub const ENGINE_NAME: &str = "Forsyth";
pub const AUTHOR: &str = "the Forsyth developers";

/// Sends whole lines to the writer thread.
#[derive(Clone)]
pub struct Output {
    tx: Sender<String>,
}

impl Output {
    /// Output that goes to this channel, one line (or block of lines) per
    /// message: for embedding the engine, and for tests.
    pub fn new(tx: Sender<String>) -> Output {
        Output { tx }
    }

    pub fn line(&self, s: impl Into<String>) {
        let _ = self.tx.send(s.into());
    }

    pub fn error(&self, what: impl std::fmt::Display) {
        self.line(format!("info string error: {what}"));
    }

    pub fn warning(&self, what: impl std::fmt::Display) {
        self.line(format!("info string warning: {what}"));
    }
}

/// Turns search events into `info` and `bestmove` lines.
struct UciReporter {
    out: Output,
    chess960: bool,
    show_wdl: bool,
}

fn out_score(score: i32) -> OutScore {
    match mate_in(score) {
        Some(m) => OutScore::Mate(m),
        None => OutScore::Cp(score::wdl::normalise(score)),
    }
}

impl Reporter for UciReporter {
    fn iteration(&self, it: &Iteration) {
        let time = it.time_ms;
        let info = Info {
            depth: Some(it.depth),
            seldepth: Some(it.seldepth),
            multipv: Some(it.multipv as u32),
            score: it.score.map(|score| {
                (
                    out_score(score),
                    match it.bound {
                        ScoreBound::Exact => OutBound::Exact,
                        ScoreBound::Lower => OutBound::Lower,
                        ScoreBound::Upper => OutBound::Upper,
                    },
                )
            }),
            wdl: match (self.show_wdl, it.tb_wdl, it.score) {
                (false, _, _) => None,
                // The tables know; the model only estimates.
                (true, Some(Wdl::Win), _) => Some((1000, 0, 0)),
                (true, Some(Wdl::Loss), _) => Some((0, 0, 1000)),
                (true, Some(_), _) => Some((0, 1000, 0)),
                (true, None, score) => score.map(score::wdl::wdl),
            },
            nodes: Some(it.nodes),
            nps: Some(crate::engine::search::nps(it.nodes, time)),
            hashfull: Some(it.hashfull),
            tbhits: Some(it.tbhits),
            time: Some(time),
            pv: it
                .pv
                .iter()
                .map(|m| m.uci(self.chess960).to_string())
                .collect(),
            ..Info::default()
        };
        self.out.line(info.to_string());
    }

    fn current_move(&self, depth: u32, mv: Move, number: usize) {
        let info = Info {
            depth: Some(depth),
            currmove: Some(mv.uci(self.chess960).to_string()),
            currmovenumber: Some(number as u32),
            ..Info::default()
        };
        self.out.line(info.to_string());
    }

    fn best_move(&self, best: Option<Move>, ponder: Option<Move>) {
        let best = best.map(|m| m.uci(self.chess960).to_string());
        let ponder = ponder.map(|m| m.uci(self.chess960).to_string());
        self.out
            .line(output::bestmove_line(best.as_deref(), ponder.as_deref()));
    }
}

/// The position to search: the root and the keys of the game before it.
#[derive(Clone)]
struct Game {
    pos: Position,
    history: Vec<u64>,
}

struct Options {
    hash_mb: usize,
    threads: usize,
    multipv: usize,
    ponder: bool,
    move_overhead_ms: u64,
    chess960: bool,
    /// `UCI_LimitStrength`: play at `UCI_Elo` (see [`strength`]).
    limit_strength: bool,
    elo: u32,
    show_wdl: bool,
    own_book: bool,
    /// Empty for the book built into the binary.
    book_file: String,
    /// Book moves are played while the game is shorter than this many plies.
    book_depth: u32,
    book_variety: u32,
    /// The folders of `SyzygyPath`; empty for none.
    syzygy_path: String,
    syzygy: SyzygyOptions,
    /// The network file of `EvalFile`; empty for the embedded network.
    eval_file: String,
    /// The search's constants; only a tuning build's options change them.
    params: crate::engine::search::params::Params,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: 16,
            threads: 1,
            multipv: 1,
            ponder: false,
            move_overhead_ms: SearchOptions::default().move_overhead_ms,
            chess960: false,
            limit_strength: false,
            elo: strength::MAX_ELO,
            show_wdl: false,
            own_book: false,
            book_file: String::new(),
            book_depth: 40,
            // Weights squared: mostly the main moves, sometimes the others.
            book_variety: 50,
            syzygy_path: String::new(),
            syzygy: SyzygyOptions::default(),
            eval_file: String::new(),
            params: crate::engine::search::params::Params::default(),
        }
    }
}

const MAX_HASH_MB: i64 = 33_554_432;
const MAX_THREADS: i64 = 1024;
const MAX_MULTIPV: i64 = 256;
const MAX_OVERHEAD_MS: i64 = 5000;
const MAX_BOOK_DEPTH: i64 = 1000;
const MAX_PROBE_DEPTH: i64 = 100;
/// The largest Syzygy tables there are.
const MAX_PROBE_LIMIT: i64 = 7;

/// The options as announced to the GUI, in the order `uci` lists them.
fn option_list() -> Vec<(&'static str, OptionKind)> {
    let d = Options::default();
    #[allow(unused_mut)]
    let mut list = vec![
        (
            "Hash",
            OptionKind::Spin {
                default: d.hash_mb as i64,
                min: 1,
                max: MAX_HASH_MB,
            },
        ),
        ("Clear Hash", OptionKind::Button),
        (
            "Threads",
            OptionKind::Spin {
                default: d.threads as i64,
                min: 1,
                max: MAX_THREADS,
            },
        ),
        (
            "MultiPV",
            OptionKind::Spin {
                default: d.multipv as i64,
                min: 1,
                max: MAX_MULTIPV,
            },
        ),
        ("Ponder", OptionKind::Check { default: d.ponder }),
        (
            "Move Overhead",
            OptionKind::Spin {
                default: d.move_overhead_ms as i64,
                min: 0,
                max: MAX_OVERHEAD_MS,
            },
        ),
        (
            "UCI_Chess960",
            OptionKind::Check {
                default: d.chess960,
            },
        ),
        (
            "UCI_LimitStrength",
            OptionKind::Check {
                default: d.limit_strength,
            },
        ),
        (
            "UCI_Elo",
            OptionKind::Spin {
                default: i64::from(d.elo),
                min: i64::from(strength::MIN_ELO),
                max: i64::from(strength::MAX_ELO),
            },
        ),
        (
            "UCI_ShowWDL",
            OptionKind::Check {
                default: d.show_wdl,
            },
        ),
        (
            "OwnBook",
            OptionKind::Check {
                default: d.own_book,
            },
        ),
        (
            "BookFile",
            OptionKind::String {
                default: d.book_file.clone(),
            },
        ),
        (
            "Book Depth",
            OptionKind::Spin {
                default: d.book_depth as i64,
                min: 0,
                max: MAX_BOOK_DEPTH,
            },
        ),
        (
            "Book Variety",
            OptionKind::Spin {
                default: d.book_variety as i64,
                min: 0,
                max: book::MAX_VARIETY as i64,
            },
        ),
        (
            "SyzygyPath",
            OptionKind::String {
                default: d.syzygy_path.clone(),
            },
        ),
        (
            "SyzygyProbeDepth",
            OptionKind::Spin {
                default: i64::from(d.syzygy.probe_depth),
                min: 1,
                max: MAX_PROBE_DEPTH,
            },
        ),
        (
            "Syzygy50MoveRule",
            OptionKind::Check {
                default: d.syzygy.rule50,
            },
        ),
        (
            "SyzygyProbeLimit",
            OptionKind::Spin {
                default: d.syzygy.probe_limit as i64,
                min: 0,
                max: MAX_PROBE_LIMIT,
            },
        ),
        (
            "EvalFile",
            OptionKind::String {
                default: d.eval_file.clone(),
            },
        ),
    ];
    // A tuning build: the search's constants last, by their table names.
    #[cfg(feature = "tune")]
    list.extend(crate::engine::search::params::TABLE.iter().map(|p| {
        (
            p.name,
            OptionKind::Spin {
                default: i64::from(p.default),
                min: i64::from(p.min),
                max: i64::from(p.max),
            },
        )
    }));
    list
}

pub struct UciEngine {
    out: Output,
    pool: SearchPool,
    game: Option<Game>,
    options: Options,
    debug: bool,
    /// The book `BookFile` names; `None` when it could not be opened (the
    /// error was given when the option was set).
    book: Option<Book>,
    rng: Rng,
    /// Searches since `ucinewgame`: with the position's key, the seed of a
    /// weakened search's choice, so that a game replayed is played alike.
    searches: u64,
}

impl UciEngine {
    pub fn new(out: Output) -> Result<UciEngine, String> {
        let options = Options::default();
        Ok(UciEngine {
            out,
            pool: SearchPool::new(options.hash_mb, options.threads)?,
            game: Some(Game {
                pos: Position::startpos(),
                history: Vec::new(),
            }),
            options,
            debug: false,
            book: Book::default_book().ok(),
            rng: Rng::from_entropy(),
            searches: 0,
        })
    }

    /// Handles one input line; returns false when the engine should exit.
    pub fn handle_line(&mut self, line: &str) -> bool {
        match parse_line(line) {
            Ok(None) => true,
            Ok(Some(cmd)) => self.handle(cmd),
            Err(e) => {
                let is_go = e.is_go();
                if is_go {
                    // As for a good `go`: a running search answers first,
                    // so that each `bestmove` answers the `go` it belongs to.
                    self.pool.stop();
                    self.pool.wait();
                }
                // As in `set_position`: a refused `position` leaves no
                // position, so that `go` cannot search the one before it.
                if e.command() == Some("position") {
                    self.game = None;
                }
                self.out.error(e);
                // A `go` that cannot be understood still gets its answer.
                if is_go {
                    self.out.line(output::bestmove_line(None, None));
                }
                true
            }
        }
    }

    fn handle(&mut self, cmd: Command) -> bool {
        let busy = matches!(cmd, Command::Perft { .. }) && self.pool.is_searching();
        match cmd {
            Command::Uci => {
                self.out.line(format!(
                    "id name {ENGINE_NAME} {}",
                    env!("CARGO_PKG_VERSION")
                ));
                self.out.line(format!("id author {AUTHOR}"));
                for (name, kind) in option_list() {
                    self.out.line(output::option_line(name, &kind));
                }
                self.out.line("uciok");
            }
            Command::Debug(on) => self.debug = on,
            Command::IsReady => self.out.line("readyok"),
            Command::Register => {}
            Command::UciNewGame => {
                self.pool.clear();
                self.searches = 0;
            }
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::Position { start, moves } => self.set_position(start, &moves),
            Command::Go(params) => self.go(params),
            Command::Stop => self.pool.stop(),
            Command::PonderHit => self.pool.ponderhit(),
            Command::Quit => {
                self.pool.stop();
                self.pool.wait();
                return false;
            }
            Command::Display => match &self.game {
                Some(g) => self.out.line(display(&g.pos)),
                None => self
                    .out
                    .error("no position: the last position command was refused"),
            },
            Command::Eval => match &self.game {
                Some(g) => self.out.line(crate::engine::nnue::trace(&g.pos)),
                None => self
                    .out
                    .error("no position: the last position command was refused"),
            },
            Command::Flip => {
                if let Some(g) = &mut self.game {
                    g.pos = g.pos.mirrored();
                    g.history.clear();
                }
            }
            Command::Perft { depth } => match &self.game {
                Some(_) if busy => self
                    .out
                    .error("perft: a search is running; send stop first"),
                Some(g) => {
                    let start = Instant::now();
                    self.out.line(crate::engine::chess::perft::report(
                        &g.pos,
                        depth,
                        self.options.chess960,
                    ));
                    if self.debug {
                        self.out.line(format!(
                            "info string perft took {} ms",
                            start.elapsed().as_millis()
                        ));
                    }
                }
                None => self
                    .out
                    .error("no position: the last position command was refused"),
            },
            Command::Bench { depth } => {
                if self.pool.is_searching() {
                    self.out
                        .error("bench: a search is running; send stop first");
                } else {
                    match bench::run(depth.unwrap_or(bench::DEFAULT_DEPTH)) {
                        Ok((nodes, time)) => {
                            let ms = time.as_millis().max(1) as u64;
                            self.out.line(format!(
                                "{nodes} nodes {} nps",
                                crate::engine::search::nps(nodes, ms)
                            ));
                        }
                        Err(e) => self.out.error(e),
                    }
                }
            }
        }
        true
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let lname = name.to_ascii_lowercase();
        let Some((canonical, kind)) = option_list()
            .into_iter()
            .find(|(n, _)| n.to_ascii_lowercase() == lname)
        else {
            self.out
                .error(format!("setoption: unknown option '{}'", clip(name)));
            return;
        };
        let value = value.unwrap_or("").trim();
        match kind {
            OptionKind::Button => {
                if canonical == "Clear Hash" {
                    if self.pool.is_searching() {
                        self.out
                            .error("setoption: cannot clear the hash while searching");
                    } else {
                        self.pool.clear();
                    }
                }
            }
            OptionKind::Check { .. } => {
                let v = match value.to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    _ => {
                        self.out.error(format!(
                            "setoption: {canonical} needs 'true' or 'false', got '{}'",
                            clip(value)
                        ));
                        return;
                    }
                };
                match canonical {
                    "Ponder" => self.options.ponder = v,
                    "UCI_Chess960" => self.options.chess960 = v,
                    "UCI_LimitStrength" => self.options.limit_strength = v,
                    "UCI_ShowWDL" => self.options.show_wdl = v,
                    "OwnBook" => self.options.own_book = v,
                    "Syzygy50MoveRule" => self.options.syzygy.rule50 = v,
                    _ => {}
                }
            }
            OptionKind::Spin { min, max, .. } => {
                let v = match value.parse::<i64>() {
                    Ok(v) if (min..=max).contains(&v) => v,
                    _ => {
                        self.out.error(format!(
                            "setoption: {canonical} needs an integer from {min} to {max}, got '{}'",
                            clip(value)
                        ));
                        return;
                    }
                };
                match canonical {
                    "Hash" => {
                        if self.pool.is_searching() {
                            self.out
                                .error("setoption: cannot resize the hash while searching");
                        } else {
                            match self.pool.resize_hash(v as usize) {
                                Ok(()) => self.options.hash_mb = v as usize,
                                Err(e) => self.out.error(format!(
                                    "setoption: {e}; keeping the {} MB table",
                                    self.options.hash_mb
                                )),
                            }
                        }
                    }
                    "Threads" => {
                        if self.pool.is_searching() {
                            self.out
                                .error("setoption: cannot change Threads while searching");
                        } else {
                            match self.pool.set_threads(v as usize) {
                                Ok(()) => self.options.threads = v as usize,
                                Err(e) => self.out.error(format!("setoption: {e}")),
                            }
                        }
                    }
                    "MultiPV" => self.options.multipv = v as usize,
                    "UCI_Elo" => self.options.elo = v as u32,
                    "Move Overhead" => self.options.move_overhead_ms = v as u64,
                    "Book Depth" => self.options.book_depth = v as u32,
                    "Book Variety" => self.options.book_variety = v as u32,
                    "SyzygyProbeDepth" => self.options.syzygy.probe_depth = v as i32,
                    "SyzygyProbeLimit" => self.options.syzygy.probe_limit = v as usize,
                    // A constant of the search (a tuning build); in range
                    // already, as its option's range is the table's.
                    #[cfg(feature = "tune")]
                    name => {
                        if let Err(e) = self.options.params.set(name, v as i32) {
                            self.out.error(format!("setoption: {name}: {e:?}"));
                        }
                    }
                    #[cfg(not(feature = "tune"))]
                    _ => {}
                }
            }
            OptionKind::String { .. } => match canonical {
                "BookFile" => self.set_book_file(value),
                "SyzygyPath" => self.set_syzygy_path(value),
                "EvalFile" => self.set_eval_file(value),
                _ => {}
            },
            OptionKind::Combo { .. } => {}
        }
    }

    /// Opens the book now, so that a missing or corrupt file is reported
    /// once, here, and later searches just go without it.
    fn set_book_file(&mut self, value: &str) {
        let file = if value == "<empty>" { "" } else { value };
        self.options.book_file = file.to_string();
        let opened = if file.is_empty() {
            Book::default_book()
        } else {
            Book::open(std::path::Path::new(file))
        };
        self.book = match opened {
            Ok(b) => Some(b),
            Err(e) => {
                self.out
                    .error(format!("BookFile: {e}; searching without a book"));
                None
            }
        };
    }

    /// Loads the network now, so that a missing, truncated or foreign file
    /// is refused here with its reason and the current network stays.
    fn set_eval_file(&mut self, value: &str) {
        let file = if value == "<empty>" { "" } else { value };
        if self.pool.is_searching() {
            self.out
                .error("setoption: cannot change EvalFile while searching");
            return;
        }
        let loaded = if file.is_empty() {
            Ok(crate::engine::nnue::embedded())
        } else {
            crate::engine::nnue::Network::load(std::path::Path::new(file))
        };
        match loaded {
            Ok(net) => {
                self.out.line(format!(
                    "info string EvalFile: {} ({:016x})",
                    if file.is_empty() {
                        "the embedded network"
                    } else {
                        file
                    },
                    net.hash()
                ));
                crate::engine::nnue::set_active(Arc::new(net));
                self.options.eval_file = file.to_string();
            }
            Err(e) => self.out.error(format!(
                "EvalFile: {}: {e}; keeping network {:016x}",
                clip(file),
                crate::engine::nnue::active().hash()
            )),
        }
    }

    /// Loads the tables now, on this thread, so that a missing folder or an
    /// unreadable file is reported once, here (one line for all of them),
    /// and searches go on with whatever tables could be loaded.
    fn set_syzygy_path(&mut self, value: &str) {
        let path = if value == "<empty>" { "" } else { value };
        self.options.syzygy_path = path.to_string();
        if path.is_empty() {
            self.pool.set_tablebases(None);
            return;
        }
        let (tb, errors) = Tablebases::load(path);
        if !errors.is_empty() {
            let list: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            self.out.error(format!(
                "SyzygyPath: {}; using the {} table files found",
                list.join("; "),
                tb.files()
            ));
        } else {
            self.out.line(format!(
                "info string SyzygyPath: {} table files, up to {} pieces",
                tb.files(),
                tb.max_pieces()
            ));
        }
        self.pool
            .set_tablebases((tb.files() > 0).then(|| Arc::new(tb)));
    }

    /// The book move to play instead of searching, if any. Only a game
    /// move on the clock (`wtime`/`btime` for the side to move, or
    /// `movetime`) comes from the book: `go infinite`, `ponder`, `depth`,
    /// `nodes`, `mate`, `searchmoves` and a bare `go` are analysis and are
    /// searched as asked.
    fn book_move(&mut self, pos: &Position, params: &GoParams) -> Option<Move> {
        let white = pos.side_to_move() == crate::engine::chess::Color::White;
        let clock = if white { params.wtime } else { params.btime };
        if !self.options.own_book
            || (clock.is_none() && params.movetime.is_none())
            || params.infinite
            || params.ponder
            || params.depth.is_some()
            || params.nodes.is_some()
            || params.mate.is_some()
            || !params.searchmoves.is_empty()
        {
            return None;
        }
        let ply = 2 * pos.fullmove_number().saturating_sub(1) + u32::from(!white);
        if ply >= self.options.book_depth {
            return None;
        }
        let moves = match self.book.as_ref()?.probe(pos) {
            Ok(moves) => moves,
            Err(e) => {
                self.out.error(e);
                return None;
            }
        };
        let m = book::choose(&moves, self.options.book_variety, &mut self.rng)?;
        // The book's moves are matched against our legal moves already;
        // checked again because playing an illegal move loses the game.
        pos.is_legal(m).then_some(m)
    }

    fn set_position(&mut self, start: PositionStart, moves: &[String]) {
        // Whatever happens below, never leave the old position in place:
        // a refused command must not let `go` search something else.
        self.game = None;
        let (mut pos, warnings) = match start {
            PositionStart::StartPos => (Position::startpos(), Vec::new()),
            PositionStart::Fen(fen) => match Position::from_fen(&fen) {
                Ok(r) => r,
                Err(e) => {
                    self.out.error(format!("position refused: {e}"));
                    return;
                }
            },
        };
        for w in warnings {
            self.out.warning(format!("position: {w}"));
        }
        let mut history = Vec::with_capacity(moves.len());
        for (i, text) in moves.iter().enumerate() {
            match pos.parse_uci_move(text) {
                Ok(m) => {
                    history.push(pos.key());
                    pos.play(m);
                }
                Err(e) => {
                    self.out.error(format!(
                        "position refused: move {} {e} in {}",
                        i + 1,
                        pos.fen()
                    ));
                    return;
                }
            }
        }
        self.game = Some(Game { pos, history });
    }

    fn go(&mut self, params: GoParams) {
        self.pool.stop();
        self.pool.wait();
        let Some(game) = self.game.clone() else {
            self.out
                .error("go: no position to search (the last position command was refused)");
            self.out.line(output::bestmove_line(None, None));
            return;
        };
        if let Some(m) = self.book_move(&game.pos, &params) {
            let text = m.uci(self.options.chess960).to_string();
            self.out.line(format!("info string book move {text}"));
            self.out.line(output::bestmove_line(Some(&text), None));
            return;
        }
        let mut searchmoves = Vec::new();
        for text in &params.searchmoves {
            match game.pos.parse_uci_move(text) {
                Ok(m) => searchmoves.push(m),
                Err(e) => self.out.error(format!("go searchmoves: {e}")),
            }
        }
        let white = game.pos.side_to_move() == crate::engine::chess::Color::White;
        let limits = Limits {
            clock: Clock {
                time: if white { params.wtime } else { params.btime },
                inc: (if white { params.winc } else { params.binc }).unwrap_or(0),
                movestogo: params.movestogo,
                movetime: params.movetime,
            },
            depth: params.depth,
            nodes: params.nodes,
            soft_nodes: None,
            mate: params.mate,
            infinite: params.infinite,
            ponder: params.ponder,
            searchmoves,
        };
        if game.pos.count_legal() == 0 {
            let score = if game.pos.in_check() {
                "mate 0"
            } else {
                "cp 0"
            };
            self.out.line(format!("info depth 0 score {score}"));
        }
        let reporter = Arc::new(UciReporter {
            out: self.out.clone(),
            chess960: self.options.chess960,
            show_wdl: self.options.show_wdl,
        });
        // Every `go` but `go infinite` (analysis) plays at the strength
        // asked for; a ponder search as the search it stands for.
        let strength =
            (self.options.limit_strength && !params.infinite).then(|| strength::Strength {
                elo: self.options.elo,
                seed: game.pos.key() ^ self.searches.wrapping_mul(0x9E37_79B9_7F4A_7C15),
            });
        self.searches += 1;
        let options = SearchOptions {
            multipv: self.options.multipv,
            move_overhead_ms: self.options.move_overhead_ms,
            syzygy: self.options.syzygy,
            strength,
            params: self.options.params.clone(),
            ..SearchOptions::default()
        };
        self.pool.start(
            Job {
                root: game.pos,
                history: game.history,
                limits,
                options,
            },
            reporter,
        );
    }
}

/// The `d` board with an `Epd:` line added before `Checkers:`, which
/// clients read as the last line, as in Stockfish.
fn display(pos: &Position) -> String {
    let board = pos.pretty();
    let epd = crate::engine::chess::epd::position_epd(pos);
    match board.rsplit_once("\nCheckers:") {
        Some((head, tail)) => format!("{head}\nEpd: {epd}\nCheckers:{tail}"),
        None => format!("{board}\nEpd: {epd}"),
    }
}

/// Quoted input in messages is cut so that a huge line gives a short error.
fn clip(s: &str) -> String {
    let mut c: String = s.chars().take(60).collect();
    if c.len() < s.len() {
        c.push_str("...");
    }
    c
}

/// Runs the UCI protocol on stdin/stdout until `quit` or end of input.
pub fn run() -> Result<(), String> {
    let (tx, rx) = unbounded::<String>();
    let writer = std::thread::Builder::new()
        .name("stdout".into())
        .spawn(move || {
            let stdout = std::io::stdout();
            let mut lock = stdout.lock();
            for line in rx {
                if writeln!(lock, "{line}").and_then(|_| lock.flush()).is_err() {
                    // The GUI is gone; nothing more can be said.
                    break;
                }
            }
        })
        .map_err(|e| format!("cannot start the output thread: {e}"))?;
    let out = Output { tx };
    let mut engine = UciEngine::new(out.clone())?;
    let stdin = std::io::stdin();
    let mut reader = stdin.lock();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if !engine.handle_line(&String::from_utf8_lossy(&buf)) {
                    break;
                }
            }
        }
    }
    // End of input is a quit too: stop the search before leaving.
    engine.handle(Command::Quit);
    drop(engine);
    drop(out);
    let _ = writer.join();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refused_position_clears_the_game() {
        let (tx, rx) = unbounded();
        let mut e = UciEngine::new(Output { tx }).unwrap();
        e.handle_line("position startpos moves e2e4 e7e5 e1e3");
        assert!(e.game.is_none());
        let lines: Vec<String> = rx.try_iter().collect();
        assert_eq!(lines.len(), 1);
        assert!(
            lines[0].starts_with("info string error: position refused: move 3"),
            "{lines:?}"
        );
        e.handle_line("go depth 1");
        let lines: Vec<String> = rx.try_iter().collect();
        assert_eq!(lines.last().map(String::as_str), Some("bestmove 0000"));
    }

    #[test]
    fn a_finished_search_does_not_block_options() {
        let (tx, rx) = unbounded();
        let mut e = UciEngine::new(Output { tx }).unwrap();
        e.handle_line("go depth 1");
        let deadline = Instant::now() + std::time::Duration::from_secs(10);
        while !rx
            .recv_deadline(deadline)
            .expect("a bestmove within 10 s")
            .starts_with("bestmove")
        {}
        e.handle_line("setoption name Hash value 2");
        e.handle_line("setoption name Threads value 2");
        e.handle_line("perft 1");
        let lines: Vec<String> = rx.try_iter().collect();
        assert!(
            lines.iter().all(|l| !l.starts_with("info string error")),
            "{lines:?}"
        );
        assert_eq!((e.options.hash_mb, e.options.threads), (2, 2));
    }

    /// A tuning build: every constant of the table is an option that sets
    /// it, and a value out of its range is refused with one error line,
    /// the value kept.
    #[cfg(feature = "tune")]
    #[test]
    fn every_search_constant_is_an_option() {
        use crate::engine::search::params::{Params, TABLE};
        let (tx, rx) = unbounded();
        let mut e = UciEngine::new(Output { tx }).unwrap();
        e.handle_line("uci");
        let lines: Vec<String> = rx.try_iter().collect();
        for p in TABLE {
            let line = format!(
                "option name {} type spin default {} min {} max {}",
                p.name, p.default, p.min, p.max
            );
            assert!(lines.contains(&line), "{line}");
            let other = if p.default == p.max { p.min } else { p.max };
            e.handle_line(&format!("setoption name {} value {other}", p.name));
            assert_eq!(e.options.params.get(p.name), Some(other), "{}", p.name);
            for bad in [
                i64::from(p.min) - 1,
                i64::from(p.max) + 1,
                i64::from(i32::MAX) + 1,
            ] {
                e.handle_line(&format!("setoption name {} value {bad}", p.name));
                let errors: Vec<String> = rx.try_iter().collect();
                assert_eq!(
                    errors,
                    [format!(
                        "info string error: setoption: {} needs an integer from {} to {}, got '{bad}'",
                        p.name, p.min, p.max
                    )]
                );
                assert_eq!(e.options.params.get(p.name), Some(other), "{}", p.name);
            }
            e.handle_line(&format!("setoption name {} value {}", p.name, p.default));
        }
        assert!(rx.try_iter().next().is_none());
        assert_eq!(e.options.params, Params::default());
    }

    #[test]
    fn options_are_checked() {
        let (tx, rx) = unbounded();
        let mut e = UciEngine::new(Output { tx }).unwrap();
        e.handle_line("setoption name hash value 0");
        e.handle_line("setoption name MULTIPV value 3");
        e.handle_line("setoption name Nonsense value 3");
        let lines: Vec<String> = rx.try_iter().collect();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(e.options.multipv, 3);
        assert_eq!(e.options.hash_mb, 16);
    }
}
