//! The command line for scripts: `analyse` (one search, its result as text
//! or JSON), `epd` (test suites; writing EPD) and `fen` (checking and
//! drawing positions). `main.rs` only dispatches here.
//!
//! Every command returns `Err(reason)` for bad input; `main` prints the
//! reason on stderr and exits with status 2.

pub mod analyse;
pub mod epd;
pub mod fen;
pub mod interrupt;
pub mod json;

use crate::chess::{Move, Position};
use crate::epd::runner::Budget;
use std::str::FromStr;

/// How many words an option takes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Arity {
    Flag,
    One,
    /// Every word up to the next `--option` (a FEN, a list of moves).
    Many,
}

/// The options every searching command understands.
pub const SEARCH_OPTIONS: &[(&str, Arity)] = &[
    ("--depth", Arity::One),
    ("--movetime", Arity::One),
    ("--nodes", Arity::One),
    ("--threads", Arity::One),
    ("--hash", Arity::One),
];

/// A command's words, split into positional arguments and known options.
#[derive(Debug, Default)]
pub struct Args {
    pub positional: Vec<String>,
    options: Vec<(&'static str, Vec<String>)>,
}

impl Args {
    /// Reads `args` against the options listed in `specs` (several lists
    /// may be given); an unknown option or a missing value is an error.
    pub fn parse(args: &[String], specs: &[&[(&'static str, Arity)]]) -> Result<Args, String> {
        let mut out = Args::default();
        let mut i = 0;
        while i < args.len() {
            let word = &args[i];
            i += 1;
            if !word.starts_with("--") {
                out.positional.push(word.clone());
                continue;
            }
            let Some(&(name, arity)) = specs
                .iter()
                .flat_map(|s| s.iter())
                .find(|(name, _)| name == word)
            else {
                return Err(format!("unknown option '{word}'"));
            };
            if out.options.iter().any(|(n, _)| *n == name) {
                return Err(format!("{name} is given twice"));
            }
            let mut values = Vec::new();
            match arity {
                Arity::Flag => {}
                Arity::One => match args.get(i) {
                    Some(v) if !v.starts_with("--") => {
                        values.push(v.clone());
                        i += 1;
                    }
                    _ => return Err(format!("{name} needs a value")),
                },
                Arity::Many => {
                    while i < args.len() && !args[i].starts_with("--") {
                        values.push(args[i].clone());
                        i += 1;
                    }
                }
            }
            out.options.push((name, values));
        }
        Ok(out)
    }

    pub fn flag(&self, name: &str) -> bool {
        self.options.iter().any(|(n, _)| *n == name)
    }

    /// The words given to a `Many` option (`None` if it was not given).
    pub fn many(&self, name: &str) -> Option<&[String]> {
        self.options
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_slice())
    }

    /// The value of a `One` option, read as a `T`.
    pub fn one<T: FromStr>(&self, name: &str) -> Result<Option<T>, String> {
        match self.many(name).and_then(|v| v.first()) {
            None => Ok(None),
            Some(text) => text
                .parse()
                .map(Some)
                .map_err(|_| format!("'{text}' is not a valid value for {name}")),
        }
    }

    /// `--depth`, `--movetime` or `--nodes` (at most one of them).
    pub fn budget(&self) -> Result<Option<Budget>, String> {
        let given = [
            self.one::<u32>("--depth")?.map(Budget::Depth),
            self.one::<u64>("--movetime")?.map(Budget::MoveTime),
            self.one::<u64>("--nodes")?.map(Budget::Nodes),
        ];
        let mut given = given.into_iter().flatten();
        let first = given.next();
        if given.next().is_some() {
            return Err("give only one of --depth, --movetime and --nodes".into());
        }
        match first {
            Some(Budget::Depth(0) | Budget::MoveTime(0) | Budget::Nodes(0)) => {
                Err("a search limit must be above 0".into())
            }
            other => Ok(other),
        }
    }

    /// `--threads` and `--hash`, defaulting to one thread and 16 MB.
    pub fn threads_hash(&self) -> Result<(usize, usize), String> {
        let threads = self.one::<usize>("--threads")?.unwrap_or(1);
        let hash = self.one::<usize>("--hash")?.unwrap_or(16);
        if threads == 0 || hash == 0 {
            return Err("--threads and --hash must be at least 1".into());
        }
        Ok((threads, hash))
    }
}

/// Reads a FEN given as one word or as several, warning on stderr about
/// parts that were dropped.
pub fn read_fen(words: &[String]) -> Result<Position, String> {
    let fen = words.join(" ");
    let (pos, warnings) = Position::from_fen(&fen).map_err(|e| format!("bad FEN: {e}"))?;
    for w in warnings {
        eprintln!("warning: {w}");
    }
    Ok(pos)
}

/// A move in UCI notation or, failing that, SAN.
pub fn read_move(pos: &Position, text: &str) -> Result<Move, String> {
    pos.parse_uci_move(text)
        .or_else(|_| pos.parse_san(text))
        .map_err(|e| format!("bad move: {e} in {}", pos.fen()))
}

/// SAN with move numbers: `1. e4 e5 2. Nf3`, or `3... Nc6 4. Bb5` when
/// Black moves first.
pub fn numbered_san(pos: &Position, moves: &[Move]) -> String {
    let mut p = pos.clone();
    let mut out = Vec::new();
    for (i, &m) in moves.iter().enumerate() {
        let white = p.side_to_move() == crate::chess::Color::White;
        if white {
            out.push(format!("{}.", p.fullmove_number()));
        } else if i == 0 {
            out.push(format!("{}...", p.fullmove_number()));
        }
        out.push(p.san(m));
        p.play(m);
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    const SPEC: &[(&str, Arity)] = &[
        ("--fen", Arity::Many),
        ("--json", Arity::Flag),
        ("--depth", Arity::One),
        ("--movetime", Arity::One),
        ("--nodes", Arity::One),
    ];

    #[test]
    fn options_take_their_words() {
        let a = Args::parse(
            &words("file --fen 8/8 w - - --json --depth 7 more"),
            &[SPEC],
        )
        .unwrap();
        assert_eq!(a.positional, ["file", "more"]);
        assert_eq!(a.many("--fen").unwrap(), ["8/8", "w", "-", "-"]);
        assert!(a.flag("--json"));
        assert_eq!(a.one::<u32>("--depth").unwrap(), Some(7));
        assert_eq!(a.budget().unwrap(), Some(Budget::Depth(7)));
        assert_eq!(a.one::<u32>("--nodes").unwrap(), None);
    }

    #[test]
    fn bad_options_are_explained() {
        let err = |s: &str| {
            Args::parse(&words(s), &[SPEC])
                .and_then(|a| a.budget())
                .unwrap_err()
        };
        assert_eq!(err("--deep 3"), "unknown option '--deep'");
        assert_eq!(err("--depth"), "--depth needs a value");
        assert_eq!(err("--depth --json"), "--depth needs a value");
        assert_eq!(err("--json --json"), "--json is given twice");
        assert_eq!(err("--depth x"), "'x' is not a valid value for --depth");
        assert_eq!(
            err("--depth 3 --movetime 9"),
            "give only one of --depth, --movetime and --nodes"
        );
        assert_eq!(err("--nodes 0"), "a search limit must be above 0");
    }

    #[test]
    fn san_lines_are_numbered() {
        let pos = Position::startpos();
        let e4 = pos.parse_san("e4").unwrap();
        assert_eq!(numbered_san(&pos, &[e4]), "1. e4");
        let mut after = pos.clone();
        after.play(e4);
        let e5 = after.parse_san("e5").unwrap();
        let mut next = after.clone();
        next.play(e5);
        let nf3 = next.parse_san("Nf3").unwrap();
        assert_eq!(numbered_san(&after, &[e5, nf3]), "1... e5 2. Nf3");
        assert!(read_move(&pos, "e2e4").is_ok() && read_move(&pos, "Nf3").is_ok());
        assert!(read_move(&pos, "e2e5").unwrap_err().contains("bad move"));
    }
}
