//! A PGN reader for building books: tag pairs, movetext in SAN, results.
//!
//! It reads what real files contain: comments in braces and after `;`,
//! `%` escape lines, variations (skipped, nested to any depth), NAGs (`$1`)
//! and `!?` suffixes, move numbers written `1.`, `1...` or glued to the move
//! (`1.e4`), `SetUp`/`FEN` tags for games from a position, and games with
//! no tags at all (a line of moves ending with a result). A game with an
//! illegal or unreadable move, or a bad FEN, comes back as an error naming
//! the game and the move, and reading carries on with the next game.

use crate::chess::Position;
use crate::chess::moves::Move;
use std::fmt;

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
    fn parse(token: &str) -> Option<GameResult> {
        Some(match token {
            "1-0" => GameResult::WhiteWins,
            "0-1" => GameResult::BlackWins,
            "1/2-1/2" | "½-½" => GameResult::Draw,
            "*" => GameResult::Unknown,
            _ => return None,
        })
    }
}

/// One game read in full.
#[derive(Clone, Debug)]
pub struct Game {
    /// 1 for the first game of the text.
    pub number: usize,
    pub tags: Vec<(String, String)>,
    /// The start position (from the `FEN` tag, else the usual one).
    pub start: Position,
    /// The moves of the main line, each legal in turn.
    pub moves: Vec<Move>,
    pub result: GameResult,
}

impl Game {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Why a game was skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PgnError {
    /// The `FEN` tag is no valid position.
    BadFen {
        game: usize,
        fen: String,
        reason: String,
    },
    /// A move is illegal or not SAN; `at` is its number, as `12.` or
    /// `12...`, and `line` the line of the text it is on.
    BadMove {
        game: usize,
        line: usize,
        at: String,
        text: String,
        reason: String,
    },
    /// Broken syntax (an unfinished tag pair, for one).
    Syntax {
        game: usize,
        line: usize,
        what: String,
    },
}

impl fmt::Display for PgnError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            PgnError::BadFen { game, fen, reason } => {
                write!(f, "game {game}: FEN '{fen}': {reason}")
            }
            PgnError::BadMove {
                game,
                line,
                at,
                text,
                reason,
            } => write!(f, "game {game}: move {at} '{text}' (line {line}): {reason}"),
            PgnError::Syntax { game, line, what } => {
                write!(f, "game {game}: line {line}: {what}")
            }
        }
    }
}

impl std::error::Error for PgnError {}

impl PgnError {
    /// The number of the game in its text.
    pub fn game(&self) -> usize {
        match self {
            PgnError::BadFen { game, .. }
            | PgnError::BadMove { game, .. }
            | PgnError::Syntax { game, .. } => *game,
        }
    }
}

/// The games of a PGN text, in order; bad games are `Err` and do not stop
/// the iteration.
pub fn games(text: &str) -> Games<'_> {
    Games {
        lexer: Lexer {
            text: text.as_bytes(),
            src: text,
            pos: 0,
            line: 1,
        },
        number: 0,
        pending_tag: None,
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Token<'a> {
    Tag(String, String),
    /// A move as written, move number and annotations removed.
    San(&'a str, usize),
    Result(GameResult),
    /// Something wrong at this line; the game it is in gets skipped.
    Broken(usize, String),
}

struct Lexer<'a> {
    text: &'a [u8],
    src: &'a str,
    pos: usize,
    line: usize,
}

/// Bytes that end a move token.
fn is_delimiter(b: u8) -> bool {
    b.is_ascii_whitespace() || b"{}()[];$\"".contains(&b)
}

