//! Games from PGN text, read with the `pgn-reader` crate and checked move
//! by move by our rules: tags, the start position (the `FEN` tag, else the
//! usual one), the moves with their comments, NAGs and variations (nested
//! to any depth), and the result. One reader for both of its users, in two
//! ways of reading:
//!
//! - [`read_games`], for `forsyth annotate`: a file of whole games, each
//!   as the crate reads it. The tag lines are also checked on the raw text
//!   (pgn-reader passes over a tag line it cannot read, silently, and a
//!   game whose tags are lost should not come out looking whole), a
//!   `Variant` other than standard chess and Chess960 is refused, and a
//!   move after the result is an error.
//! - [`games`], for the book builder, which needs only each game's main
//!   line ([`Game::moves`]) and result ([`Game::outcome`]): a stream, with
//!   two habits of real files that the crate reads as one game split into
//!   games, as the book's own sources need: lines of moves with no tags
//!   and no blank line between them, each ending with its result (the
//!   result ends a game), and a game of tags alone followed by the next
//!   game's tags (a tag the game already has begins the next game).
//!   Variations are passed over.
//!
//! The crate does the reading (tag pairs and their escapes, comments in
//! braces and after `;`, `%` escape lines, NAGs and `!?` suffixes, move
//! numbers as `1.`, `1...` or glued to the move). A game with an illegal
//! move or a bad FEN comes back as an error naming the game and the move,
//! and reading carries on with the next game. What the reader drops
//! unreported cannot be kept: comments after `;` to the end of the line,
//! `%` escape lines, and words in the movetext that are not moves (the
//! moves after such a word are then usually illegal, and reported).

use crate::engine::chess::san::SanError;
use crate::engine::chess::{Color, FenError, Move, Position};
use pgn_reader::{Nag, Outcome, RawComment, RawTag, Reader, SanPlus, Skip, Visitor};
use std::collections::VecDeque;
use std::fmt;
use std::io::{Cursor, Seek};
use std::ops::ControlFlow;

/// A sequence of moves: the main line of a game or a variation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Line {
    /// Comments before the first move.
    pub comments: Vec<String>,
    /// NAGs before the first move (a position's assessment, rarely seen).
    pub nags: Vec<u8>,
    pub nodes: Vec<Node>,
}

/// One move of a line, with what follows it in the text.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub mv: Move,
    /// The move in SAN, as we write it (not as the input spelled it).
    pub san: String,
    pub nags: Vec<u8>,
    pub comments: Vec<String>,
    /// Alternatives to this move, in the order given.
    pub variations: Vec<Line>,
}

/// How a game ended, as its result token (or `Result` tag) says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
    /// `*`, or no result at all.
    Unknown,
}

impl GameResult {
    /// A result token or a `Result` tag's value.
    fn parse(text: &str) -> Option<GameResult> {
        Some(match text {
            "1-0" => GameResult::WhiteWins,
            "0-1" => GameResult::BlackWins,
            "1/2-1/2" | "½-½" => GameResult::Draw,
            "*" => GameResult::Unknown,
            _ => return None,
        })
    }
}

/// One game read in full, every move legal.
#[derive(Clone, Debug)]
pub struct Game {
    /// 1 for the first game of the text.
    pub number: usize,
    /// The line of the text the game starts on (for games that [`games`]
    /// splits off one the crate reads as one, the line that one starts on).
    pub line: usize,
    pub tags: Vec<(String, String)>,
    /// The start position (from the `FEN` tag, else the usual one).
    pub start: Position,
    /// From a `Variant "Chess960"` tag, or castling rights that only
    /// Chess960 has: UCI writes castling as king-takes-rook then.
    pub chess960: bool,
    pub main: Line,
    /// Comments written after the main line and its variations, before the
    /// result (reading puts such comments on the last move; the analysis
    /// puts its summary here).
    pub end_comments: Vec<String>,
    /// The game termination marker of the movetext (`1-0`, `*`...).
    pub result: Option<String>,
}

impl Game {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets a tag, in place if the game has it, else at the end.
    pub fn set_tag(&mut self, name: &str, value: &str) {
        match self.tags.iter_mut().find(|(n, _)| n == name) {
            Some((_, v)) => *v = value.to_string(),
            None => self.tags.push((name.to_string(), value.to_string())),
        }
    }

