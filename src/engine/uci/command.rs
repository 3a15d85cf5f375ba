//! Turns one line from the GUI into a [`Command`].
//!
//! Lines are split into tokens here first, so that leading unknown tokens can
//! be skipped (which `vampirc_uci::parse_one` does not do) and so that command
//! keywords match exactly: the crate matches them case-insensitively and by
//! prefix (`isreadyfoo` is `isready` to it, `debug onion` is `debug on`).
//! From the first known keyword on, the line goes to the crate, except for
//! the commands below, which vampirc-uci 0.11.1 gets wrong and we parse here:
//!
//! - `go`: ponder is dropped whenever a time parameter or movetime is present.
//! - `go`: depth/mate/movestogo from 256 to 999 panic inside the crate.
//! - `go`: numbers are cut at 3 or 12 digits and the rest of the line dropped.
//! - `go`: negative times are accepted, and `go perft` is unknown.
//! - `position`: 4-field, Shredder-FEN and X-FEN castling are rejected.
//! - `position`: moves stop at `0000`, SAN or a double space, and `e7e8x` becomes `e7e8`.
//! - `setoption`: values keep trailing spaces, names starting "value"/"Value" are refused.
//! - `register`: we ignore it anyway, and the crate refuses a bare `register`.
//! - `d`, `eval`, `flip`, `bench`, `perft`: our own commands, unknown to the crate.
//!
//! The crate therefore only sees `uci`, `debug` (after its argument has been
//! checked), `isready`, `ucinewgame`, `stop`, `ponderhit` and `quit`.

#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::cell::Cell;
use std::fmt;
use std::sync::Once;

use vampirc_uci::UciMessage;

/// One command from the GUI (or a human at a terminal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Uci,
    Debug(bool),
    IsReady,
    UciNewGame,
    Stop,
    PonderHit,
    Quit,
    /// Accepted and ignored: the engine needs no registration.
    Register,
    /// `name` has its words joined by single spaces; `value` is the raw text
    /// after `value`, trimmed (inner whitespace kept, since it may be a path).
    /// `Some("")` when `value` is given with nothing after it.
    SetOption {
        name: String,
        value: Option<String>,
    },
    /// `moves` holds every token after `moves`, unvalidated.
    Position {
        start: PositionStart,
        moves: Vec<String>,
    },
    Go(GoParams),
    /// `d`: print the board.
    Display,
    /// `eval`: print the static evaluation.
    Eval,
    /// `flip`: mirror the position (colours swapped, the board turned top
    /// to bottom, castling rights and the en-passant square with it): the
    /// same position seen from the other side, for checking that the
    /// evaluation is symmetric. Not a null move: the pieces change colour,
    /// and the earlier positions of the game are forgotten.
    Flip,
    /// `bench [depth]`.
    Bench {
        depth: Option<u32>,
    },
    /// `perft <depth>` or `go perft <depth>`.
    Perft {
        depth: u32,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PositionStart {
    StartPos,
    /// The FEN fields joined by single spaces; not validated here.
    Fen(String),
}

/// The parameters of `go`; absent ones are `None`/`false`/empty. A parameter
/// given twice keeps its last value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GoParams {
    pub wtime: Option<u64>,
    pub btime: Option<u64>,
    pub winc: Option<u64>,
    pub binc: Option<u64>,
    pub movestogo: Option<u32>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub mate: Option<u32>,
    pub movetime: Option<u64>,
    pub infinite: bool,
    pub ponder: bool,
    /// Raw move tokens, unvalidated; a repeated `searchmoves` adds to them.
    pub searchmoves: Vec<String>,
}

/// Why a line was refused. Quoted input is cut to a few dozen characters so
/// that a 100 kB line cannot produce a 100 kB error message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// No known command on the line; holds its first token.
    UnknownCommand(String),
    /// Something specific was required at this point of the command.
    Expected {
        command: &'static str,
        expected: &'static str,
        got: Option<String>,
    },
    /// A numeric parameter was followed by nothing.
    MissingNumber {
        command: &'static str,
        param: &'static str,
        min: u64,
    },
    /// A numeric parameter was followed by something that is not digits.
    NotANumber {
        command: &'static str,
        param: &'static str,
        min: u64,
        got: String,
    },
    /// A numeric parameter was all digits but outside `min..=max`.
    OutOfRange {
        command: &'static str,
        param: &'static str,
        min: u64,
        max: u64,
        got: String,
    },
    /// `position fen` with a field count other than 4 to 6.
    FenFieldCount(usize),
    /// `go perft` with other `go` parameters before it.
    PerftNotFirst,
    /// vampirc-uci refused or panicked on a line we had checked; should not happen.
    Internal { command: &'static str },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::UnknownCommand(token) => write!(f, "unknown command '{token}'"),
            ParseError::Expected {
                command,
                expected,
                got: None,
            } => write!(f, "{command}: expected {expected}"),
            ParseError::Expected {
                command,
                expected,
                got: Some(got),
            } => write!(f, "{command}: expected {expected}, got '{got}'"),
            ParseError::MissingNumber {
                command,
                param,
                min,
            } => write!(
                f,
                "{command}: '{param}' needs a {} integer, got nothing",
                sign_word(*min)
            ),
            ParseError::NotANumber {
                command,
                param,
                min,
                got,
            } => write!(
                f,
                "{command}: '{param}' needs a {} integer, got '{got}'",
                sign_word(*min)
            ),
            ParseError::OutOfRange {
                command,
                param,
                min,
                max,
                got,
            } => write!(
                f,
                "{command}: '{param}' must be between {min} and {max}, got '{got}'"
            ),
            ParseError::FenFieldCount(count) => {
                write!(f, "position: a FEN needs 4 to 6 fields, got {count}")
            }
            ParseError::PerftNotFirst => write!(f, "go: 'perft' must come right after 'go'"),
            ParseError::Internal { command } => {
                write!(f, "{command}: internal error in the UCI parser")
            }
        }
    }
}

