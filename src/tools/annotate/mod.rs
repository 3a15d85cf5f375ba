//! `forsyth annotate FILE.pgn`: every game of a PGN file analysed, written
//! again as PGN with the engine's evaluations, mistakes marked and better
//! lines, or as one JSON object a game (`--json`; schema in docs/command-line.md).
//!
//! - [`crate::tools::pgn`] reads the games in full, checking every move;
//! - [`analysis`] searches each position once and judges each move;
//! - [`output`] adds the analysis to a game, or turns it into JSON;
//! - [`write`](mod@write) writes a game as PGN;
//! - [`html`] makes the web page of `--html`.
//!
//! One search pool serves the whole run. A game is searched from its last
//! position back to its first with the hash table kept: what the search
//! learnt of the ending is in the table when it reaches the moves that led
//! there, and each position is searched once (its evaluation is both the
//! one after the move that reached it and the one before the next).
//! Measured on a 60-move game at a fixed depth: the kept table saves 40%
//! of the nodes against a fresh one for each position (depth 12: 4.7
//! against 7.7 million; depth 14: 11.0 against 19.1), and going backwards
//! saves 12% more than going forwards at depth 14 (12.6 million), nothing
//! at depth 12. At `--movetime` the time is fixed and the table buys depth.

pub mod analysis;
pub mod html;
pub mod output;
pub mod write;

use crate::engine::search::Budget;
use crate::tools::cli::args::AnnotateArgs;
use crate::tools::cli::epd::Finish;
use crate::tools::cli::interrupt;
use crate::tools::pgn::{Game, read_games};
use crate::tools::progress::{Meter, templates};
use analysis::{Analyser, Eval};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// Without a limit: `analyse`'s depth for each position, the same answers
/// on every run with one thread; a 60-move game is 11 million nodes, 5 s
/// on one core at 2 million nodes a second.
pub const DEFAULT_DEPTH: u32 = crate::tools::cli::analyse::DEFAULT_DEPTH;

pub fn run(args: &AnnotateArgs) -> Result<Finish, String> {
    let path = &args.file;
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    let read = read_games(&bytes).map_err(|e| format!("{name}: {e}"))?;
    let total = read.len();
    let mut games = Vec::new();
    let mut bad = 0;
    for g in read {
        match g {
            Ok(g) => games.push(g),
            Err(e) => {
                bad += 1;
                let skipped = if args.strict { "" } else { "; game skipped" };
                eprintln!("{name}: {e}{skipped}");
            }
        }
    }
    if args.strict && bad > 0 {
        return Err(format!(
            "{name}: {bad} of {total} games are bad (--strict); nothing written"
        ));
    }
    if games.is_empty() {
        return Err(format!("{name}: no game could be read"));
    }
    let budget = args
        .search
        .limit
        .budget()
        .unwrap_or(Budget::Depth(DEFAULT_DEPTH));
    let mut analyser = Analyser::new(budget, args.multipv, args.search.threads, args.search.hash)?;

    // The page's file is made first: an unwritable folder fails now, not
    // after the analysis.
    let mut report = match &args.html {
        Some(p) if same_file(p, path) => {
            return Err(format!("--html {} is the input file", p.display()));
        }
        Some(p) if args.out.as_deref() == Some(p.as_path()) => {
            return Err(format!("--html and --out are both {}", p.display()));
        }
        Some(p) => {
            let file = path
                .file_name()
                .map_or(name.clone(), |f| f.display().to_string());
            Some(html::Report::create(
                p,
                &format!("{file}, analysed"),
                budget,
            )?)
        }
        None => None,
    };
    let mut out: Box<dyn Write> = match &args.out {
        Some(p) => {
            if same_file(p, path) {
                return Err(format!("--out {} is the input file", p.display()));
            }
            let f = std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()))?;
            Box::new(std::io::BufWriter::new(f))
        }
        // The page replaces the PGN on stdout.
        None if report.is_some() => Box::new(std::io::sink()),
        None => Box::new(std::io::stdout().lock()),
    };
    let out_name = args
        .out
        .as_ref()
        .map_or("stdout".to_string(), |p| p.display().to_string());

    interrupt::install();
    let positions: usize = games.iter().map(|g| g.main.nodes.len() + 1).sum();
    let good = games.len();
    let mut progress = Progress::new(total, positions, budget);
    for (written, mut game) in games.into_iter().enumerate() {
        let Some(evals) = analyse_game(&mut analyser, &game, &mut progress, || {
            interrupt::interrupted()
        }) else {
            progress.finish();
            eprintln!(
                "interrupted: {written} of {good} games written (game {} was not finished)",
                game.number
            );
            let _ = out.flush();
            if let Some(r) = report {
                r.finish()?;
            }
            return Ok(Finish::Interrupted);
        };
        let judgements = output::judge_game(&game, &evals);
        if let Some(r) = report.as_mut() {
            r.add(&game, &evals, &judgements);
        }
        let text = if args.json {
            let json = output::game_json(&game, &evals, &judgements);
            let mut line = serde_json::to_string(&json).map_err(|e| e.to_string())?;
            line.push('\n');
            line
        } else {
            output::annotate(&mut game, &evals, &judgements);
            write::game_pgn(&game)
        };
        progress
            .meter
            .suspend(|| out.write_all(text.as_bytes()).and_then(|()| out.flush()))
            .map_err(|e| format!("{out_name}: {e}"))?;
    }
    progress.finish();
    if let Some(r) = report {
        r.finish()?;
    }
    Ok(Finish::Done)
}