    /// The termination marker to write: the movetext's, else the
    /// `Result` tag's, else `*`.
    pub fn result(&self) -> &str {
        self.result
            .as_deref()
            .or(self
                .tag("Result")
                .filter(|r| matches!(*r, "1-0" | "0-1" | "1/2-1/2" | "*")))
            .unwrap_or("*")
    }

    /// How the game ended: the movetext's result, else (when it gives
    /// none, or `*`) the `Result` tag's.
    pub fn outcome(&self) -> GameResult {
        match self.result.as_deref().and_then(GameResult::parse) {
            Some(GameResult::Unknown) | None => self
                .tag("Result")
                .and_then(GameResult::parse)
                .unwrap_or(GameResult::Unknown),
            Some(known) => known,
        }
    }

    /// The moves of the main line.
    pub fn moves(&self) -> impl Iterator<Item = Move> + '_ {
        self.main.nodes.iter().map(|n| n.mv)
    }

    /// The positions of the main line, from the start to after the last move.
    pub fn positions(&self) -> Vec<Position> {
        let mut pos = self.start.clone();
        let mut out = vec![pos.clone()];
        for n in &self.main.nodes {
            pos.play(n.mv);
            out.push(pos.clone());
        }
        out
    }
}
/// Why a game could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameError {
    /// A tag line that is not `[Name "value"]`, on line `line` of the file.
    BrokenTag {
        line: usize,
        why: &'static str,
        text: String,
    },
    BadFen {
        fen: String,
        error: FenError,
    },
    SetUpWithoutFen,
    UnknownVariant(String),
    /// A move that is not legal, or not SAN; `at` is its number (`12.`,
    /// `12...`).
    BadMove {
        at: String,
        /// The move as the text spells it.
        text: String,
        in_variation: bool,
        error: SanError,
    },
    MoveAfterResult,
    VariationWithoutMove,
    /// Neither a tag pair nor a move.
    NotAGame,
    /// What the reader could not get past (an unterminated comment...).
    Syntax(String),
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            GameError::BrokenTag { line, why, text } => {
                write!(f, "broken tag on line {line}: {why}: {text}")
            }
            GameError::BadFen { fen, error } => write!(f, "bad FEN tag '{fen}': {error}"),
            GameError::SetUpWithoutFen => f.write_str("SetUp \"1\" without a FEN tag"),
            GameError::UnknownVariant(v) => write!(
                f,
                "variant '{v}' is not supported (standard chess and Chess960 only)"
            ),
            GameError::BadMove {
                at,
                in_variation,
                error,
                ..
            } => {
                let place = if *in_variation {
                    ", in a variation"
                } else {
                    ""
                };
                write!(f, "move {at}{place}: {error}")
            }
            GameError::MoveAfterResult => {
                f.write_str("a move after the result (is a blank line missing between two games?)")
            }
            GameError::VariationWithoutMove => f.write_str("a variation with no move before it"),
            GameError::NotAGame => f.write_str("no tag pair and no move: not a game"),
            GameError::Syntax(what) => f.write_str(what),
        }
    }
}

/// A game that could not be read: its number, the line it starts on, why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadGame {
    pub number: usize,
    pub line: usize,
    pub error: GameError,
}

impl fmt::Display for BadGame {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "game {} (line {}): {}",
            self.number, self.line, self.error
        )
    }
}

/// Why [`games`] skipped a game: the same faults as [`GameError`], told
/// briefly, by the game's number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PgnError {
    /// The `FEN` tag is no valid position.
    BadFen {
        game: usize,
        fen: String,
        reason: String,
    },
    /// A move is illegal or not SAN; `at` is its number, as `12.` or
    /// `12...`.
    BadMove {
        game: usize,
        at: String,
        text: String,
        reason: String,
    },
    /// Text the reader gives up on (an unterminated tag or comment).
    Syntax { game: usize, what: String },
}

impl PgnError {
    fn of(game: usize, error: GameError) -> PgnError {
        match error {
            GameError::BadFen { fen, error } => PgnError::BadFen {
                game,
                fen,
                reason: error.to_string(),
            },
            GameError::BadMove {
                at, text, error, ..
            } => PgnError::BadMove {
                game,
                at,
                text,
                reason: error.to_string(),
            },
            GameError::Syntax(what) => PgnError::Syntax { game, what },
            // Not checked when reading a stream of games; told as they are.
            other => PgnError::Syntax {
                game,
                what: other.to_string(),
            },
        }
    }

