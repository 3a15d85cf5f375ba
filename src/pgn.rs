//! Games from PGN text, read with the `pgn-reader` crate: each game's tags,
//! start position (the `FEN` tag, else the usual one), the moves of its main
//! line checked by our rules, and its result.
//!
//! The crate does the reading (tag pairs and their escapes, comments in
//! braces and after `;`, `%` escape lines, variations to any depth, NAGs and
//! `!?` suffixes, move numbers as `1.`, `1...` or glued to the move); this
//! module's visitor ([`pgn_reader::Visitor`]) plays the moves. Two habits
//! of real files, which the crate reads as one game, are split into games
//! here, as the book's own sources need: lines of moves with no tags and no
//! blank line between them, each ending with its result (the result ends a
//! game), and a game of tags alone followed by the next game's tags (a tag
//! the game already has begins the next game).
//!
//! A game with an illegal move or a bad FEN comes back as an error naming
//! the game and the move, and reading carries on with the next game. A word
//! the crate cannot read as a move at all is passed over by it, unreported
//! (the moves after it are then usually illegal, and reported).

use crate::chess::{Color, Move, Position};
use pgn_reader::{KnownOutcome, Outcome, RawTag, Reader, SanPlus};
use std::collections::VecDeque;
use std::fmt;
use std::io::{Cursor, Seek};
use std::ops::ControlFlow;

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
    /// A `Result` tag's value.
    fn parse(text: &str) -> Option<GameResult> {
        Some(match text {
            "1-0" => GameResult::WhiteWins,
            "0-1" => GameResult::BlackWins,
            "1/2-1/2" | "½-½" => GameResult::Draw,
            "*" => GameResult::Unknown,
            _ => return None,
        })
    }

    fn of(outcome: Outcome) -> GameResult {
        match outcome {
            Outcome::Known(KnownOutcome::Decisive { winner }) => match winner {
                shakmaty::Color::White => GameResult::WhiteWins,
                shakmaty::Color::Black => GameResult::BlackWins,
            },
            Outcome::Known(KnownOutcome::Draw) => GameResult::Draw,
            Outcome::Unknown => GameResult::Unknown,
        }
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
pub fn games(text: &[u8]) -> Games<'_> {
    Games {
        reader: Reader::new(Cursor::new(text)),
        visitor: GameVisitor::default(),
        done: false,
    }
}

/// The iterator of [`games`].
pub struct Games<'a> {
    reader: Reader<Cursor<&'a [u8]>>,
    visitor: GameVisitor,
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
            match self.reader.read_game(&mut self.visitor) {
                Ok(Some(())) => {}
                Ok(None) => self.done = true,
                Err(e) => {
                    // The games the text held before the fault are kept.
                    self.visitor.fail(e.to_string());
                    // The reader skips past what it could not read; should
                    // it ever not move on, stop rather than loop.
                    self.done = self.bytes_read() <= before;
                }
            }
        }
        self.visitor.finished.pop_front()
    }
}

/// The game being played through.
struct Current {
    number: usize,
    tags: Vec<(String, String)>,
    start: Position,
    pos: Position,
    moves: Vec<Move>,
    /// Set by the first bad move (or a bad FEN); the rest is not played.
    error: Option<PgnError>,
    /// Whether anything of the game was read: tags, a move, a result.
    started: bool,
}

/// Turns the crate's games into ours. One of the crate's games may hold
/// several of ours; they queue in `finished`.
#[derive(Default)]
struct GameVisitor {
    /// The number of the last game begun.
    number: usize,
    /// Whether game `number` is begun and not finished.
    open: bool,
    finished: VecDeque<Result<Game, PgnError>>,
}

