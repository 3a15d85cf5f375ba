//! The whole command line, defined once with clap's derive: every
//! subcommand, its options and their help. `forsyth --help` and
//! `forsyth SUBCOMMAND --help` are generated from it, and clap reports a
//! bad invocation (exit status 2) before any command runs.
//!
//! A new subcommand is a variant of [`Command`] with its own `...Args`
//! struct here, and a line in `main.rs` that hands the parsed struct to the
//! module that does the work. What clap cannot check (a FEN, a move, a file)
//! stays with that module, which answers `Err(reason)`.

use crate::engine::search::Budget;
use crate::engine::search::bench;
use crate::tools::datagen;
use crate::tools::datagen::game::Adjudication;
use crate::tools::train;
use clap::builder::RangedU64ValueParser;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "forsyth",
    display_name = "Forsyth",
    version,
    about = "Forsyth, a UCI chess engine.",
    after_help = "\
Without a command, Forsyth speaks UCI on stdin and stdout (what GUIs run).
`forsyth COMMAND --help` describes each command."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Search the bench positions; the last line is `<nodes> nodes <nps> nps`
    Bench(BenchArgs),
    /// Count the leaf nodes N plies deep (from the start position if no FEN)
    Perft(PerftArgs),
    /// Check every position of perft suites (EPD with `;D<n> <count>`)
    PerftSuite(PerftSuiteArgs),
    /// Self-play training data; `datagen text FILE.bin` prints a record file
    Datagen(DatagenArgs),
    /// Train the evaluation network on datagen positions and write its file
    Train(TrainArgs),
    /// Opening books: build one from PGN games, or list a position's moves
    Book(BookArgs),
    /// Search one position: best move, score, WDL, PV in UCI and SAN
    #[command(visible_alias = "analyze")]
    Analyse(AnalyseArgs),
    /// Run an EPD test suite (bm/am/dm), or print a search as EPD (--write)
    Epd(EpdArgs),
    /// Analyse the games of a PGN file: evaluations, marks, better lines
    Annotate(AnnotateArgs),
    /// Validate a FEN, or draw its board
    Fen(FenArgs),
    /// Print the version (as --version does)
    #[command(hide = true)]
    Version,
    /// Print the table of search constants as JSON, for tests/tools/spsa.py
    /// (tuning builds only)
    #[cfg(feature = "tune")]
    SpsaParams,
}

/// A count that must be at least 1.
fn positive<T: TryFrom<u64> + Clone + Send + Sync + 'static>() -> RangedU64ValueParser<T> {
    RangedU64ValueParser::new().range(1..)
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Search depth
    #[arg(default_value_t = bench::DEFAULT_DEPTH)]
    pub depth: u32,
}

#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Plies to go
    #[arg(value_name = "N")]
    pub depth: u32,
    /// The position, as one word or several (default: the start position)
    #[arg(value_name = "FEN")]
    pub fen: Vec<String>,
}

#[derive(Args, Debug)]
#[command(after_help = "\
A FAIL line for each wrong count or unreadable record, then the summary
`<passed> positions passed, <failed> failed`. Exit status 2 if any failed, or
if a file cannot be read.")]
pub struct PerftSuiteArgs {
    /// EPD files whose records carry `;D<depth> <count>`
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<String>,
}

/// `--depth`, `--movetime` or `--nodes`: at most one.
#[derive(Args, Debug, Default)]
#[group(multiple = false)]
pub struct LimitArgs {
    /// Search to this depth
    #[arg(long, value_name = "N", value_parser = positive::<u32>())]
    pub depth: Option<u32>,
    /// Search this many milliseconds
    #[arg(long, value_name = "MS", value_parser = positive::<u64>())]
    pub movetime: Option<u64>,
    /// Search this many nodes
    #[arg(long, value_name = "N", value_parser = positive::<u64>())]
    pub nodes: Option<u64>,
}

impl LimitArgs {
    /// The limit given, if any.
    pub fn budget(&self) -> Option<Budget> {
        self.depth
            .map(Budget::Depth)
            .or(self.movetime.map(Budget::MoveTime))
            .or(self.nodes.map(Budget::Nodes))
    }
}