    /// The number of the game in its text.
    pub fn game(&self) -> usize {
        match self {
            PgnError::BadFen { game, .. }
            | PgnError::BadMove { game, .. }
            | PgnError::Syntax { game, .. } => *game,
        }
    }
}

impl fmt::Display for PgnError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            PgnError::BadFen { game, fen, reason } => {
                write!(f, "game {game}: FEN '{fen}': {reason}")
            }
            PgnError::BadMove {
                game,
                at,
                text,
                reason,
            } => write!(f, "game {game}: move {at} '{text}': {reason}"),
            PgnError::Syntax { game, what } => write!(f, "game {game}: {what}"),
        }
    }
}

impl std::error::Error for PgnError {}

/// A file that holds no game at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotPgn {
    Empty,
    Binary,
    NoGame,
}

impl fmt::Display for NotPgn {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            NotPgn::Empty => "the file is empty",
            NotPgn::Binary => "not a PGN file (it holds binary data)",
            NotPgn::NoGame => "not a PGN file (no tag pair and no move in it)",
        })
    }
}

/// How the reader takes a text (the module's documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// One game for each game of the crate's, checked in full
    /// ([`read_games`]).
    Whole,
    /// A result or a repeated tag ends a game; variations passed over
    /// ([`games`]).
    Stream,
}

fn reader(bytes: &[u8]) -> Reader<Cursor<&[u8]>> {
    Reader::build(Cursor::new(bytes))
        .set_supported_tag_line_length(4096)
        .finish()
}

/// Counts the lines up to where each of the crate's games starts: from
/// the last start, not from the top each time.
struct Lines {
    counted: usize,
    line: usize,
}

impl Lines {
    fn new() -> Lines {
        Lines {
            counted: 0,
            line: 1,
        }
    }

    /// The line that byte `at` of `bytes` is on (`at` never goes back).
    fn at(&mut self, bytes: &[u8], at: usize) -> usize {
        let at = at.min(bytes.len());
        if at > self.counted {
            self.line += bytes[self.counted..at]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            self.counted = at;
        }
        self.line
    }
}

/// Every game of a file in order, the bad ones as `Err`. A file with
/// nothing that looks like a game is refused as a whole.
pub fn read_games(bytes: &[u8]) -> Result<Vec<Result<Game, BadGame>>, NotPgn> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(NotPgn::Empty);
    }
    if bytes.contains(&0) {
        return Err(NotPgn::Binary);
    }
    let mut reader = reader(bytes);
    let mut visitor = GameVisitor::new(Mode::Whole);
    let mut out = Vec::new();
    let mut anything = false;
    let mut lines = Lines::new();
    loop {
        let number = out.len() + 1;
        // Where the game starts: after the last one and the blank lines.
        let Ok(true) = reader.has_more() else {
            break;
        };
        let Ok(start) = reader.stream_position() else {
            break;
        };
        let start = (start as usize).min(bytes.len());
        let line = lines.at(bytes, start);
        let bad = |error: GameError| BadGame {
            number,
            line,
            error,
        };
        let tag_problem = check_tag_lines(&bytes[start..], line);
        let read = reader.read_game(&mut visitor);
        let game = match read {
            Ok(None) => break,
            Ok(Some(())) => match visitor.finished.pop_front() {
                None => break,
                Some(Ok(read)) if read.tags.is_empty() && read.main.nodes.is_empty() => {
                    Err(bad(GameError::NotAGame))
                }
                Some(Ok(read)) => {
                    anything = true;
                    match tag_problem {
                        Some(problem) => Err(bad(problem)),
                        None => Ok(read.game(number, line)),
                    }
                }
                Some(Err(error)) => {
                    anything = true;
                    Err(bad(tag_problem.unwrap_or(error)))
                }
            },
            Err(e) => {
                anything = true;
                Err(bad(
                    tag_problem.unwrap_or_else(|| GameError::Syntax(e.to_string()))
                ))
            }
        };
        let failed = game.is_err();
        out.push(game);
        // A reader error that did not move on would repeat for ever.
        if failed && reader.stream_position().is_ok_and(|p| p as usize <= start) {
            break;
        }
    }
    if !anything {
        return Err(NotPgn::NoGame);
    }
    Ok(out)
}

/// The games of a PGN text, in order, as a stream; bad games are `Err`
/// and do not stop the iteration.
pub fn games(text: &[u8]) -> Games<'_> {
    Games {
        text,
        reader: reader(text),
        visitor: GameVisitor::new(Mode::Stream),
        lines: Lines::new(),
        line: 1,
        number: 0,
        done: false,
    }
}