impl GameVisitor {
    /// Begins game `number + 1` with these tags.
    fn begin(&mut self, tags: Vec<(String, String)>) -> Current {
        self.number += 1;
        self.open = true;
        let number = self.number;
        let fen = tags
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("FEN"))
            .map(|(_, v)| v.clone());
        let (start, error) = match fen {
            None => (Position::startpos(), None),
            Some(fen) => match Position::from_fen(&fen) {
                Ok((pos, _)) => (pos, None),
                Err(e) => (
                    Position::startpos(),
                    Some(PgnError::BadFen {
                        game: number,
                        fen,
                        reason: e.to_string(),
                    }),
                ),
            },
        };
        Current {
            number,
            started: !tags.is_empty(),
            tags,
            pos: start.clone(),
            start,
            moves: Vec::new(),
            error,
        }
    }

    /// Ends the game with `outcome` (the `Result` tag counts when the
    /// movetext gives none, or `*`).
    fn finish(&mut self, current: Current, outcome: GameResult) {
        if current.number == self.number {
            self.open = false;
        }
        let game = match current.error {
            Some(e) => Err(e),
            None => {
                let tagged = current
                    .tags
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case("Result"))
                    .and_then(|(_, v)| GameResult::parse(v));
                let result = match outcome {
                    GameResult::Unknown => tagged.unwrap_or(GameResult::Unknown),
                    known => known,
                };
                Ok(Game {
                    number: current.number,
                    tags: current.tags,
                    start: current.start,
                    moves: current.moves,
                    result,
                })
            }
        };
        self.finished.push_back(game);
    }

    /// The reader gave up on the game in progress (or the next one).
    fn fail(&mut self, what: String) {
        if !self.open {
            self.number += 1;
        }
        self.open = false;
        self.finished.push_back(Err(PgnError::Syntax {
            game: self.number,
            what,
        }));
    }
}

impl pgn_reader::Visitor for GameVisitor {
    type Tags = Vec<(String, String)>;
    type Movetext = Current;
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<(), Self::Tags> {
        ControlFlow::Continue(Vec::new())
    }

