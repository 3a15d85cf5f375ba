//! The UCI target: a whole session through the engine's real line handler.
//!
//! The bytes are split into lines as `uci::engine::run` splits stdin. Each
//! line goes to [`UciEngine::handle_line`] as it is, except where it would
//! make one run slow or touch the machine: `go` gets a node limit
//! inserted (later parameters of the line still apply, so `go infinite`
//! and `go ponder` still wait for `stop`/`ponderhit`), `bench` and deep
//! `perft` are skipped, and so are a large `Hash`/`Threads` and any
//! `BookFile`/`SyzygyPath` but the empty one. The search threads run while
//! the next lines arrive, so `stop`, `ponderhit` and new `go`s race with
//! them.
//!
//! Checked: nothing panics or hangs; every `go` (also a refused one) is
//! answered by exactly one `bestmove`, in order, never more than were
//! asked for at any time; each `bestmove` is legal in the position its `go`
//! searched (which this file follows from the `position` and `flip`
//! commands), `0000` only where there is no position or no legal move, and
//! the ponder move is legal after it.

use crate::engine::chess::Position;
use crate::engine::uci::command::{Command, PositionStart, parse_line};
use crate::engine::uci::engine::{Output, UciEngine};
use crossbeam_channel::{Receiver, unbounded};
use std::collections::VecDeque;

/// The node limit put on every `go`: enough for a few iterations.
pub const GO_NODES: u64 = 3_000;
/// Lines read per session; the rest is ignored.
const MAX_LINES: usize = 200;

/// One `go` waiting for its `bestmove`: the position it searches.
struct Owed {
    go: String,
    pos: Option<Position>,
}

fn is_separator(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n' | '\x0b' | '\x0c')
}