/// The iterator of [`games`].
pub struct Games<'a> {
    text: &'a [u8],
    reader: Reader<Cursor<&'a [u8]>>,
    visitor: GameVisitor,
    lines: Lines,
    /// The line the crate's game being read starts on.
    line: usize,
    /// The number of the last game given.
    number: usize,
    done: bool,
}

impl Games<'_> {
    /// How many bytes of the text have been read (for progress meters).
    pub fn bytes_read(&mut self) -> u64 {
        self.reader.stream_position().unwrap_or(0)
    }
}

impl Iterator for Games<'_> {
    type Item = Result<Game, PgnError>;

    fn next(&mut self) -> Option<Self::Item> {
        while self.visitor.finished.is_empty() && !self.done {
            let before = self.bytes_read();
            if let Ok(true) = self.reader.has_more() {
                let start = self.bytes_read() as usize;
                self.line = self.lines.at(self.text, start);
            }
            match self.reader.read_game(&mut self.visitor) {
                Ok(Some(())) => {}
                Ok(None) => self.done = true,
                Err(e) => {
                    // The games the text held before the fault are kept;
                    // the one it was in is lost.
                    self.visitor
                        .finished
                        .push_back(Err(GameError::Syntax(e.to_string())));
                    // The reader skips past what it could not read; should
                    // it ever not move on, stop rather than loop.
                    self.done = self.bytes_read() <= before;
                }
            }
        }
        let next = self.visitor.finished.pop_front()?;
        self.number += 1;
        Some(match next {
            Ok(read) => Ok(read.game(self.number, self.line)),
            Err(e) => Err(PgnError::of(self.number, e)),
        })
    }
}

/// The first broken tag line of the game that `text` starts with, as a
/// reason: the tag lines are those up to the first line that is neither a
/// tag pair, blank, nor a `%` escape line.
fn check_tag_lines(text: &[u8], first_line: usize) -> Option<GameError> {
    for (i, raw) in text.split(|&b| b == b'\n').enumerate() {
        let line = String::from_utf8_lossy(raw);
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('%') {
            continue;
        }
        if !trimmed.starts_with('[') {
            return None;
        }
        if let Err(why) = check_tag_line(trimmed) {
            return Some(GameError::BrokenTag {
                line: first_line + i,
                why,
                text: trimmed.chars().take(60).collect(),
            });
        }
    }
    None
}

/// `[Name "value"]`, possibly several on one line; a value may hold `\"`
/// and `\\`.
fn check_tag_line(line: &str) -> Result<(), &'static str> {
    let mut rest = line.trim();
    while !rest.is_empty() {
        rest = rest
            .strip_prefix('[')
            .ok_or("text after the tag pair")?
            .trim_start();
        let name_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || "_+#=:-".contains(c)))
            .unwrap_or(rest.len());
        if name_len == 0 || !rest.starts_with(|c: char| c.is_ascii_alphanumeric()) {
            return Err("a tag without a name");
        }
        rest = rest[name_len..]
            .trim_start()
            .strip_prefix('"')
            .ok_or("a tag without a quoted value")?;
        let mut chars = rest.char_indices();
        let mut end = None;
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    chars.next();
                }
                '"' => {
                    end = Some(i);
                    break;
                }
                _ => {}
            }
        }
        let end = end.ok_or("a tag value without its closing quote")?;
        rest = rest[end + 1..]
            .trim_start()
            .strip_prefix(']')
            .ok_or("a tag without its closing bracket")?
            .trim_start();
    }
    Ok(())
}

/// What the visitor reads of a game, before it has a number.
struct Read {
    tags: Vec<(String, String)>,
    start: Position,
    chess960: bool,
    main: Line,
    result: Option<String>,
}

impl Read {
    fn game(self, number: usize, line: usize) -> Game {
        Game {
            number,
            line,
            tags: self.tags,
            start: self.start,
            chess960: self.chess960,
            main: self.main,
            end_comments: Vec::new(),
            result: self.result,
        }
    }
}

/// A line being read, and where it stands.
struct Frame {
    line: Line,
    /// The position after the last move of the line.
    pos: Position,
    /// The position before it, where a variation of that move starts.
    before_last: Option<Position>,
}