/// The options of every searching command.
#[derive(Args, Debug)]
pub struct SearchArgs {
    #[command(flatten)]
    pub limit: LimitArgs,
    /// Search threads
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = positive::<usize>())]
    pub threads: usize,
    /// Transposition table size in MB
    #[arg(long, value_name = "MB", default_value_t = 16, value_parser = positive::<usize>())]
    pub hash: usize,
}

#[derive(Args, Debug)]
#[command(after_help = "\
Without a limit: depth 14, which gives the same answer on every run with one
thread. Exit status 2, with the reason on stderr, for a bad FEN, move or option.")]
pub struct AnalyseArgs {
    /// The position, one word or several (default: the start position)
    #[arg(long, value_name = "FEN", num_args = 1..)]
    pub fen: Vec<String>,
    /// Moves played from it first, in UCI or SAN
    #[arg(long, value_name = "MOVE", num_args = 0..)]
    pub moves: Vec<String>,
    #[command(flatten)]
    pub search: SearchArgs,
    /// Number of best lines to report
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = positive::<usize>())]
    pub multipv: usize,
    /// Print one JSON object instead of text (schema in docs/command-line.md)
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
#[command(after_help = "\
Results go to stdout, one line per position and a summary; progress to stderr.
Ctrl-C stops the suite and prints the summary so far (exit status 130).
Without a limit: 1000 ms a position, or depth 14 with --write.")]
pub struct EpdArgs {
    /// The suite to run
    #[arg(value_name = "FILE", required_unless_present = "write")]
    pub file: Option<String>,
    /// Also write the results as JSON to OUT
    #[arg(long, value_name = "OUT", conflicts_with = "write")]
    pub json: Option<String>,
    /// Search one position and print it as EPD (bm, ce, acd, pv...)
    #[arg(long, conflicts_with = "file")]
    pub write: bool,
    /// The position for --write (default: the start position)
    #[arg(long, value_name = "FEN", num_args = 1.., requires = "write")]
    pub fen: Vec<String>,
    #[command(flatten)]
    pub search: SearchArgs,
}

#[derive(Args, Debug)]
#[command(after_help = "\
Writes every game again with `{ [%eval 0.34] }` after each move (pawns, White's
view), `?!` `?` `??` (NAGs $6 $2 $4) on moves that lose 0.10, 0.20 or 0.30 of
the mover's expected score (win + draw/2), the engine's better line as a
variation of a marked move, `[Annotator]`, and a summary comment at the end.
A bad game is reported on stderr and left out (--strict: exit status 2, nothing
written). Progress on stderr. Ctrl-C keeps the games finished (exit status 130).
Without a limit: depth 14 a position.

--html FILE writes one self-contained page (no network needed) for all the
games instead of the PGN; with --out as well, the PGN goes there too, from the
same analysis. The page is written whole at the end, or not at all.")]
pub struct AnnotateArgs {
    /// The games to annotate
    #[arg(value_name = "FILE.pgn")]
    pub file: PathBuf,
    #[command(flatten)]
    pub search: SearchArgs,
    /// Lines searched at each position: up to K better lines for a marked move
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = positive::<usize>())]
    pub multipv: usize,
    /// Write to FILE instead of stdout
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// One JSON object a line, one a game, instead of PGN (schema in docs/command-line.md)
    #[arg(long)]
    pub json: bool,
    /// Fail if a game is malformed (exit status 2, nothing written)
    #[arg(long)]
    pub strict: bool,
    /// Write a web page to FILE instead: graph, marked moves, diagrams
    #[arg(long, value_name = "FILE", conflicts_with = "json")]
    pub html: Option<PathBuf>,
}

#[derive(Args, Debug)]
#[command(subcommand_required = true, arg_required_else_help = true)]
pub struct FenArgs {
    #[command(subcommand)]
    pub action: FenAction,
}