impl<'a> Lexer<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.pos += 1;
        if b == b'\n' {
            self.line += 1;
        }
        Some(b)
    }

    fn skip_line(&mut self) {
        while let Some(b) = self.bump() {
            if b == b'\n' {
                break;
            }
        }
    }

    /// Skips a brace comment whose `{` has been read (no nesting in PGN).
    fn skip_comment(&mut self) {
        while let Some(b) = self.bump() {
            if b == b'}' {
                break;
            }
        }
    }

    fn at_line_start(&self) -> bool {
        self.pos == 0 || self.text.get(self.pos - 1) == Some(&b'\n')
    }

    /// Skips a variation whose `(` has been read, with the variations and
    /// comments inside it; a `)` inside a comment does not count.
    fn skip_variation(&mut self) {
        let mut depth = 1;
        while let Some(b) = self.bump() {
            match b {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return;
                    }
                }
                b'{' => self.skip_comment(),
                b';' => self.skip_line(),
                _ => {}
            }
        }
    }

    /// A tag pair whose `[` has been read: `Name "value"]`.
    fn tag(&mut self) -> Token<'a> {
        let line = self.line;
        while self.peek().is_some_and(|b| b == b' ' || b == b'\t') {
            self.bump();
        }
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            self.bump();
        }
        let name = self.src.get(start..self.pos).unwrap_or("").to_string();
        while self.peek().is_some_and(|b| b == b' ' || b == b'\t') {
            self.bump();
        }
        if name.is_empty() || self.peek() != Some(b'"') {
            self.skip_line();
            return Token::Broken(line, "malformed tag pair".into());
        }
        self.bump();
        let mut value = Vec::new();
        loop {
            match self.bump() {
                Some(b'\\') => match self.bump() {
                    Some(b) if b != b'\n' => value.push(b),
                    _ => return Token::Broken(line, format!("unfinished tag {name}")),
                },
                Some(b'"') => break,
                Some(b'\n') | None => {
                    return Token::Broken(line, format!("unfinished tag {name}"));
                }
                Some(b) => value.push(b),
            }
        }
        while self.peek().is_some_and(|b| b == b' ' || b == b'\t') {
            self.bump();
        }
        if self.peek() != Some(b']') {
            self.skip_line();
            return Token::Broken(line, format!("tag {name} is not closed by ']'"));
        }
        self.bump();
        Token::Tag(name, String::from_utf8_lossy(&value).into_owned())
    }

    fn next_token(&mut self) -> Option<Token<'a>> {
        loop {
            if self.peek() == Some(b'%') && self.at_line_start() {
                self.skip_line();
                continue;
            }
            let b = self.bump()?;
            match b {
                b if b.is_ascii_whitespace() => {}
                b'{' => self.skip_comment(),
                b';' => self.skip_line(),
                b'(' => self.skip_variation(),
                // A stray `)` or `}`: nothing to undo, so it is passed over.
                b')' | b'}' => {}
                b'[' => return Some(self.tag()),
                b'$' => {
                    while self.peek().is_some_and(|b| b.is_ascii_digit()) {
                        self.bump();
                    }
                }
                b'"' | b']' => {
                    return Some(Token::Broken(
                        self.line,
                        format!("unexpected '{}'", b as char),
                    ));
                }
                _ => {
                    let line = self.line;
                    let start = self.pos - 1;
                    while self.peek().is_some_and(|b| !is_delimiter(b)) {
                        self.bump();
                    }
                    let word = self.src.get(start..self.pos).unwrap_or("");
                    if let Some(result) = GameResult::parse(word) {
                        return Some(Token::Result(result));
                    }
                    // "12." "12..." "12.e4" "12...e5": drop the number.
                    let digits = word.bytes().take_while(u8::is_ascii_digit).count();
                    let dots = word[digits..].bytes().take_while(|&b| b == b'.').count();
                    let san = if dots > 0 {
                        &word[digits + dots..]
                    } else {
                        word
                    };
                    // Bare annotations ("!?", "?!") and lone dots carry no move.
                    if san.is_empty() || san.bytes().all(|b| b"!?".contains(&b)) {
                        continue;
                    }
                    return Some(Token::San(san, line));
                }
            }
        }
    }
}

/// The iterator of [`games`].
pub struct Games<'a> {
    lexer: Lexer<'a>,
    number: usize,
    /// A tag pair read past the end of a game that had no result.
    pending_tag: Option<Token<'a>>,
}

/// One game's tokens before the moves are played.
#[derive(Default)]
struct RawGame<'a> {
    tags: Vec<(String, String)>,
    moves: Vec<(&'a str, usize)>,
    result: Option<GameResult>,
    broken: Option<(usize, String)>,
    started: bool,
}