/// The line with ` nodes GO_NODES` right after its first `go` token.
fn with_node_limit(line: &str) -> Option<String> {
    let mut start = None;
    for (i, c) in line.char_indices().chain([(line.len(), ' ')]) {
        if is_separator(c) {
            if let Some(s) = start.take()
                && line.get(s..i) == Some("go")
            {
                return Some(format!("{} nodes {GO_NODES}{}", &line[..i], &line[i..]));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    None
}

/// What is sent instead of `line`, or `None` to skip it.
fn sanitize(line: &str) -> Option<String> {
    match parse_line(line) {
        Ok(Some(Command::Bench { .. })) => None,
        Ok(Some(Command::Perft { depth })) if depth > 3 => None,
        Ok(Some(Command::SetOption { name, value })) => {
            let value = value.unwrap_or_default();
            let number: Option<u64> = value.trim().parse().ok();
            let digits = value.bytes().any(|b| b.is_ascii_digit());
            let small = |max: u64| number.map_or(!digits, |n| n <= max);
            match name.to_ascii_lowercase().as_str() {
                "hash" if !small(8) => None,
                "threads" if !small(2) => None,
                "bookfile" | "syzygypath" if !value.trim().is_empty() => None,
                _ => Some(line.to_string()),
            }
        }
        Ok(Some(Command::Go(_))) => {
            let limited = with_node_limit(line)?;
            match parse_line(&limited) {
                Ok(Some(Command::Go(p))) if p.nodes.is_some_and(|n| n <= GO_NODES) => Some(limited),
                // A refused `go` is quick, and still owes its `bestmove`.
                Err(e) if e.is_go() => Some(limited),
                _ => None,
            }
        }
        _ => Some(line.to_string()),
    }
}

/// The position a `position` command sets, as the engine builds it.
fn follow_position(start: &PositionStart, moves: &[String]) -> Option<Position> {
    let mut pos = match start {
        PositionStart::StartPos => Position::startpos(),
        PositionStart::Fen(fen) => Position::from_fen(fen).ok()?.0,
    };
    for text in moves {
        let m = pos.parse_uci_move(text).ok()?;
        pos.play(m);
    }
    Some(pos)
}

fn check_bestmove(line: &str, owed: &Owed) {
    let words: Vec<&str> = line.split_ascii_whitespace().collect();
    let context = || format!("'{line}' for '{}'", owed.go);
    let Some(&best) = words.get(1) else {
        panic!("no move in {}", context());
    };
    let Some(pos) = &owed.pos else {
        assert_eq!(best, "0000", "{}: there was no position", context());
        return;
    };
    if best == "0000" {
        assert_eq!(
            pos.count_legal(),
            0,
            "{}: no move given in {}",
            context(),
            pos.fen()
        );
        return;
    }
    let m = pos
        .parse_uci_move(best)
        .unwrap_or_else(|e| panic!("{}: {e} in {}", context(), pos.fen()));
    assert!(
        best == m.uci(false).to_string() || best == m.uci(true).to_string(),
        "{}: not how UCI writes {m:?}",
        context()
    );
    match words.get(2..) {
        None | Some([]) => {}
        Some(["ponder", ponder]) => {
            let mut after = pos.clone();
            after.play(m);
            if let Err(e) = after.parse_uci_move(ponder) {
                panic!("{}: ponder move {e} in {}", context(), after.fen());
            }
        }
        Some(rest) => panic!("{}: unexpected {rest:?}", context()),
    }
}

/// Reads what the engine has written so far, checking each `bestmove`
/// against the oldest unanswered `go`.
fn drain(rx: &Receiver<String>, owed: &mut VecDeque<Owed>) {
    for block in rx.try_iter() {
        for line in block.lines() {
            if line.split_ascii_whitespace().next() == Some("bestmove") {
                let Some(o) = owed.pop_front() else {
                    panic!("'{line}' answers no go");
                };
                check_bestmove(line, &o);
            }
        }
    }
}

/// UCI target: the bytes as a session of input lines.
pub fn uci_session(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (tx, rx) = unbounded();
    let mut engine = match UciEngine::new(Output::new(tx)) {
        Ok(e) => e,
        Err(e) => panic!("the engine does not start: {e}"),
    };
    let mut game = Some(Position::startpos());
    let mut owed: VecDeque<Owed> = VecDeque::new();
    let mut quit = false;
    for raw in text.split('\n').take(MAX_LINES) {
        let Some(line) = sanitize(raw) else {
            continue;
        };
        match parse_line(&line) {
            Ok(Some(Command::Position { start, moves })) => {
                game = follow_position(&start, &moves);
            }
            Ok(Some(Command::Flip)) => game = game.map(|p| p.mirrored()),
            Ok(Some(Command::Go(_))) => owed.push_back(Owed {
                go: line.clone(),
                pos: game.clone(),
            }),
            Err(e) if e.is_go() => owed.push_back(Owed {
                go: line.clone(),
                pos: None,
            }),
            // A `position` refused by the parser leaves no position.
            Err(e) if e.command() == Some("position") => game = None,
            _ => {}
        }
        let more = engine.handle_line(&line);
        drain(&rx, &mut owed);
        if !more {
            quit = true;
            break;
        }
    }
    if !quit {
        // End of input: what `run` does then.
        engine.handle_line("quit");
    }
    drop(engine);
    drain(&rx, &mut owed);
    if let Some(o) = owed.front() {
        panic!("{} go(s) never answered, first '{}'", owed.len(), o.go);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_gets_a_node_limit_after_its_keyword() {
        assert_eq!(
            with_node_limit("go infinite").as_deref(),
            Some("go nodes 3000 infinite")
        );
        assert_eq!(
            with_node_limit("xyz\tgo").as_deref(),
            Some("xyz\tgo nodes 3000")
        );
        assert_eq!(with_node_limit("gogo"), None);
        assert_eq!(sanitize("go nodes 5000"), None);
        assert_eq!(sanitize("bench"), None);
        assert_eq!(sanitize("setoption name Hash value 4096"), None);
        assert_eq!(
            sanitize("setoption name hash value 4").as_deref(),
            Some("setoption name hash value 4")
        );
    }

    #[test]
    fn a_session_with_races_answers_every_go() {
        uci_session(
            b"uci\nisready\nposition startpos moves e2e4\ngo infinite\nstop\n\
              go ponder\nponderhit\ngo depth 3\ngo wtime x\nposition fen nonsense\n\
              go\nposition fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1\ngo\nflip\nd\n",
        );
    }
}