#[derive(Subcommand, Debug)]
pub enum FenAction {
    /// Validate a FEN and print it normalised (dropped parts are warnings)
    Check {
        /// The FEN, as one word or several
        #[arg(value_name = "FEN", required = true)]
        fen: Vec<String>,
    },
    /// Draw the board, with the side to move, castling, en passant and counters
    Show {
        /// The FEN, as one word or several
        #[arg(value_name = "FEN", required = true)]
        fen: Vec<String>,
        /// FEN letters instead of Unicode pieces
        #[arg(long)]
        ascii: bool,
    },
    /// Draw the board as an SVG picture
    #[command(
        long_flag = "svg",
        after_help = "\
Self-contained SVG: coordinates, our own piece shapes, no fonts or images
from elsewhere. Each piece is <g class=\"piece wK\" data-square=\"e1\">.
A bad FEN, square or file: the reason on stderr, exit status 2, no file."
    )]
    Svg(FenSvgArgs),
}

#[derive(Args, Debug)]
pub struct FenSvgArgs {
    /// The FEN, as one word or several
    #[arg(value_name = "FEN", required = true)]
    pub fen: Vec<String>,
    /// Write to FILE instead of stdout
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Draw the board from Black's side
    #[arg(long)]
    pub flip: bool,
    /// An arrow between two squares, e.g. e2e4 (give --arrow again for more)
    #[arg(long, value_name = "FROMTO", action = clap::ArgAction::Append)]
    pub arrow: Vec<String>,
    /// Tint the two squares of the last move, e.g. e2e4
    #[arg(long, value_name = "FROMTO")]
    pub last: Option<String>,
    /// Width and height in pixels (default 384)
    #[arg(long, value_name = "PX", value_parser = positive::<u32>())]
    pub size: Option<u32>,
}

#[derive(Args, Debug)]
#[command(subcommand_required = true, arg_required_else_help = true)]
pub struct BookArgs {
    #[command(subcommand)]
    pub action: BookAction,
}

#[derive(Subcommand, Debug)]
pub enum BookAction {
    /// Write a Polyglot book from PGN games
    #[command(after_help = "\
A move's weight adds up over the games that play it: 2 for a win, 1 for a draw
or an unknown result (*), 0 for a loss. A game with an illegal move or a bad
FEN is reported on stderr and skipped (with --strict, nothing is written).")]
    Build(BookBuildArgs),
    /// List the book moves of a position: UCI, SAN, weight, percentage
    Probe(BookProbeArgs),
}

#[derive(Args, Debug)]
#[command(args_override_self = true)]
pub struct BookBuildArgs {
    /// The PGN files to read
    #[arg(long = "pgn", value_name = "FILE", num_args = 1.., required = true, action = clap::ArgAction::Append)]
    pub pgns: Vec<String>,
    /// The book to write
    #[arg(long, value_name = "FILE.bin")]
    pub out: String,
    /// Use the moves of the first N plies of each game
    #[arg(long, value_name = "N", default_value_t = crate::tools::book_build::BuildOptions::default().max_ply)]
    pub max_ply: u32,
    /// Keep a move only if at least N games play it
    #[arg(long, value_name = "N", default_value_t = crate::tools::book_build::BuildOptions::default().min_games)]
    pub min_games: u32,
    /// Fail, writing nothing, if a game is bad
    #[arg(long)]
    pub strict: bool,
}

#[derive(Args, Debug)]
pub struct BookProbeArgs {
    /// A Polyglot book file (default: the book built into the binary)
    #[arg(long, value_name = "FILE.bin")]
    pub book: Option<String>,
    /// The position, as one word or several (default: the start position)
    #[arg(value_name = "FEN")]
    pub fen: Vec<String>,
}