impl std::error::Error for ParseError {}

impl ParseError {
    /// The command of the refused line, where it was one we know.
    pub fn command(&self) -> Option<&'static str> {
        match self {
            ParseError::Expected { command, .. }
            | ParseError::MissingNumber { command, .. }
            | ParseError::NotANumber { command, .. }
            | ParseError::OutOfRange { command, .. }
            | ParseError::Internal { command } => Some(command),
            ParseError::PerftNotFirst => Some("go"),
            ParseError::FenFieldCount(_) => Some("position"),
            ParseError::UnknownCommand(_) => None,
        }
    }

    /// Whether the refused line was a `go` (which still owes a `bestmove`),
    /// wherever `go` stood on the line.
    pub fn is_go(&self) -> bool {
        self.command() == Some("go")
    }
}

fn sign_word(min: u64) -> &'static str {
    if min == 0 { "non-negative" } else { "positive" }
}

/// Parses one line. `Ok(None)` means the line was blank and is to be ignored.
pub fn parse_line(line: &str) -> Result<Option<Command>, ParseError> {
    let tokens = tokenize(line);
    let Some(first) = tokens.first() else {
        return Ok(None);
    };
    // The UCI spec says to skip unknown tokens and look for a command further on.
    let Some((at, keyword)) = tokens
        .iter()
        .enumerate()
        .find_map(|(i, token)| Keyword::from_token(token.text).map(|k| (i, k)))
    else {
        return Err(ParseError::UnknownCommand(excerpt(first.text)));
    };
    let from_keyword = tokens.get(at..).unwrap_or_default();
    let args = tokens.get(at + 1..).unwrap_or_default();

    let command = match keyword {
        Keyword::Uci
        | Keyword::IsReady
        | Keyword::UciNewGame
        | Keyword::Stop
        | Keyword::PonderHit
        | Keyword::Quit => parse_with_crate(keyword, from_keyword)?,
        Keyword::Debug => {
            // The crate would take "onion" as "on" and "ON" as "on".
            match args.first().map(|t| t.text) {
                Some("on" | "off") => parse_with_crate(keyword, from_keyword)?,
                other => {
                    return Err(ParseError::Expected {
                        command: "debug",
                        expected: "'on' or 'off'",
                        got: other.map(excerpt),
                    });
                }
            }
        }
        Keyword::Register => Command::Register,
        Keyword::SetOption => parse_setoption(line, args)?,
        Keyword::Position => parse_position(args)?,
        Keyword::Go => parse_go(args)?,
        Keyword::Display => Command::Display,
        Keyword::Eval => Command::Eval,
        Keyword::Flip => Command::Flip,
        Keyword::Bench => Command::Bench {
            depth: args
                .first()
                .map(|token| number_u32(Some(token), "bench", "depth", 1))
                .transpose()?,
        },
        Keyword::Perft => Command::Perft {
            depth: number_u32(args.first(), "perft", "depth", 0)?,
        },
    };
    Ok(Some(command))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keyword {
    Uci,
    Debug,
    IsReady,
    SetOption,
    Register,
    UciNewGame,
    Position,
    Go,
    Stop,
    PonderHit,
    Quit,
    Display,
    Eval,
    Flip,
    Bench,
    Perft,
}

impl Keyword {
    fn from_token(token: &str) -> Option<Keyword> {
        Some(match token {
            "uci" => Keyword::Uci,
            "debug" => Keyword::Debug,
            "isready" => Keyword::IsReady,
            "setoption" => Keyword::SetOption,
            "register" => Keyword::Register,
            "ucinewgame" => Keyword::UciNewGame,
            "position" => Keyword::Position,
            "go" => Keyword::Go,
            "stop" => Keyword::Stop,
            "ponderhit" => Keyword::PonderHit,
            "quit" => Keyword::Quit,
            "d" => Keyword::Display,
            "eval" => Keyword::Eval,
            "flip" => Keyword::Flip,
            "bench" => Keyword::Bench,
            "perft" => Keyword::Perft,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Keyword::Uci => "uci",
            Keyword::Debug => "debug",
            Keyword::IsReady => "isready",
            Keyword::SetOption => "setoption",
            Keyword::Register => "register",
            Keyword::UciNewGame => "ucinewgame",
            Keyword::Position => "position",
            Keyword::Go => "go",
            Keyword::Stop => "stop",
            Keyword::PonderHit => "ponderhit",
            Keyword::Quit => "quit",
            Keyword::Display => "d",
            Keyword::Eval => "eval",
            Keyword::Flip => "flip",
            Keyword::Bench => "bench",
            Keyword::Perft => "perft",
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Token<'a> {
    text: &'a str,
    /// Byte offsets into the line, kept so `setoption` can return raw value text.
    start: usize,
    end: usize,
}

fn is_separator(c: char) -> bool {
    // '\r' is here so CRLF input needs no special handling anywhere else.
    matches!(c, ' ' | '\t' | '\r' | '\n' | '\x0b' | '\x0c')
}

fn tokenize(line: &str) -> Vec<Token<'_>> {
    // Separators are ASCII, so every cut is on a char boundary and `get`
    // never returns `None`; it is used only to avoid a panicking slice.
    let token =
        |start: usize, end: usize| line.get(start..end).map(|text| Token { text, start, end });
    let mut tokens = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        if is_separator(c) {
            if let Some(from) = start.take() {
                tokens.extend(token(from, i));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(from) = start {
        tokens.extend(token(from, line.len()));
    }
    tokens
}

fn join(tokens: &[Token<'_>]) -> String {
    let mut out = String::new();
    for (i, token) in tokens.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(token.text);
    }
    out
}

const EXCERPT_CHARS: usize = 40;

fn excerpt(text: &str) -> String {
    match text.char_indices().nth(EXCERPT_CHARS) {
        Some((cut, _)) => format!("{}...", text.get(..cut).unwrap_or_default()),
        None => text.to_owned(),
    }
}

fn parse_with_crate(keyword: Keyword, from_keyword: &[Token<'_>]) -> Result<Command, ParseError> {
    let internal = ParseError::Internal {
        command: keyword.name(),
    };
    let message = crate_parse(&join(from_keyword)).ok_or_else(|| internal.clone())?;
    match (keyword, message) {
        (Keyword::Uci, UciMessage::Uci) => Ok(Command::Uci),
        (Keyword::Debug, UciMessage::Debug(on)) => Ok(Command::Debug(on)),
        (Keyword::IsReady, UciMessage::IsReady) => Ok(Command::IsReady),
        (Keyword::UciNewGame, UciMessage::UciNewGame) => Ok(Command::UciNewGame),
        (Keyword::Stop, UciMessage::Stop) => Ok(Command::Stop),
        (Keyword::PonderHit, UciMessage::PonderHit) => Ok(Command::PonderHit),
        (Keyword::Quit, UciMessage::Quit) => Ok(Command::Quit),
        _ => Err(internal),
    }
}

thread_local! {
    static SILENCE_PANICS: Cell<bool> = const { Cell::new(false) };
}

/// Calls the crate, turning a panic inside it into `None`.
///
/// Only a last resort: the lines we hand over are ones the crate cannot
/// panic on. The panic hook is wrapped once, process-wide, but it stays
/// silent only on this thread and only during this call; every other panic
/// still reaches whatever hook was installed before.
fn crate_parse(text: &str) -> Option<UciMessage> {
    static WRAP_HOOK: Once = Once::new();
    WRAP_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !SILENCE_PANICS.with(Cell::get) {
                previous(info);
            }
        }));
    });
    SILENCE_PANICS.with(|silent| silent.set(true));
    let result = std::panic::catch_unwind(|| vampirc_uci::parse_one(text));
    SILENCE_PANICS.with(|silent| silent.set(false));
    result.ok()
}

/// Reads an unsigned decimal number in `min..=max`. Only ASCII digits are
/// accepted: no sign, since negative go times are an error for us.
fn number(
    token: Option<&Token<'_>>,
    command: &'static str,
    param: &'static str,
    min: u64,
    max: u64,
) -> Result<u64, ParseError> {
    let Some(token) = token else {
        return Err(ParseError::MissingNumber {
            command,
            param,
            min,
        });
    };
    let text = token.text;
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ParseError::NotANumber {
            command,
            param,
            min,
            got: excerpt(text),
        });
    }
    match text.parse::<u64>() {
        Ok(value) if (min..=max).contains(&value) => Ok(value),
        // All digits, so the only way to fail is being too large or too small.
        _ => Err(ParseError::OutOfRange {
            command,
            param,
            min,
            max,
            got: excerpt(text),
        }),
    }
}