struct Movetext {
    tags: Vec<(String, String)>,
    start: Position,
    chess960: bool,
    /// The main line first, then the variations open at this point.
    frames: Vec<Frame>,
    result: Option<String>,
    /// A comment longer than the reader's buffer, so far.
    partial: Vec<u8>,
    /// The first fault (a bad FEN, a bad move...); the rest of the game is
    /// not played.
    error: Option<GameError>,
    /// Whether anything of the game was read: tags, a move, a result.
    started: bool,
}

impl Movetext {
    fn top(&mut self) -> &mut Frame {
        let i = self.frames.len() - 1;
        &mut self.frames[i]
    }

    /// Closes the innermost variation: it becomes an alternative to the
    /// last move of the line it is in (an empty one is dropped).
    fn close_variation(&mut self) {
        if self.frames.len() < 2 {
            return;
        }
        let Some(done) = self.frames.pop() else {
            return;
        };
        let line = done.line;
        if line.nodes.is_empty() && line.comments.is_empty() && line.nags.is_empty() {
            return;
        }
        if let Some(node) = self.top().line.nodes.last_mut() {
            node.variations.push(line);
        }
    }

    /// The game as read: variations left open at its end end with it.
    fn finish(mut self) -> Result<Read, GameError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        while self.frames.len() > 1 {
            self.close_variation();
        }
        let main = self.frames.pop().map(|f| f.line).unwrap_or_default();
        Ok(Read {
            tags: self.tags,
            start: self.start,
            chess960: self.chess960,
            main,
            result: self.result,
        })
    }
}

/// `12.` or `12...`, as a move at this position is numbered.
fn move_number(pos: &Position) -> String {
    let dots = if pos.side_to_move() == Color::White {
        "."
    } else {
        "..."
    };
    format!("{}{dots}", pos.fullmove_number())
}

/// Whether castling rights name a king or rook off the usual squares.
fn castles_as_chess960(pos: &Position) -> bool {
    Color::BOTH.into_iter().any(|color| {
        [true, false].into_iter().any(|kingside| {
            pos.castling_rook(color, kingside).is_some_and(|rook| {
                pos.king_square(color).file() != 4 || rook.file() != if kingside { 7 } else { 0 }
            })
        })
    })
}

/// `Some(true)` for Chess960, `Some(false)` for standard chess, `None`
/// for a variant we do not play.
fn variant_is_chess960(name: &str) -> Option<bool> {
    let key: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    match key.as_str() {
        "" | "standard" | "chess" | "normal" | "fromposition" => Some(false),
        "chess960" | "960" | "fischerandom" | "fischerrandom" | "frc" => Some(true),
        _ => None,
    }
}

/// Turns the crate's games into ours, checking each move in its own
/// position. In [`Mode::Stream`] one of the crate's games may hold several
/// of ours; they queue in `finished`.
struct GameVisitor {
    mode: Mode,
    finished: VecDeque<Result<Read, GameError>>,
}

impl GameVisitor {
    fn new(mode: Mode) -> GameVisitor {
        GameVisitor {
            mode,
            finished: VecDeque::new(),
        }
    }

    /// Begins a game with these tags: its start position and variant.
    fn begin(&self, tags: Vec<(String, String)>) -> Movetext {
        let tag = |name: &str| {
            tags.iter()
                .rev()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.trim())
        };
        let mut error = None;
        let mut variant960 = false;
        if self.mode == Mode::Whole {
            match tag("Variant").map(variant_is_chess960) {
                None => {}
                Some(Some(is)) => variant960 = is,
                Some(None) => {
                    error = Some(GameError::UnknownVariant(
                        tag("Variant").unwrap_or_default().to_string(),
                    ));
                }
            }
        }
        let start = match tag("FEN") {
            Some(fen) => match Position::from_fen(fen) {
                Ok((pos, _)) => pos,
                Err(e) => {
                    error = error.or(Some(GameError::BadFen {
                        fen: fen.to_string(),
                        error: e,
                    }));
                    Position::startpos()
                }
            },
            None if self.mode == Mode::Whole && tag("SetUp") == Some("1") => {
                error = error.or(Some(GameError::SetUpWithoutFen));
                Position::startpos()
            }
            None => Position::startpos(),
        };
        let chess960 = variant960 || castles_as_chess960(&start);
        Movetext {
            started: !tags.is_empty(),
            tags,
            frames: vec![Frame {
                line: Line::default(),
                pos: start.clone(),
                before_last: None,
            }],
            start,
            chess960,
            result: None,
            partial: Vec::new(),
            error,
        }
    }
}