#[derive(Args, Debug)]
// As before clap, an option given again replaces its value (scripts append
// their own --seed or --games to a base command line).
#[command(
    args_override_self = true,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    after_help = "\
Writes PATH.bin (and PATH.txt with --text), and in PATH.progress what is
completely written: a killed run loses at most the games in progress, and
running it again with the same --out carries on up to --games."
)]
pub struct DatagenArgs {
    #[command(subcommand)]
    pub action: Option<DatagenAction>,
    /// Output path without extension (.bin, .txt, .progress are added)
    #[arg(long, value_name = "PATH", required = true)]
    pub out: Option<PathBuf>,
    /// Games the output should hold in the end
    #[arg(long, value_name = "N", default_value_t = datagen::Options::DEFAULT_GAMES, value_parser = positive::<u64>())]
    pub games: u64,
    /// Nodes searched per move at most (the hard limit: it cuts the search
    /// off)
    #[arg(long, value_name = "N", default_value_t = datagen::Options::DEFAULT_NODES, value_parser = positive::<u64>())]
    pub nodes: u64,
    /// The soft node limit: no iteration starts once N nodes are searched,
    /// and the one that passed N is finished (up to --nodes); 0 for none
    /// [default: half of --nodes]
    #[arg(long, value_name = "N")]
    pub soft_nodes: Option<u64>,
    /// Games played at once
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = positive::<usize>())]
    pub threads: usize,
    /// Transposition table per thread, MB
    #[arg(long, value_name = "MB", default_value_t = datagen::Options::DEFAULT_HASH_MB, value_parser = positive::<usize>())]
    pub hash: usize,
    /// Start positions, one FEN or EPD a line (default: the usual one)
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// Random moves at the start of each game
    #[arg(long, value_name = "N", default_value_t = datagen::Options::DEFAULT_RANDOM_PLIES)]
    pub random_plies: u32,
    /// Seed of the run (default: from the clock, and printed)
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Also write PATH.txt, one `FEN | score | result` line a position
    /// (games: `FEN | score | result | move` a ply)
    #[arg(long)]
    pub text: bool,
    /// Play and score with this network (default: the one built in)
    #[arg(long, value_name = "FILE.nnue")]
    pub eval_file: Option<PathBuf>,
    /// What PATH.bin holds: whole games (viriformat, every ply) for `train`
    /// to filter, or the older 32-byte records of the quiet positions
    #[arg(long, value_name = "games|records", default_value = "games", value_parser = output_format)]
    pub format: datagen::OutputFormat,
    /// A win once the same side's score is at least CP (mates included)...
    #[arg(long, value_name = "CP", default_value_t = Adjudication::default().win_score, value_parser = RangedU64ValueParser::<i32>::new().range(1..=32_000))]
    pub win_score: i32,
    /// ...for N searched plies in a row (0: no win adjudication)
    #[arg(long, value_name = "N", default_value_t = Adjudication::default().win_plies)]
    pub win_plies: u32,
    /// A draw once, from searched ply PLY on...
    #[arg(long, value_name = "PLY", default_value_t = Adjudication::default().draw_after)]
    pub draw_after: u32,
    /// ...the score has stayed within ±CP...
    #[arg(long, value_name = "CP", default_value_t = Adjudication::default().draw_score, value_parser = RangedU64ValueParser::<i32>::new().range(..=30_000))]
    pub draw_score: i32,
    /// ...for N searched plies in a row (0: no draw adjudication)
    #[arg(long, value_name = "N", default_value_t = Adjudication::default().draw_plies)]
    pub draw_plies: u32,
    /// A draw after N searched plies, whatever the score
    #[arg(long, value_name = "N", default_value_t = Adjudication::default().max_plies, value_parser = positive::<u32>())]
    pub max_plies: u32,
    /// Syzygy tables (folders, separated as in PATH): a game ends with the
    /// tables' result as soon as a move reaches a position in them
    #[arg(long, value_name = "PATH")]
    pub syzygy: Option<String>,
}

fn output_format(text: &str) -> Result<datagen::OutputFormat, String> {
    match text {
        "records" => Ok(datagen::OutputFormat::Records),
        "games" => Ok(datagen::OutputFormat::Games),
        _ => Err(format!("'{text}' is not 'records' or 'games'")),
    }
}