fn number_u32(
    token: Option<&Token<'_>>,
    command: &'static str,
    param: &'static str,
    min: u32,
) -> Result<u32, ParseError> {
    let value = number(token, command, param, min.into(), u32::MAX.into())?;
    u32::try_from(value).map_err(|_| ParseError::OutOfRange {
        command,
        param,
        min: min.into(),
        max: u32::MAX.into(),
        got: value.to_string(),
    })
}

fn parse_setoption(line: &str, args: &[Token<'_>]) -> Result<Command, ParseError> {
    match args.first() {
        Some(token) if token.text == "name" => {}
        other => {
            return Err(ParseError::Expected {
                command: "setoption",
                expected: "'name'",
                got: other.map(|t| excerpt(t.text)),
            });
        }
    }
    let rest = args.get(1..).unwrap_or_default();
    if rest.is_empty() {
        return Err(ParseError::Expected {
            command: "setoption",
            expected: "an option name after 'name'",
            got: None,
        });
    }
    // The first word always belongs to the name, so that an option may be
    // called "value ..." and still be set.
    let value_at = rest
        .iter()
        .skip(1)
        .position(|t| t.text == "value")
        .map(|i| i + 1);
    let (name_tokens, value) = match value_at {
        None => (rest, None),
        Some(at) => {
            let value_tokens = rest.get(at + 1..).unwrap_or_default();
            let value = match (value_tokens.first(), value_tokens.last()) {
                (Some(first), Some(last)) => line.get(first.start..last.end).unwrap_or_default(),
                _ => "",
            };
            (rest.get(..at).unwrap_or_default(), Some(value.to_owned()))
        }
    };
    Ok(Command::SetOption {
        name: join(name_tokens),
        value,
    })
}

fn parse_position(args: &[Token<'_>]) -> Result<Command, ParseError> {
    let (start, rest) = match args.first().map(|t| t.text) {
        Some("startpos") => (PositionStart::StartPos, args.get(1..).unwrap_or_default()),
        Some("fen") => {
            let after_fen = args.get(1..).unwrap_or_default();
            let fen_len = after_fen
                .iter()
                .position(|t| t.text == "moves")
                .unwrap_or(after_fen.len());
            if !(4..=6).contains(&fen_len) {
                return Err(ParseError::FenFieldCount(fen_len));
            }
            let fen = join(after_fen.get(..fen_len).unwrap_or_default());
            (
                PositionStart::Fen(fen),
                after_fen.get(fen_len..).unwrap_or_default(),
            )
        }
        other => {
            return Err(ParseError::Expected {
                command: "position",
                expected: "'startpos' or 'fen'",
                got: other.map(excerpt),
            });
        }
    };
    let moves = match rest.split_first() {
        None => Vec::new(),
        Some((keyword, moves)) if keyword.text == "moves" => {
            moves.iter().map(|t| t.text.to_owned()).collect()
        }
        // Ignoring this would silently set up a different position than meant.
        Some((other, _)) => {
            return Err(ParseError::Expected {
                command: "position",
                expected: "'moves' or the end of the line",
                got: Some(excerpt(other.text)),
            });
        }
    };
    Ok(Command::Position { start, moves })
}

fn is_go_keyword(token: &str) -> bool {
    matches!(
        token,
        "searchmoves"
            | "ponder"
            | "wtime"
            | "btime"
            | "winc"
            | "binc"
            | "movestogo"
            | "depth"
            | "nodes"
            | "mate"
            | "movetime"
            | "infinite"
            | "perft"
    )
}

fn parse_go(args: &[Token<'_>]) -> Result<Command, ParseError> {
    if args.first().is_some_and(|t| t.text == "perft") {
        return Ok(Command::Perft {
            depth: number_u32(args.get(1), "go", "perft", 0)?,
        });
    }
    let mut params = GoParams::default();
    let mut i = 0;
    while let Some(token) = args.get(i) {
        i += 1;
        let value = args.get(i);
        match token.text {
            "wtime" => params.wtime = Some(number(value, "go", "wtime", 0, u64::MAX)?),
            "btime" => params.btime = Some(number(value, "go", "btime", 0, u64::MAX)?),
            "winc" => params.winc = Some(number(value, "go", "winc", 0, u64::MAX)?),
            "binc" => params.binc = Some(number(value, "go", "binc", 0, u64::MAX)?),
            "movestogo" => params.movestogo = Some(number_u32(value, "go", "movestogo", 0)?),
            "depth" => params.depth = Some(number_u32(value, "go", "depth", 0)?),
            "nodes" => params.nodes = Some(number(value, "go", "nodes", 0, u64::MAX)?),
            "mate" => params.mate = Some(number_u32(value, "go", "mate", 0)?),
            "movetime" => params.movetime = Some(number(value, "go", "movetime", 0, u64::MAX)?),
            "infinite" => {
                params.infinite = true;
                continue;
            }
            "ponder" => {
                params.ponder = true;
                continue;
            }
            "perft" => return Err(ParseError::PerftNotFirst),
            "searchmoves" => {
                let first = i;
                while args.get(i).is_some_and(|t| !is_go_keyword(t.text)) {
                    i += 1;
                }
                let moves = args.get(first..i).unwrap_or_default();
                if moves.is_empty() {
                    return Err(ParseError::Expected {
                        command: "go",
                        expected: "at least one move after 'searchmoves'",
                        got: value.map(|t| excerpt(t.text)),
                    });
                }
                params
                    .searchmoves
                    .extend(moves.iter().map(|t| t.text.to_owned()));
                continue;
            }
            // The UCI spec says to ignore unknown tokens and read on.
            _ => continue,
        }
        // Only the arms that read a number get here; step over that number.
        i += 1;
    }
    Ok(Command::Go(params))
}

#[cfg(test)]
#[allow(clippy::panic)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Command {
        match parse_line(line) {
            Ok(Some(command)) => command,
            other => panic!("{line:?} gave {other:?}"),
        }
    }

    fn error(line: &str) -> String {
        match parse_line(line) {
            Err(e) => e.to_string(),
            other => panic!("{line:?} gave {other:?}"),
        }
    }

    fn go(line: &str) -> GoParams {
        match parse(line) {
            Command::Go(params) => params,
            other => panic!("{line:?} gave {other:?}"),
        }
    }

    fn position(start: PositionStart, moves: &[&str]) -> Command {
        Command::Position {
            start,
            moves: moves.iter().map(|m| m.to_string()).collect(),
        }
    }

    fn fen(text: &str) -> PositionStart {
        PositionStart::Fen(text.to_owned())
    }

    fn setoption(name: &str, value: Option<&str>) -> Command {
        Command::SetOption {
            name: name.to_owned(),
            value: value.map(str::to_owned),
        }
    }

    const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn blank_lines_are_ignored() {
        assert_eq!(parse_line(""), Ok(None));
        assert_eq!(parse_line("   \t  "), Ok(None));
        assert_eq!(parse_line("\r\n"), Ok(None));
        assert_eq!(parse_line("\r"), Ok(None));
    }

    #[test]
    fn simple_commands() {
        assert_eq!(parse("uci"), Command::Uci);
        assert_eq!(parse("isready"), Command::IsReady);
        assert_eq!(parse("ucinewgame"), Command::UciNewGame);
        assert_eq!(parse("stop"), Command::Stop);
        assert_eq!(parse("ponderhit"), Command::PonderHit);
        assert_eq!(parse("quit"), Command::Quit);
        assert_eq!(parse("d"), Command::Display);
        assert_eq!(parse("eval"), Command::Eval);
        assert_eq!(parse("flip"), Command::Flip);
    }

    #[test]
    fn whitespace_and_carriage_returns_are_tolerated() {
        assert_eq!(parse("uci\r"), Command::Uci);
        assert_eq!(parse("isready\r\n"), Command::IsReady);
        assert_eq!(parse(" \t isready \t "), Command::IsReady);
        assert_eq!(
            parse("position\tstartpos  moves \t e2e4\r"),
            position(PositionStart::StartPos, &["e2e4"])
        );
        assert_eq!(go("go  depth\t5\r").depth, Some(5));
    }

    #[test]
    fn trailing_tokens_after_simple_commands_are_ignored() {
        assert_eq!(parse("uci foo"), Command::Uci);
        assert_eq!(parse("stop now"), Command::Stop);
        assert_eq!(parse("debug on please"), Command::Debug(true));
        assert_eq!(parse("d extra"), Command::Display);
    }

    #[test]
    fn debug() {
        assert_eq!(parse("debug on"), Command::Debug(true));
        assert_eq!(parse("debug off"), Command::Debug(false));
        assert_eq!(error("debug"), "debug: expected 'on' or 'off'");
        assert_eq!(
            error("debug maybe"),
            "debug: expected 'on' or 'off', got 'maybe'"
        );
    }

    #[test]
    fn keywords_are_exact_and_case_sensitive() {
        // The crate accepts all of these; the spec does not.
        assert_eq!(error("UCI"), "unknown command 'UCI'");
        assert_eq!(error("isreadyfoo"), "unknown command 'isreadyfoo'");
        assert_eq!(
            error("debug onion"),
            "debug: expected 'on' or 'off', got 'onion'"
        );
        assert_eq!(error("debug ON"), "debug: expected 'on' or 'off', got 'ON'");
        assert_eq!(error("Go depth 5"), "unknown command 'Go'");
    }

    #[test]
    fn unknown_tokens_before_a_command_are_skipped() {
        assert_eq!(parse("joho debug on"), Command::Debug(true));
        assert_eq!(parse("foo bar isready"), Command::IsReady);
        assert_eq!(go("xyzzy go depth 3").depth, Some(3));
    }

    #[test]
    fn garbage_is_an_unknown_command() {
        assert_eq!(error("foo"), "unknown command 'foo'");
        assert_eq!(error("foo bar baz"), "unknown command 'foo'");
        assert_eq!(
            error("\u{FFFD}\u{FFFD} \0 x"),
            "unknown command '\u{FFFD}\u{FFFD}'"
        );
        assert_eq!(error("info depth 5"), "unknown command 'info'");
    }

    #[test]
    fn register_is_accepted_in_any_form() {
        assert_eq!(parse("register"), Command::Register);
        assert_eq!(parse("register later"), Command::Register);
        assert_eq!(parse("register name Joe code 42"), Command::Register);
    }

    #[test]
    fn setoption_normal_lines() {
        assert_eq!(
            parse("setoption name Hash value 64"),
            setoption("Hash", Some("64"))
        );
        assert_eq!(
            parse("setoption name Clear Hash"),
            setoption("Clear Hash", None)
        );
        assert_eq!(
            parse("setoption name Move Overhead value 30"),
            setoption("Move Overhead", Some("30"))
        );
        assert_eq!(
            parse("setoption name hash value 64"),
            setoption("hash", Some("64"))
        );
    }

    #[test]
    fn setoption_value_is_trimmed_but_keeps_inner_spaces() {
        // Bug 6: the crate returns "/a b/c " with the trailing space.
        assert_eq!(
            parse("setoption name SyzygyPath value /a b/c "),
            setoption("SyzygyPath", Some("/a b/c"))
        );
        assert_eq!(
            parse("setoption name SyzygyPath value   /a  b/c\t \r"),
            setoption("SyzygyPath", Some("/a  b/c"))
        );
        assert_eq!(
            parse("setoption   name  Clear \t Hash  "),
            setoption("Clear Hash", None)
        );
    }

    #[test]
    fn setoption_names_starting_with_value() {
        // Bug 6: the crate refuses any name whose first word starts with "value".
        assert_eq!(
            parse("setoption name Value Of Pawn value 100"),
            setoption("Value Of Pawn", Some("100"))
        );
        assert_eq!(
            parse("setoption name Values value 3"),
            setoption("Values", Some("3"))
        );
        assert_eq!(
            parse("setoption name value of pawn value 100"),
            setoption("value of pawn", Some("100"))
        );
        assert_eq!(
            parse("setoption name Piece value value 5"),
            setoption("Piece", Some("value 5"))
        );
    }

    #[test]
    fn setoption_edge_cases() {
        assert_eq!(
            parse("setoption name SyzygyPath value"),
            setoption("SyzygyPath", Some(""))
        );
        assert_eq!(
            parse("setoption name Hash VALUE 64"),
            setoption("Hash VALUE 64", None)
        );
        assert_eq!(error("setoption"), "setoption: expected 'name'");
        assert_eq!(
            error("setoption Hash value 64"),
            "setoption: expected 'name', got 'Hash'"
        );
        assert_eq!(
            error("setoption name"),
            "setoption: expected an option name after 'name'"
        );
    }

    #[test]
    fn position_normal_lines() {
        assert_eq!(
            parse("position startpos"),
            position(PositionStart::StartPos, &[])
        );
        assert_eq!(
            parse("position startpos moves e2e4 e7e5"),
            position(PositionStart::StartPos, &["e2e4", "e7e5"])
        );
        assert_eq!(
            parse(&format!("position fen {START_FEN} moves e2e4 e7e5 g1f3")),
            position(fen(START_FEN), &["e2e4", "e7e5", "g1f3"])
        );
        assert_eq!(
            parse(&format!("position fen {START_FEN}")),
            position(fen(START_FEN), &[])
        );
    }

    #[test]
    fn position_fen_whitespace_is_normalised() {
        assert_eq!(
            parse("position fen  8/8/8/8/8/8/8/K6k \t b  -  -   12 40  moves  a1a2"),
            position(fen("8/8/8/8/8/8/8/K6k b - - 12 40"), &["a1a2"])
        );
    }

    #[test]
    fn position_fen_is_passed_through_unvalidated() {
        // Bug 4: the crate rejects all three of these FENs.
        assert_eq!(
            parse("position fen 8/8/8/8/8/8/8/K6k w - -"),
            position(fen("8/8/8/8/8/8/8/K6k w - -"), &[])
        );
        let shredder = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1";
        assert_eq!(
            parse(&format!("position fen {shredder} moves e2e4")),
            position(fen(shredder), &["e2e4"])
        );
        let xfen = "1rqbkrbn/1ppppp1p/1n6/p1N3p1/8/2P4P/PP1PPPP1/1RQBKRBN w FBfb - 0 9";
        assert_eq!(
            parse(&format!("position fen {xfen}")),
            position(fen(xfen), &[])
        );
        assert_eq!(
            parse("position fen this is no fen"),
            position(fen("this is no fen"), &[])
        );
        assert_eq!(
            parse("position fen a b c d e"),
            position(fen("a b c d e"), &[])
        );
    }

    #[test]
    fn position_fen_field_count() {
        assert_eq!(
            error("position fen 8/8/8/8/8/8/8/K6k w -"),
            "position: a FEN needs 4 to 6 fields, got 3"
        );
        assert_eq!(
            error(&format!("position fen {START_FEN} 7 moves e2e4")),
            "position: a FEN needs 4 to 6 fields, got 7"
        );
        assert_eq!(
            error("position fen"),
            "position: a FEN needs 4 to 6 fields, got 0"
        );
        assert_eq!(
            error("position fen moves e2e4"),
            "position: a FEN needs 4 to 6 fields, got 0"
        );
    }

    #[test]
    fn position_moves_are_all_returned() {
        // Bug 5: the crate stops at 0000, at SAN and after a double space,
        // and reads "e7e8x" as "e7e8".
        assert_eq!(
            parse("position startpos moves e2e4 0000 e7e5"),
            position(PositionStart::StartPos, &["e2e4", "0000", "e7e5"])
        );
        assert_eq!(
            parse("position startpos moves e2e4 Nf6 e7e5"),
            position(PositionStart::StartPos, &["e2e4", "Nf6", "e7e5"])
        );
        assert_eq!(
            parse("position startpos moves  e2e4 e7e5"),
            position(PositionStart::StartPos, &["e2e4", "e7e5"])
        );
        assert_eq!(
            parse("position startpos moves e7e8x e2e4"),
            position(PositionStart::StartPos, &["e7e8x", "e2e4"])
        );
        assert_eq!(
            parse("position startpos moves e2e4 moves"),
            position(PositionStart::StartPos, &["e2e4", "moves"])
        );
    }

    #[test]
    fn position_moves_may_be_empty() {
        assert_eq!(
            parse("position startpos moves"),
            position(PositionStart::StartPos, &[])
        );
        assert_eq!(
            parse(&format!("position fen {START_FEN} moves")),
            position(fen(START_FEN), &[])
        );
    }

    #[test]
    fn position_errors() {
        assert_eq!(error("position"), "position: expected 'startpos' or 'fen'");
        assert_eq!(
            error("position foo"),
            "position: expected 'startpos' or 'fen', got 'foo'"
        );
        assert_eq!(
            error("position startpos e2e4"),
            "position: expected 'moves' or the end of the line, got 'e2e4'"
        );
    }

    #[test]
    fn go_with_clock() {
        assert_eq!(
            go("go wtime 1000 btime 1000 winc 10 binc 10 movestogo 40"),
            GoParams {
                wtime: Some(1000),
                btime: Some(1000),
                winc: Some(10),
                binc: Some(10),
                movestogo: Some(40),
                ..GoParams::default()
            }
        );
    }

    #[test]
    fn go_plain_infinite_and_limits() {
        assert_eq!(go("go"), GoParams::default());
        assert_eq!(
            go("go infinite"),
            GoParams {
                infinite: true,
                ..GoParams::default()
            }
        );
        assert_eq!(
            go("go movetime 500 nodes 100000 mate 3"),
            GoParams {
                movetime: Some(500),
                nodes: Some(100_000),
                mate: Some(3),
                ..GoParams::default()
            }
        );
    }

    #[test]
    fn go_searchmoves() {
        assert_eq!(
            go("go searchmoves e2e4 d2d4 depth 5"),
            GoParams {
                searchmoves: vec!["e2e4".to_owned(), "d2d4".to_owned()],
                depth: Some(5),
                ..GoParams::default()
            }
        );
        assert_eq!(
            go("go depth 5 searchmoves e2e4 0000 e7e8x").searchmoves,
            ["e2e4", "0000", "e7e8x"]
        );
        assert_eq!(
            error("go searchmoves depth 5"),
            "go: expected at least one move after 'searchmoves', got 'depth'"
        );
        assert_eq!(
            error("go searchmoves"),
            "go: expected at least one move after 'searchmoves'"
        );
    }

    #[test]
    fn go_ponder_is_kept() {
        // Bug 1: the crate drops ponder when time parameters are present.
        assert_eq!(
            go("go ponder wtime 1000 btime 2000"),
            GoParams {
                ponder: true,
                wtime: Some(1000),
                btime: Some(2000),
                ..GoParams::default()
            }
        );
        assert_eq!(
            go("go ponder movetime 1000"),
            GoParams {
                ponder: true,
                movetime: Some(1000),
                ..GoParams::default()
            }
        );
        assert!(go("go wtime 1000 ponder").ponder);
        assert!(go("go ponder").ponder);
    }

    #[test]
    fn go_values_from_256_to_999_do_not_panic() {
        // Bug 2: these panic inside the crate.
        assert_eq!(go("go depth 256").depth, Some(256));
        assert_eq!(go("go depth 999").depth, Some(999));
        assert_eq!(go("go mate 500").mate, Some(500));
        assert_eq!(go("go movestogo 999").movestogo, Some(999));
        assert_eq!(go("go depth 4294967295").depth, Some(u32::MAX));
    }

    #[test]
    fn go_long_numbers_are_read_whole() {
        // Bug 3: the crate reads "1000" as 100 and the 13-digit nodes as 12
        // digits, dropping everything after them.
        assert_eq!(
            go("go depth 1000 movetime 5"),
            GoParams {
                depth: Some(1000),
                movetime: Some(5),
                ..GoParams::default()
            }
        );
        assert_eq!(
            go("go nodes 1234567890123 depth 5"),
            GoParams {
                nodes: Some(1_234_567_890_123),
                depth: Some(5),
                ..GoParams::default()
            }
        );
        assert_eq!(go("go wtime 18446744073709551615").wtime, Some(u64::MAX));
        assert_eq!(go("go wtime 000123").wtime, Some(123));
    }

    #[test]
    fn go_numbers_out_of_range() {
        assert_eq!(
            error("go wtime 18446744073709551616"),
            "go: 'wtime' must be between 0 and 18446744073709551615, got '18446744073709551616'"
        );
        assert_eq!(
            error("go depth 4294967296"),
            "go: 'depth' must be between 0 and 4294967295, got '4294967296'"
        );
        assert_eq!(
            error("go movestogo 99999999999999999999999"),
            "go: 'movestogo' must be between 0 and 4294967295, got '99999999999999999999999'"
        );
    }

    #[test]
    fn go_bad_numbers() {
        assert_eq!(
            error("go wtime -5"),
            "go: 'wtime' needs a non-negative integer, got '-5'"
        );
        assert_eq!(
            error("go movetime +5"),
            "go: 'movetime' needs a non-negative integer, got '+5'"
        );
        assert_eq!(
            error("go depth five"),
            "go: 'depth' needs a non-negative integer, got 'five'"
        );
        assert_eq!(
            error("go nodes 1.5"),
            "go: 'nodes' needs a non-negative integer, got '1.5'"
        );
        assert_eq!(
            error("go wtime depth 5"),
            "go: 'wtime' needs a non-negative integer, got 'depth'"
        );
        assert_eq!(
            error("go btime"),
            "go: 'btime' needs a non-negative integer, got nothing"
        );
    }

    #[test]
    fn go_errors_are_known_as_go() {
        for line in [
            "go depth x",
            "xyz go wtime -5",
            "\u{FFFD} go searchmoves",
            "go perft",
        ] {
            assert!(parse_line(line).is_err_and(|e| e.is_go()), "{line}");
        }
        for line in [
            "foo bar",
            "position fen a b",
            "setoption",
            "perft x",
            "debug go",
        ] {
            assert!(parse_line(line).is_err_and(|e| !e.is_go()), "{line}");
        }
    }

    #[test]
    fn go_skips_unknown_tokens() {
        assert_eq!(
            go("go foo depth 5 bar"),
            GoParams {
                depth: Some(5),
                ..GoParams::default()
            }
        );
        // Keywords are case-sensitive, so "DEPTH 5" is two unknown tokens.
        assert_eq!(go("go DEPTH 5"), GoParams::default());
    }

    #[test]
    fn perft_and_bench() {
        // Bug 7: the crate knows none of these.
        assert_eq!(parse("perft 5"), Command::Perft { depth: 5 });
        assert_eq!(parse("perft 0"), Command::Perft { depth: 0 });
        assert_eq!(parse("go perft 5"), Command::Perft { depth: 5 });
        assert_eq!(parse("bench"), Command::Bench { depth: None });
        assert_eq!(parse("bench 13"), Command::Bench { depth: Some(13) });
        assert_eq!(parse("d"), Command::Display);
    }

    #[test]
    fn perft_and_bench_errors() {
        assert_eq!(
            error("perft"),
            "perft: 'depth' needs a non-negative integer, got nothing"
        );
        assert_eq!(
            error("perft x"),
            "perft: 'depth' needs a non-negative integer, got 'x'"
        );
        assert_eq!(
            error("go perft"),
            "go: 'perft' needs a non-negative integer, got nothing"
        );
        assert_eq!(
            error("go depth 3 perft 2"),
            "go: 'perft' must come right after 'go'"
        );
        assert_eq!(
            error("bench x"),
            "bench: 'depth' needs a positive integer, got 'x'"
        );
        assert_eq!(
            error("bench 0"),
            "bench: 'depth' must be between 1 and 4294967295, got '0'"
        );
    }

    #[test]
    fn long_lines() {
        let moves = " e2e4".repeat(20_000);
        let line = format!("position startpos moves{moves}");
        assert!(line.len() >= 100_000);
        match parse(&line) {
            Command::Position { start, moves } => {
                assert_eq!(start, PositionStart::StartPos);
                assert_eq!(moves.len(), 20_000);
                assert!(moves.iter().all(|m| m == "e2e4"));
            }
            other => panic!("got {other:?}"),
        }

        let junk = "x".repeat(100_000);
        assert_eq!(
            error(&junk),
            format!("unknown command '{}...'", "x".repeat(40))
        );
        assert_eq!(parse(&format!("isready {junk}")), Command::IsReady);
        assert_eq!(parse(&format!("{} uci", "y ".repeat(50_000))), Command::Uci);

        let digits = "9".repeat(100_000);
        assert_eq!(
            error(&format!("go nodes {digits}")),
            format!(
                "go: 'nodes' must be between 0 and 18446744073709551615, got '{}...'",
                "9".repeat(40)
            )
        );
        assert_eq!(
            go(&format!("go searchmoves{moves}")).searchmoves.len(),
            20_000
        );
        let value = "v ".repeat(50_000);
        assert_eq!(
            parse(&format!("setoption name X value {value}")),
            setoption("X", Some(value.trim_end()))
        );
    }

    #[test]
    fn non_ascii_text_never_panics() {
        assert_eq!(error("\u{FFFD}"), "unknown command '\u{FFFD}'");
        assert_eq!(
            error(&format!("go depth {}", "\u{FFFD}".repeat(50))),
            format!(
                "go: 'depth' needs a non-negative integer, got '{}...'",
                "\u{FFFD}".repeat(40)
            )
        );
        assert_eq!(
            parse("setoption name Ünïcödé value ✓ ok"),
            setoption("Ünïcödé", Some("✓ ok"))
        );
    }

    #[test]
    fn crate_panics_are_contained() {
        // What the layer never hands over, but must survive if it ever did.
        assert!(crate_parse("go depth 300").is_none());
        assert!(matches!(crate_parse("isready"), Some(UciMessage::IsReady)));
    }
}