type Flow<T = ()> = ControlFlow<(), T>;

impl Visitor for GameVisitor {
    type Tags = Vec<(String, String)>;
    type Movetext = Movetext;
    type Output = ();

    fn begin_tags(&mut self) -> Flow<Self::Tags> {
        ControlFlow::Continue(Vec::new())
    }

    fn tag(&mut self, tags: &mut Self::Tags, name: &[u8], value: RawTag<'_>) -> Flow {
        let name = String::from_utf8_lossy(name).trim().to_string();
        if self.mode == Mode::Stream && tags.iter().any(|(n, _)| *n == name) {
            // A game of tags alone, then the next game's tags.
            let alone = self.begin(std::mem::take(tags));
            self.finished.push_back(alone.finish());
        }
        tags.push((name, value.decode_utf8_lossy().into_owned()));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> Flow<Self::Movetext> {
        ControlFlow::Continue(self.begin(tags))
    }

    fn san(&mut self, mt: &mut Movetext, san_plus: SanPlus) -> Flow {
        mt.started = true;
        if mt.error.is_some() {
            return ControlFlow::Continue(());
        }
        if mt.frames.len() == 1 && mt.result.is_some() {
            mt.error = Some(GameError::MoveAfterResult);
            return ControlFlow::Continue(());
        }
        let in_variation = mt.frames.len() > 1;
        let frame = mt.top();
        let text = san_plus.to_string();
        match frame.pos.parse_san(&text) {
            Ok(m) => {
                let san = frame.pos.san(m);
                let before = frame.pos.clone();
                frame.pos.play(m);
                frame.before_last = Some(before);
                frame.line.nodes.push(Node {
                    mv: m,
                    san,
                    nags: Vec::new(),
                    comments: Vec::new(),
                    variations: Vec::new(),
                });
            }
            Err(error) => {
                mt.error = Some(GameError::BadMove {
                    at: move_number(&frame.pos),
                    text,
                    in_variation,
                    error,
                });
            }
        }
        ControlFlow::Continue(())
    }

    fn nag(&mut self, mt: &mut Movetext, nag: Nag) -> Flow {
        let line = &mut mt.top().line;
        match line.nodes.last_mut() {
            Some(node) => node.nags.push(nag.0),
            None => line.nags.push(nag.0),
        }
        ControlFlow::Continue(())
    }

    fn partial_comment(&mut self, mt: &mut Movetext, comment: RawComment<'_>) -> Flow {
        mt.partial.extend_from_slice(comment.as_bytes());
        ControlFlow::Continue(())
    }

    fn comment(&mut self, mt: &mut Movetext, comment: RawComment<'_>) -> Flow {
        let mut bytes = std::mem::take(&mut mt.partial);
        bytes.extend_from_slice(comment.as_bytes());
        let text = String::from_utf8_lossy(&bytes).trim().to_string();
        let line = &mut mt.top().line;
        match line.nodes.last_mut() {
            Some(node) => node.comments.push(text),
            None => line.comments.push(text),
        }
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, mt: &mut Movetext) -> Flow<Skip> {
        if self.mode == Mode::Stream || mt.error.is_some() {
            return ControlFlow::Continue(Skip(true));
        }
        let Some(before) = mt.top().before_last.clone() else {
            mt.error = Some(GameError::VariationWithoutMove);
            return ControlFlow::Continue(Skip(true));
        };
        mt.frames.push(Frame {
            line: Line::default(),
            pos: before,
            before_last: None,
        });
        ControlFlow::Continue(Skip(false))
    }

    fn end_variation(&mut self, mt: &mut Movetext) -> Flow {
        // A `)` without its `(` closes nothing.
        mt.close_variation();
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, mt: &mut Movetext, outcome: Outcome) -> Flow {
        if mt.frames.len() > 1 {
            return ControlFlow::Continue(());
        }
        if self.mode == Mode::Whole {
            mt.result = Some(outcome.to_string());
            return ControlFlow::Continue(());
        }
        // The result ends the game; moves after it begin another, with no
        // tags of its own.
        let mut ended = std::mem::replace(mt, self.begin(Vec::new()));
        ended.result = Some(outcome.to_string());
        self.finished.push_back(ended.finish());
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, mt: Movetext) {
        // In a stream, a game begun after a result with nothing after it
        // is no game.
        if self.mode == Mode::Whole || mt.started {
            self.finished.push_back(mt.finish());
        }
    }
}

#[cfg(test)]
mod tests;