#[derive(Subcommand, Debug)]
pub enum DatagenAction {
    /// Print a record file as `FEN | score | result` lines, a game file as
    /// `FEN | score | result | move` lines (score `-` for random plies)
    Text {
        /// A record or game file written by `forsyth datagen`
        #[arg(value_name = "FILE.bin")]
        file: PathBuf,
    },
    /// Turn a game file (plain or .xz) into a 32-byte record file of the
    /// positions a record run keeps: searched, not in check, best move
    /// neither capture nor promotion, no mate score. Records cannot be
    /// turned back into games: they lack the plies datagen skipped.
    Convert {
        /// A game file written by `forsyth datagen --format games`
        #[arg(value_name = "GAMES")]
        games: PathBuf,
        /// The record file to write (must not exist)
        #[arg(value_name = "RECORDS")]
        records: PathBuf,
    },
}

impl DatagenArgs {
    /// The options of a generating run (`None` for `datagen text`).
    pub fn options(&self) -> Option<datagen::Options> {
        Some(datagen::Options {
            out: self.out.clone()?,
            games: self.games,
            nodes: self.nodes,
            soft_nodes: match self.soft_nodes {
                Some(0) => None,
                Some(n) => Some(n),
                None => Some((self.nodes * datagen::Options::DEFAULT_SOFT_NODES_PCT / 100).max(1)),
            },
            threads: self.threads,
            hash_mb: self.hash,
            openings: self.openings.clone(),
            random_plies: self.random_plies,
            seed: self.seed.unwrap_or_else(datagen::clock_seed),
            text: self.text,
            eval_file: self.eval_file.clone(),
            format: self.format,
            adjudication: Adjudication {
                win_score: self.win_score,
                win_plies: self.win_plies,
                draw_after: self.draw_after,
                draw_score: self.draw_score,
                draw_plies: self.draw_plies,
                max_plies: self.max_plies,
            },
            syzygy: self.syzygy.clone(),
        })
    }
}

#[derive(Args, Debug)]
#[command(after_help = "\
Reads the datagen files whole: game files (every ply; `datagen` writes them)
and the older 32-byte record files, either plain or xz-compressed (a name
ending in .xz). From game files it drops the opening's random plies, then as
the --skip options say the positions in check, those whose best move is a
capture or promotion, and mate scores (record files were filtered so when
written; only --skip-mates applies to them), and from both the positions
before --min-ply, and reports how many each filter dropped. A game file that
ends inside a game loses that game with a warning; another bad game stops
the run, or with --skip-bad is dropped with a warning. It holds one game in
--validation-every out, and trains with AdamW on --threads
threads, the learning rate falling from --lr to --lr-end (cosine). After
each epoch it writes NET.nnue (the file EvalFile loads) and NET.nnue.ckpt;
run the same command again to go on from the checkpoint. The result depends
only on the data, the options and the thread count.")]
pub struct TrainArgs {
    /// A datagen game or record file, plain or .xz (give --data again for more)
    #[arg(long, value_name = "FILE", required = true, action = clap::ArgAction::Append)]
    pub data: Vec<PathBuf>,
    /// The network file to write
    #[arg(long, value_name = "NET.nnue")]
    pub out: PathBuf,
    /// Neurons per perspective (the engine reads only its own size)
    #[arg(long, value_name = "N", default_value_t = crate::engine::nnue::HIDDEN)]
    pub hidden: usize,
    /// Output buckets, chosen by the number of pieces (1: none)
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub buckets: usize,
    /// Mirror each side's inputs (files a-h turned round) when its king stands on files e-h
    #[arg(long, value_name = "on|off", default_value = "off", value_parser = on_off, action = clap::ArgAction::Set)]
    pub king_mirror: bool,
    /// Passes over the training positions
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = positive::<u64>())]
    pub epochs: u64,
    /// Positions per optimiser step
    #[arg(long, value_name = "N", default_value_t = 16384, value_parser = positive::<usize>())]
    pub batch: usize,
    /// Learning rate at the start
    #[arg(long, value_name = "F", default_value_t = 0.001)]
    pub lr: f32,
    /// Learning rate at the end
    #[arg(long, value_name = "F", default_value_t = 0.00001)]
    pub lr_end: f32,
    /// AdamW weight decay
    #[arg(long, value_name = "F", default_value_t = 0.01)]
    pub weight_decay: f32,
    /// Weight of the search score in the target (1 - it: the game's result)
    #[arg(long, value_name = "F", default_value_t = 0.75)]
    pub lambda: f32,
    /// Centipawns per sigmoid unit (default: fitted to the data)
    #[arg(long, value_name = "CP")]
    pub scale: Option<f32>,
    /// Drop positions before this ply
    #[arg(long, value_name = "N", default_value_t = 16)]
    pub min_ply: u32,
    /// One game in N held out for validation (0: none)
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub validation_every: u64,
    /// Read at most N records (0: all)
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub max_positions: u64,
    /// Training threads
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = positive::<usize>())]
    pub threads: usize,
    /// Seed of the initial weights and the shuffles
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Also checkpoint every N batches
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = positive::<u64>())]
    pub save_every: u64,
    /// End this run after N batches with a checkpoint (0: run to the end)
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub stop_after: u64,
    /// Train half the positions of each epoch with files a-h turned round
    #[arg(long, value_name = "on|off", default_value = "on", value_parser = on_off, action = clap::ArgAction::Set)]
    pub mirror: bool,
    /// Drop positions in check (game files)
    #[arg(long, value_name = "on|off", default_value = "on", value_parser = on_off, action = clap::ArgAction::Set)]
    pub skip_check: bool,
    /// Drop positions whose best move captures or promotes (game files)
    #[arg(long, value_name = "on|off", default_value = "on", value_parser = on_off, action = clap::ArgAction::Set)]
    pub skip_tactical: bool,
    /// Drop positions with a mate score
    #[arg(long, value_name = "on|off", default_value = "on", value_parser = on_off, action = clap::ArgAction::Set)]
    pub skip_mates: bool,
    /// Drop a game file's bad games with a warning instead of stopping
    #[arg(long)]
    pub skip_bad: bool,
}

