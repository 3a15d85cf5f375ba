//! Reading the games of a PGN file in full for `forsyth annotate`: tags,
//! moves, comments, NAGs and variations (nested to any depth), with the
//! `pgn-reader` crate doing the parsing and our rules checking each move in
//! its own position.
//!
//! pgn-reader is lenient by design: a tag line it cannot read is passed
//! over silently. Since a game whose tags are lost should not come out
//! looking whole, the tag lines of each game are also checked here, on the
//! raw text, before the reader sees them (the reader tells where each game
//! starts). What the reader drops unreported cannot be kept: comments after
//! `;` to the end of the line, `%` escape lines, and words in the movetext
//! that are not moves (the moves after such a word are then usually
//! illegal, and reported).

use crate::chess::san::SanError;
use crate::chess::{Color, FenError, Move, Position};
use pgn_reader::{Nag, Outcome, RawComment, RawTag, Reader, SanPlus, Skip, Visitor};
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

/// One game read in full, every move legal.
#[derive(Clone, Debug)]
pub struct Game {
    /// 1 for the first game of the file.
    pub number: usize,
    /// The line of the file the game starts on.
    pub line: usize,
    pub tags: Vec<(String, String)>,
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

impl std::fmt::Display for GameError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
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

impl std::fmt::Display for BadGame {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "game {} (line {}): {}",
            self.number, self.line, self.error
        )
    }
}

/// A file that holds no game at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotPgn {
    Empty,
    Binary,
    NoGame,
}