impl<'a> Iterator for Games<'a> {
    type Item = Result<Game, PgnError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut raw = RawGame::default();
        if let Some(Token::Tag(n, v)) = self.pending_tag.take() {
            raw.tags.push((n, v));
            raw.started = true;
        }
        loop {
            let Some(token) = self.lexer.next_token() else {
                if raw.started {
                    break;
                }
                return None;
            };
            match token {
                Token::Tag(n, v) => {
                    // Tags after moves begin the next game, and so does a
                    // tag the game already has (a game with no movetext
                    // and no result must not take the next game's tags).
                    if !raw.moves.is_empty() || raw.tags.iter().any(|(t, _)| *t == n) {
                        self.pending_tag = Some(Token::Tag(n, v));
                        break;
                    }
                    raw.tags.push((n, v));
                }
                Token::San(s, line) => raw.moves.push((s, line)),
                Token::Result(r) => {
                    raw.result = Some(r);
                    raw.started = true;
                    break;
                }
                Token::Broken(line, what) => {
                    if raw.broken.is_none() {
                        raw.broken = Some((line, what));
                    }
                }
            }
            raw.started = true;
        }
        self.number += 1;
        Some(self.finish(raw))
    }
}

impl Games<'_> {
    fn finish(&self, raw: RawGame<'_>) -> Result<Game, PgnError> {
        let game = self.number;
        if let Some((line, what)) = raw.broken {
            return Err(PgnError::Syntax { game, line, what });
        }
        let tag = |name: &str| {
            raw.tags
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
        };
        let start = match tag("FEN") {
            Some(fen) => match Position::from_fen(&fen) {
                Ok((pos, _)) => pos,
                Err(e) => {
                    return Err(PgnError::BadFen {
                        game,
                        fen,
                        reason: e.to_string(),
                    });
                }
            },
            None => Position::startpos(),
        };
        let mut pos = start.clone();
        let mut moves = Vec::with_capacity(raw.moves.len());
        for (text, line) in raw.moves {
            let at = format!(
                "{}{}",
                pos.fullmove_number(),
                if pos.side_to_move() == crate::chess::Color::White {
                    "."
                } else {
                    "..."
                }
            );
            match pos.parse_san(text) {
                Ok(m) => {
                    moves.push(m);
                    pos.play(m);
                }
                Err(e) => {
                    return Err(PgnError::BadMove {
                        game,
                        line,
                        at,
                        text: text.chars().take(40).collect(),
                        reason: e.to_string(),
                    });
                }
            }
        }
        let result = raw
            .result
            .filter(|r| *r != GameResult::Unknown)
            .or_else(|| tag("Result").and_then(|r| GameResult::parse(&r)))
            .unwrap_or(GameResult::Unknown);
        Ok(Game {
            number: game,
            tags: raw.tags,
            start,
            moves,
            result,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uci(game: &Game) -> Vec<String> {
        game.moves
            .iter()
            .map(|m| m.uci(false).to_string())
            .collect()
    }

    fn only(text: &str) -> Game {
        let all: Vec<_> = games(text).collect();
        assert_eq!(all.len(), 1, "{all:?}");
        all.into_iter().next().unwrap().unwrap()
    }

    #[test]
    fn tags_moves_and_result() {
        let g = only(
            "[Event \"Test \\\"quoted\\\"\"]\n[White \"A\"]\n[Result \"1-0\"]\n\n\
             1. e4 e5 2. Nf3 Nc6 3. Bb5 1-0\n",
        );
        assert_eq!(g.tag("Event"), Some("Test \"quoted\""));
        assert_eq!(uci(&g), ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]);
        assert_eq!(g.result, GameResult::WhiteWins);
        assert_eq!(g.number, 1);
    }

    #[test]
    fn comments_variations_nags_and_numbers() {
        let g = only(
            "1.e4 {best by test (says who?)} e5 ; a comment to the end of the line )\n\
             2. Nf3!? $1 Nc6?! (2... d6 (2... Nf6 {Petrov}) 3. d4) 3.Bb5 !? 3...a6\n\
             % an escaped line 1. d4\n\
             4. Ba4 $14 Nf6 5. O-O 1/2-1/2",
        );
        assert_eq!(
            uci(&g),
            [
                "e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1"
            ]
        );
        assert_eq!(g.result, GameResult::Draw);
    }

    #[test]
    fn setup_and_fen() {
        let g =
            only("[SetUp \"1\"]\n[FEN \"4k3/P7/8/8/8/8/8/4K3 w - - 0 40\"]\n\n40. a8=Q+ Kd7 0-1");
        assert_eq!(uci(&g), ["a7a8q", "e8d7"]);
        assert_eq!(g.start.fullmove_number(), 40);
        assert_eq!(g.result, GameResult::BlackWins);
    }

    #[test]
    fn bad_games_are_reported_and_skipped() {
        let text = "1. e4 e5 *\n\
                    [Event \"two\"]\n1. e4 e5 2. Ke3 *\n\
                    [FEN \"not a fen\"]\n1. e4 *\n\
                    [Event \"four\"\n1. d4 *\n\
                    1. d4 d5 2. c4 *\n\
                    1. Zz9 *\n";
        let all: Vec<_> = games(text).collect();
        assert_eq!(all.len(), 6, "{all:?}");
        assert!(all[0].is_ok());
        match &all[1] {
            Err(PgnError::BadMove {
                game,
                line,
                at,
                text,
                ..
            }) => {
                assert_eq!(
                    (*game, *line, at.as_str(), text.as_str()),
                    (2, 3, "2.", "Ke3")
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(all[2], Err(PgnError::BadFen { game: 3, .. })));
        assert!(matches!(all[3], Err(PgnError::Syntax { game: 4, .. })));
        let fifth = all[4].as_ref().unwrap();
        assert_eq!(uci(fifth), ["d2d4", "d7d5", "c2c4"]);
        assert_eq!(fifth.number, 5);
        let sixth = all[5].as_ref().unwrap_err();
        assert_eq!(sixth.game(), 6);
        assert!(
            sixth.to_string().starts_with("game 6: move 1. 'Zz9'"),
            "{sixth}"
        );
    }

    #[test]
    fn games_without_results_end_at_the_next_tags() {
        let text = "[Event \"a\"]\n1. e4 e5\n[Event \"b\"]\n1. d4 d5\n";
        let all: Vec<Game> = games(text).map(Result::unwrap).collect();
        assert_eq!(all.len(), 2);
        assert_eq!(uci(&all[0]), ["e2e4", "e7e5"]);
        assert_eq!(all[1].tag("Event"), Some("b"));
        assert_eq!(uci(&all[1]), ["d2d4", "d7d5"]);
        assert_eq!(all[1].result, GameResult::Unknown);
        // A game of tags alone keeps its tags to itself.
        let text = "[Event \"empty\"]\n[FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]\n\n\
                    [Event \"real\"]\n1. e4 *\n";
        let all: Vec<Game> = games(text).map(Result::unwrap).collect();
        assert_eq!(all.len(), 2);
        assert!(all[0].moves.is_empty());
        assert_eq!(all[1].tag("Event"), Some("real"));
        assert_eq!(uci(&all[1]), ["e2e4"]);
        // CRLF line ends, a trailing comment, nothing after it.
        let all: Vec<Game> = games("1. c4 c5 *\r\n{the end}\r\n")
            .map(Result::unwrap)
            .collect();
        assert_eq!(all.len(), 1);
        assert!(games("").next().is_none());
        assert!(games("  \n{only a comment}\n").next().is_none());
    }

    #[test]
    fn black_to_move_numbers_and_castling_long() {
        let g = only("[FEN \"r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 12\"]\n12... O-O-O 13. O-O Rd2 *");
        assert_eq!(uci(&g), ["e8c8", "e1g1", "d8d2"]);
        let err = games("[FEN \"r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 12\"]\n12... Ke7 13. Kxe8 *")
            .next()
            .unwrap()
            .unwrap_err();
        assert!(err.to_string().contains("move 13. 'Kxe8'"), "{err}");
    }
}