fn on_off(text: &str) -> Result<bool, String> {
    match text {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("'{text}' is not 'on' or 'off'")),
    }
}

impl TrainArgs {
    pub fn options(&self) -> train::Options {
        train::Options {
            data: self.data.clone(),
            out: self.out.clone(),
            hidden: self.hidden,
            buckets: self.buckets,
            king_mirror: self.king_mirror,
            epochs: self.epochs,
            batch: self.batch,
            lr: self.lr,
            lr_end: self.lr_end,
            weight_decay: self.weight_decay,
            lambda: self.lambda,
            scale: self.scale,
            min_ply: self.min_ply,
            validation_every: self.validation_every,
            max_positions: self.max_positions,
            threads: self.threads,
            seed: self.seed,
            save_every: self.save_every,
            stop_after: self.stop_after,
            mirror: self.mirror,
            filters: train::data::Filters {
                skip_check: self.skip_check,
                skip_tactical: self.skip_tactical,
                skip_mates: self.skip_mates,
            },
            skip_bad: self.skip_bad,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;
    use clap::error::ErrorKind;

    fn parse(line: &str) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("forsyth").chain(line.split_whitespace()))
    }

    fn command(line: &str) -> Command {
        match parse(line) {
            Ok(Cli {
                command: Some(c), ..
            }) => c,
            other => panic!("{line}: {other:?}"),
        }
    }

    fn error(line: &str) -> ErrorKind {
        match parse(line) {
            Err(e) => e.kind(),
            Ok(cli) => panic!("{line}: parsed as {cli:?}"),
        }
    }

    #[test]
    fn the_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn no_arguments_is_uci_mode() {
        assert!(parse("").unwrap().command.is_none());
    }