/// Whether two paths name the same existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The evaluations of every position of the main line, the start's first,
/// searched from the last back; `None` if `stop` said so.
pub fn analyse_game(
    analyser: &mut Analyser,
    game: &Game,
    progress: &mut Progress,
    stop: impl Fn() -> bool,
) -> Option<Vec<Eval>> {
    analyser.new_game();
    let positions = game.positions();
    let keys: Vec<u64> = positions.iter().map(|p| p.key()).collect();
    let plies = positions.len() - 1;
    let mut evals = vec![None; positions.len()];
    for i in (0..positions.len()).rev() {
        progress.show(game.number, i, plies);
        let e = analyser.evaluate(&positions[i], &keys[..i], || {
            progress.show(game.number, i, plies);
            stop()
        })?;
        evals[i] = Some(e);
        progress.step();
    }
    evals.into_iter().collect()
}

/// Where the run stands, on stderr: a bar on a terminal, a plain line a
/// second otherwise (game, ply, time left).
pub struct Progress {
    meter: Meter,
    start: Instant,
    last: Option<Instant>,
    games: usize,
    positions: usize,
    done: usize,
    budget: Budget,
}

impl Progress {
    pub fn new(games: usize, positions: usize, budget: Budget) -> Progress {
        Progress {
            meter: Meter::new(positions as u64, templates::ANNOTATE),
            start: Instant::now(),
            last: None,
            games,
            positions,
            done: 0,
            budget,
        }
    }

    /// Seconds left, if they can be told.
    fn left(&self) -> Option<f64> {
        let left = self.positions.saturating_sub(self.done) as f64;
        match self.budget {
            Budget::MoveTime(ms) => Some(left * ms as f64 / 1000.0),
            _ if self.done > 0 => {
                Some(self.start.elapsed().as_secs_f64() / self.done as f64 * left)
            }
            _ => None,
        }
    }

    /// Says that the position `ply` of game `game` is being searched, at
    /// most once a second.
    fn show(&mut self, game: usize, ply: usize, plies: usize) {
        let now = Instant::now();
        if self
            .last
            .is_some_and(|t| now.saturating_duration_since(t) < Duration::from_secs(1))
        {
            return;
        }
        self.last = Some(now);
        let left = match self.left() {
            Some(s) if s >= 60.0 => format!("about {} min {} s left", s as u64 / 60, s as u64 % 60),
            Some(s) => format!("about {} s left", s.round() as u64),
            None => "time left not known yet".to_string(),
        };
        let text = format!(
            "game {game} of {}, ply {ply} of {plies}, {left}",
            self.games
        );
        if self.meter.is_bar() {
            self.meter.set_message(text);
        } else {
            self.meter.line(&text);
        }
    }

    /// A position searched.
    fn step(&mut self) {
        self.done += 1;
        self.meter.set_position(self.done as u64);
    }

    fn finish(&self) {
        self.meter.finish();
    }
}