impl std::fmt::Display for NotPgn {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(match self {
            NotPgn::Empty => "the file is empty",
            NotPgn::Binary => "not a PGN file (it holds binary data)",
            NotPgn::NoGame => "not a PGN file (no tag pair and no move in it)",
        })
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
    let mut reader = Reader::build(Cursor::new(bytes))
        .set_supported_tag_line_length(4096)
        .finish();
    let mut visitor = GameVisitor;
    let mut out = Vec::new();
    let mut anything = false;
    // Where the last game started, and on which line: lines are counted
    // from there, not from the top each time.
    let (mut counted, mut line) = (0, 1);
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
        if start > counted {
            line += bytes[counted..start]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            counted = start;
        }
        let bad = |error: GameError| BadGame {
            number,
            line,
            error,
        };
        let tag_problem = check_tag_lines(&bytes[start..], line);
        let read = reader.read_game(&mut visitor);
        let game = match read {
            Ok(None) => break,
            Ok(Some(Ok(read))) => {
                if read.tags.is_empty() && read.main.nodes.is_empty() {
                    Err(bad(GameError::NotAGame))
                } else {
                    anything = true;
                    match tag_problem {
                        Some(problem) => Err(bad(problem)),
                        None => Ok(Game {
                            number,
                            line,
                            tags: read.tags,
                            start: read.start,
                            chess960: read.chess960,
                            main: read.main,
                            end_comments: Vec::new(),
                            result: read.result,
                        }),
                    }
                }
            }
            Ok(Some(Err(error))) => {
                anything = true;
                Err(bad(tag_problem.unwrap_or(error)))
            }
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

struct GameVisitor;

type Flow<T = ()> = ControlFlow<Result<Read, GameError>, T>;

impl Visitor for GameVisitor {
    type Tags = Vec<(String, String)>;
    type Movetext = Movetext;
    type Output = Result<Read, GameError>;

    fn begin_tags(&mut self) -> Flow<Self::Tags> {
        ControlFlow::Continue(Vec::new())
    }

    fn tag(&mut self, tags: &mut Self::Tags, name: &[u8], value: RawTag<'_>) -> Flow {
        tags.push((
            String::from_utf8_lossy(name).trim().to_string(),
            value.decode_utf8_lossy().into_owned(),
        ));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> Flow<Self::Movetext> {
        let tag = |name: &str| {
            tags.iter()
                .rev()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.trim())
        };
        let variant960 = match tag("Variant").map(variant_is_chess960) {
            None => false,
            Some(Some(is)) => is,
            Some(None) => {
                return ControlFlow::Break(Err(GameError::UnknownVariant(
                    tag("Variant").unwrap_or_default().to_string(),
                )));
            }
        };
        let start = match tag("FEN") {
            Some(fen) => match Position::from_fen(fen) {
                Ok((pos, _)) => pos,
                Err(error) => {
                    return ControlFlow::Break(Err(GameError::BadFen {
                        fen: fen.to_string(),
                        error,
                    }));
                }
            },
            None if tag("SetUp") == Some("1") => {
                return ControlFlow::Break(Err(GameError::SetUpWithoutFen));
            }
            None => Position::startpos(),
        };
        let chess960 = variant960 || castles_as_chess960(&start);
        ControlFlow::Continue(Movetext {
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
        })
    }

    fn san(&mut self, mt: &mut Movetext, san_plus: SanPlus) -> Flow {
        if mt.frames.len() == 1 && mt.result.is_some() {
            return ControlFlow::Break(Err(GameError::MoveAfterResult));
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
                ControlFlow::Continue(())
            }
            Err(error) => ControlFlow::Break(Err(GameError::BadMove {
                at: move_number(&frame.pos),
                in_variation,
                error,
            })),
        }
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
        let Some(before) = mt.top().before_last.clone() else {
            return ControlFlow::Break(Err(GameError::VariationWithoutMove));
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
        if mt.frames.len() == 1 {
            mt.result = Some(outcome.to_string());
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, mut mt: Movetext) -> Self::Output {
        // Variations left open at the end of the game end with it.
        while mt.frames.len() > 1 {
            mt.close_variation();
        }
        let main = mt.frames.pop().map(|f| f.line).unwrap_or_default();
        Ok(Read {
            tags: mt.tags,
            start: mt.start,
            chess960: mt.chess960,
            main,
            result: mt.result,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn games(text: &str) -> Vec<Result<Game, BadGame>> {
        read_games(text.as_bytes()).unwrap()
    }

    #[test]
    fn reads_the_whole_tree() {
        let text = "[Event \"Test \\\"quoted\\\"\"]\n[White \"A\"]\n\n\
                    { before } 1. e4 $1 { good } (1. d4 d5 (1... Nf6 2. c4) 2. c4) 1... e5 \
                    2. Nf3!? Nc6 1-0\n";
        let g = games(text);
        assert_eq!(g.len(), 1);
        let g = g[0].as_ref().unwrap();
        assert_eq!((g.number, g.line), (1, 1));
        assert_eq!(g.tags[0], ("Event".into(), "Test \"quoted\"".into()));
        assert_eq!(g.main.comments, ["before"]);
        let sans: Vec<&str> = g.main.nodes.iter().map(|n| n.san.as_str()).collect();
        assert_eq!(sans, ["e4", "e5", "Nf3", "Nc6"]);
        let e4 = &g.main.nodes[0];
        assert_eq!(
            (e4.nags.as_slice(), e4.comments.as_slice()),
            (&[1][..], &["good".to_string()][..])
        );
        assert_eq!(e4.variations.len(), 1);
        let v = &e4.variations[0];
        let vs: Vec<&str> = v.nodes.iter().map(|n| n.san.as_str()).collect();
        assert_eq!(vs, ["d4", "d5", "c4"]);
        let inner: Vec<&str> = v.nodes[1].variations[0]
            .nodes
            .iter()
            .map(|n| n.san.as_str())
            .collect();
        assert_eq!(inner, ["Nf6", "c4"]);
        assert_eq!(g.main.nodes[2].nags, [5]);
        assert_eq!(g.result.as_deref(), Some("1-0"));
        assert!(!g.chess960);
    }

    #[test]
    fn bad_games_are_reported_and_the_others_kept() {
        let text = "[Event \"one\"]\n\n1. e4 e5 *\n\n\
                    [Event \"two\"]\n\n1. e4 e5 2. Ke3 *\n\n\
                    [Event \"three\"]\n[FEN \"8/8/8 w - -\"]\n\n1. e4 *\n\n\
                    [Event \"four\"]\n[White \"Smith]\n\n1. d4 *\n\n\
                    [Event \"five\"]\n[Variant \"Atomic\"]\n\n1. d4 *\n\n\
                    [Event \"six\"]\n\n1. e4 (2. e5) *\n\n\
                    [Event \"seven\"]\n\n1. c4 *\n";
        let g = games(text);
        assert_eq!(g.len(), 7);
        assert!(g[0].is_ok() && g[6].is_ok());
        assert_eq!(g[6].as_ref().unwrap().tag("Event"), Some("seven"));
        let err = |i: usize| g[i].as_ref().unwrap_err().to_string();
        assert_eq!(
            err(1),
            "game 2 (line 5): move 2.: 'Ke3' is not a legal move here"
        );
        assert!(
            err(2).starts_with("game 3 (line 9): bad FEN tag '8/8/8 w - -': "),
            "{}",
            err(2)
        );
        assert_eq!(
            err(3),
            "game 4 (line 14): broken tag on line 15: a tag value without its closing quote: [White \"Smith]"
        );
        assert_eq!(
            err(4),
            "game 5 (line 19): variant 'Atomic' is not supported (standard chess and Chess960 only)"
        );
        assert_eq!(
            err(5),
            "game 6 (line 24): move 1., in a variation: 'e5' is not a legal move here"
        );
    }

    #[test]
    fn chess960_castling() {
        // King f1, rooks b1 and h1: castling short is `f1h1` in Chess960's
        // UCI, and the position alone says it is Chess960.
        let fen = "1r3k1r/pppppppp/8/8/8/8/PPPPPPPP/1R3K1R w HBhb - 0 1";
        for tags in [
            format!("[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]"),
            format!("[FEN \"{fen}\"]"),
        ] {
            let g = games(&format!("{tags}\n\n1. O-O O-O-O *\n"));
            let g = g[0].as_ref().unwrap();
            assert!(g.chess960);
            let sans: Vec<&str> = g.main.nodes.iter().map(|n| n.san.as_str()).collect();
            assert_eq!(sans, ["O-O", "O-O-O"]);
            assert_eq!(g.main.nodes[0].mv.uci(true).to_string(), "f1h1");
            assert_eq!(g.main.nodes[1].mv.uci(true).to_string(), "f8b8");
        }
    }

    #[test]
    fn long_comments_come_whole() {
        // Longer than the reader's buffer for a token (255 bytes).
        let long = "word ".repeat(400);
        let g = games(&format!("1. e4 {{ {long} }} e5 *"));
        let g = g[0].as_ref().unwrap();
        assert_eq!(g.main.nodes[0].comments, [long.trim()]);
    }

    #[test]
    fn files_that_are_not_pgn() {
        assert_eq!(read_games(b"").unwrap_err(), NotPgn::Empty);
        assert_eq!(read_games(b" \n\n").unwrap_err(), NotPgn::Empty);
        assert_eq!(
            read_games(b"\x7fELF\x02\x01\x00\x00").unwrap_err(),
            NotPgn::Binary
        );
        assert_eq!(
            read_games(b"This is a README, not a game.\n").unwrap_err(),
            NotPgn::NoGame
        );
        // Moves without tags are a game.
        assert!(read_games(b"1. e4 e5 *").unwrap()[0].is_ok());
    }

    #[test]
    fn tag_lines() {
        assert!(check_tag_line(r#"[Event "a \"b\" \\ c"]"#).is_ok());
        assert!(check_tag_line(r#"[A "1"] [B "2"]"#).is_ok());
        assert!(check_tag_line(r#"[Event "Cup [final]"]"#).is_ok());
        assert_eq!(
            check_tag_line(r#"[White Smith]"#),
            Err("a tag without a quoted value")
        );
        assert_eq!(check_tag_line(r#"["x"]"#), Err("a tag without a name"));
        assert_eq!(
            check_tag_line(r#"[White "x""#),
            Err("a tag without its closing bracket")
        );
        assert_eq!(
            check_tag_line(r#"[White "x"] y"#),
            Err("text after the tag pair")
        );
    }
}