    #[test]
    fn options_take_their_words() {
        let Command::Analyse(a) = command("analyse --fen 8/8 w - - --json --depth 7 --moves e4 e5")
        else {
            panic!()
        };
        assert_eq!(a.fen, ["8/8", "w", "-", "-"]);
        assert_eq!(a.moves, ["e4", "e5"]);
        assert!(a.json);
        assert_eq!(a.search.limit.budget(), Some(Budget::Depth(7)));
        assert_eq!((a.search.threads, a.search.hash, a.multipv), (1, 16, 1));
        // The old spelling, and an empty list of moves.
        assert!(matches!(command("analyze --moves"), Command::Analyse(_)));
        let Command::Epd(e) = command("epd --write --fen 8/8 b - - --nodes 5") else {
            panic!()
        };
        assert!(e.write && e.file.is_none());
        assert_eq!(e.search.limit.budget(), Some(Budget::Nodes(5)));
        let Command::Perft(p) = command("perft 3 4k3/8/8/8/8/8/8/4K3 w - - 0 1") else {
            panic!()
        };
        assert_eq!((p.depth, p.fen.len()), (3, 6));
        let Command::Book(BookArgs {
            action: BookAction::Build(b),
        }) = command("book build --pgn a.pgn b.pgn --out x.bin --pgn c.pgn --strict")
        else {
            panic!()
        };
        assert_eq!(b.pgns, ["a.pgn", "b.pgn", "c.pgn"]);
        assert_eq!((b.max_ply, b.min_games, b.strict), (20, 1, true));
        assert!(matches!(
            command("fen show --ascii 8/8/8/8/8/8/8/K6k w - -"),
            Command::Fen(FenArgs {
                action: FenAction::Show { ascii: true, .. }
            })
        ));
        // `fen svg` and the spelling, `fen --svg`.
        for line in [
            "fen svg 8/8 w - - --flip --arrow e2e4 --last d2d4 --arrow a1a2",
            "fen --svg 8/8 w - - --flip --arrow e2e4 --last d2d4 --arrow a1a2",
        ] {
            let Command::Fen(FenArgs {
                action: FenAction::Svg(s),
            }) = command(line)
            else {
                panic!("{line}")
            };
            assert_eq!(s.fen, ["8/8", "w", "-", "-"]);
            assert_eq!(s.arrow, ["e2e4", "a1a2"]);
            assert_eq!(
                (s.flip, s.last.as_deref(), s.out.is_none()),
                (true, Some("d2d4"), true)
            );
        }
        let Command::Annotate(a) = command("annotate g.pgn --html r.html --out o.pgn") else {
            panic!()
        };
        assert_eq!(a.html, Some(PathBuf::from("r.html")));
        assert_eq!(
            error("annotate g.pgn --html r.html --json"),
            ErrorKind::ArgumentConflict
        );
        let Command::Annotate(a) =
            command("annotate g.pgn --movetime 200 --multipv 3 --out o.pgn --strict --hash 64")
        else {
            panic!()
        };
        assert_eq!(a.file, PathBuf::from("g.pgn"));
        assert_eq!(a.search.limit.budget(), Some(Budget::MoveTime(200)));
        assert_eq!((a.multipv, a.search.hash, a.search.threads), (3, 64, 1));
        assert_eq!(a.out, Some(PathBuf::from("o.pgn")));
        assert!(a.strict && !a.json);
        assert!(matches!(command("version"), Command::Version));
        let Command::Bench(b) = command("bench") else {
            panic!()
        };
        assert_eq!(b.depth, bench::DEFAULT_DEPTH);
    }