    fn tag(&mut self, tags: &mut Self::Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<()> {
        let name = String::from_utf8_lossy(name).into_owned();
        if tags.iter().any(|(n, _)| *n == name) {
            // A game of tags alone, then the next game's tags.
            let current = self.begin(std::mem::take(tags));
            self.finish(current, GameResult::Unknown);
        }
        tags.push((name, value.decode_utf8_lossy().into_owned()));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<(), Current> {
        ControlFlow::Continue(self.begin(tags))
    }

    fn san(&mut self, current: &mut Current, san: SanPlus) -> ControlFlow<()> {
        current.started = true;
        if current.error.is_some() {
            return ControlFlow::Continue(());
        }
        let text = san.to_string();
        match current.pos.parse_san(&text) {
            Ok(m) => {
                current.moves.push(m);
                current.pos.play(m);
            }
            Err(e) => {
                let dots = if current.pos.side_to_move() == Color::White {
                    "."
                } else {
                    "..."
                };
                current.error = Some(PgnError::BadMove {
                    game: current.number,
                    at: format!("{}{dots}", current.pos.fullmove_number()),
                    text,
                    reason: e.to_string(),
                });
            }
        }
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, current: &mut Current, outcome: Outcome) -> ControlFlow<()> {
        // The result ends the game; moves after it begin another, with no
        // tags of its own.
        let ended = std::mem::replace(current, self.begin(Vec::new()));
        self.finish(ended, GameResult::of(outcome));
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, current: Current) {
        if current.started {
            self.finish(current, GameResult::Unknown);
        } else {
            // Begun after a result, and nothing came: no game.
            self.number -= 1;
            self.open = false;
        }
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

    fn read(text: &str) -> Vec<Result<Game, PgnError>> {
        games(text.as_bytes()).collect()
    }

    fn only(text: &str) -> Game {
        let all = read(text);
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
        // The tag when the movetext ends without a result, or with `*`.
        let g = only("[Result \"0-1\"]\n\n1. d4 d5 *\n");
        assert_eq!(g.result, GameResult::BlackWins);
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
                    [Event \"four\"]\n1. d4 *\n\
                    1. d4 d5 2. c4 *\n\
                    1. e4 -- *\n";
        let all = read(text);
        assert_eq!(all.len(), 6, "{all:?}");
        assert!(all[0].is_ok());
        match &all[1] {
            Err(PgnError::BadMove { game, at, text, .. }) => {
                assert_eq!((*game, at.as_str(), text.as_str()), (2, "2.", "Ke3"));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            all[1].as_ref().unwrap_err().to_string(),
            "game 2: move 2. 'Ke3': 'Ke3' is not a legal move here"
        );
        assert!(matches!(all[2], Err(PgnError::BadFen { game: 3, .. })));
        assert_eq!(uci(all[3].as_ref().unwrap()), ["d2d4"]);
        assert_eq!(all[3].as_ref().unwrap().tag("Event"), Some("four"));
        // The next line is a game of its own, without the tags before it.
        let fifth = all[4].as_ref().unwrap();
        assert_eq!(uci(fifth), ["d2d4", "d7d5", "c2c4"]);
        assert_eq!((fifth.number, fifth.tags.len()), (5, 0));
        // A null move is no move of a game.
        let sixth = all[5].as_ref().unwrap_err();
        assert_eq!(sixth.game(), 6);
        assert!(
            sixth.to_string().starts_with("game 6: move 1... '--'"),
            "{sixth}"
        );
        // Black to move, and a king taking its own pieces.
        let err = read("[FEN \"r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 12\"]\n12... Ke7 13. Kxe8 *")
            .remove(0)
            .unwrap_err();
        assert!(err.to_string().contains("move 13. 'Kxe8'"), "{err}");
    }

    #[test]
    fn unterminated_text_is_a_syntax_error() {
        let all = read("1. e4 e5 *\n\n1. d4 {never closed\n");
        assert_eq!(all.len(), 2, "{all:?}");
        assert!(all[0].is_ok());
        assert_eq!(
            all[1].as_ref().unwrap_err().to_string(),
            "game 2: unterminated comment"
        );
    }

    #[test]
    fn games_without_results_end_at_the_next_tags() {
        let text = "[Event \"a\"]\n1. e4 e5\n[Event \"b\"]\n1. d4 d5\n";
        let all: Vec<Game> = read(text).into_iter().map(Result::unwrap).collect();
        assert_eq!(all.len(), 2);
        assert_eq!(uci(&all[0]), ["e2e4", "e7e5"]);
        assert_eq!(all[1].tag("Event"), Some("b"));
        assert_eq!(uci(&all[1]), ["d2d4", "d7d5"]);
        assert_eq!(all[1].result, GameResult::Unknown);
        // A game of tags alone keeps its tags to itself.
        let text = "[Event \"empty\"]\n[FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]\n\n\
                    [Event \"real\"]\n1. e4 *\n";
        let all: Vec<Game> = read(text).into_iter().map(Result::unwrap).collect();
        assert_eq!(all.len(), 2);
        assert!(all[0].moves.is_empty());
        assert_eq!(all[0].start.fen(), "8/8/8/8/8/8/8/K6k w - - 0 1");
        assert_eq!(all[1].tag("Event"), Some("real"));
        assert_eq!(uci(&all[1]), ["e2e4"]);
        assert_eq!(all[1].number, 2);
        // CRLF line ends, a trailing comment, nothing after it.
        let all: Vec<Game> = read("1. c4 c5 *\r\n{the end}\r\n")
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(all.len(), 1);
        assert!(read("").is_empty());
        assert!(read("  \n{only a comment}\n").is_empty());
    }

    #[test]
    fn lines_of_moves_are_games_and_castling_reads_both_ways() {
        let all = read("1. e4 e5 *\n1. d4 d5 1-0\n1. c4 *\n");
        let moves: Vec<Vec<String>> = all.iter().map(|g| uci(g.as_ref().unwrap())).collect();
        assert_eq!(
            moves,
            [vec!["e2e4", "e7e5"], vec!["d2d4", "d7d5"], vec!["c2c4"]]
        );
        let numbers: Vec<usize> = all.iter().map(|g| g.as_ref().unwrap().number).collect();
        assert_eq!(numbers, [1, 2, 3]);
        let g = only("[FEN \"r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 12\"]\n12... O-O-O 13. 0-0 Rd2 *");
        assert_eq!(uci(&g), ["e8c8", "e1g1", "d8d2"]);
    }
}