    #[test]
    fn bad_invocations_are_clap_errors() {
        assert_eq!(error("--frobnicate"), ErrorKind::UnknownArgument);
        assert_eq!(error("frobnicate"), ErrorKind::InvalidSubcommand);
        assert_eq!(error("analyse --deep 3"), ErrorKind::UnknownArgument);
        assert_eq!(error("analyse --depth"), ErrorKind::InvalidValue);
        assert_eq!(error("analyse --depth x"), ErrorKind::ValueValidation);
        assert_eq!(error("analyse --nodes 0"), ErrorKind::ValueValidation);
        assert_eq!(error("analyse --json --json"), ErrorKind::ArgumentConflict);
        assert_eq!(
            error("analyse --depth 3 --movetime 9"),
            ErrorKind::ArgumentConflict
        );
        assert_eq!(error("analyse stray"), ErrorKind::UnknownArgument);
        assert_eq!(error("epd"), ErrorKind::MissingRequiredArgument);
        assert_eq!(error("epd a.epd --write"), ErrorKind::ArgumentConflict);
        assert_eq!(
            error("book"),
            ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
        );
        assert_eq!(error("fen check"), ErrorKind::MissingRequiredArgument);
        assert_eq!(error("fen draw 8/8"), ErrorKind::InvalidSubcommand);
        assert_eq!(error("perft"), ErrorKind::MissingRequiredArgument);
        assert_eq!(error("annotate"), ErrorKind::MissingRequiredArgument);
        assert_eq!(
            error("annotate g.pgn --depth 3 --nodes 9"),
            ErrorKind::ArgumentConflict
        );
        assert_eq!(
            error("annotate g.pgn --multipv 0"),
            ErrorKind::ValueValidation
        );
        assert_eq!(error("perft-suite"), ErrorKind::MissingRequiredArgument);
        assert_eq!(
            error("datagen --games 3"),
            ErrorKind::MissingRequiredArgument
        );
        assert_eq!(error("datagen text"), ErrorKind::MissingRequiredArgument);
    }

    #[test]
    fn datagen_options_with_defaults_and_errors() {
        let Command::Datagen(d) = command("datagen --out d --seed 5") else {
            panic!()
        };
        let o = d.options().unwrap();
        assert_eq!(o.out, PathBuf::from("d"));
        assert_eq!((o.games, o.nodes, o.threads, o.hash_mb), (100, 5000, 1, 8));
        assert_eq!((o.random_plies, o.seed, o.text), (8, 5, false));
        assert_eq!(o.soft_nodes, Some(2500));
        assert_eq!(o.adjudication, Adjudication::default());
        assert_eq!(o.syzygy, None);
        let Command::Datagen(d) = command(
            "datagen --text --out x --games 3 --nodes 700 --threads 2 --hash 4 \
             --random-plies 0 --openings b.epd --seed 9",
        ) else {
            panic!()
        };
        let o = d.options().unwrap();
        assert_eq!((o.games, o.nodes, o.threads, o.hash_mb), (3, 700, 2, 4));
        assert_eq!(o.openings, Some(PathBuf::from("b.epd")));
        assert!(o.text && o.random_plies == 0 && o.seed == 9);
        assert_eq!(o.soft_nodes, Some(350));
        let Command::Datagen(d) = command(
            "datagen --out x --nodes 9000 --soft-nodes 4000 --win-score 1500 --win-plies 6 \
             --draw-after 60 --draw-score 5 --draw-plies 0 --max-plies 300 --syzygy tb",
        ) else {
            panic!()
        };
        let o = d.options().unwrap();
        assert_eq!((o.nodes, o.soft_nodes), (9000, Some(4000)));
        assert_eq!(
            o.adjudication,
            Adjudication {
                win_score: 1500,
                win_plies: 6,
                draw_after: 60,
                draw_score: 5,
                draw_plies: 0,
                max_plies: 300,
            }
        );
        assert_eq!(o.syzygy.as_deref(), Some("tb"));
        let Command::Datagen(d) = command("datagen --out x --soft-nodes 0") else {
            panic!()
        };
        assert_eq!(d.options().unwrap().soft_nodes, None);
        // Given again, an option's last value counts.
        let Command::Datagen(d) = command("datagen --out d --seed 7 --games 2 --seed 8") else {
            panic!()
        };
        assert_eq!(d.options().map(|o| (o.seed, o.games)), Some((8, 2)));
        let Command::Datagen(d) = command("datagen text x.bin") else {
            panic!()
        };
        assert!(matches!(d.action, Some(DatagenAction::Text { .. })));
        assert!(d.options().is_none());
        for bad in [
            "datagen --out",
            "datagen --out d --games 0",
            "datagen --out d --nodes -5",
            "datagen --out d --threads x",
            "datagen --out d --frobnicate 1",
            "datagen --out d --win-score 0",
            "datagen --out d --draw-score -1",
            "datagen --out d --max-plies 0",
            "datagen --out d text x.bin",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
