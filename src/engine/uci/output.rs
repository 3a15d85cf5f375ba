//! Formats the lines the engine sends to the GUI.
//!
//! Done here rather than with vampirc-uci's serialiser, which writes
//! `currmovenum` for `currmovenumber`, cannot express a null `bestmove`, and
//! leaves out `default <empty>` for empty string options.
//!
//! Free text (option names and defaults, `info string`) has any `\r`/`\n`
//! replaced by a space: a line break inside it would end the UCI line early
//! and the rest would reach the GUI as a separate, bogus command.

#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::fmt;

/// A search score from the side to move's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves (not plies); negative when being mated.
    Mate(i32),
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Mate(moves) => write!(f, "mate {moves}"),
        }
    }
}

/// Whether a score is exact or only a bound from a failed aspiration search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    Exact,
    Lower,
    Upper,
}

/// One `info` line; absent fields are left out.
///
/// Fields are written in the order they are declared, with `currmove` and
/// `currmovenumber` after `time`, and `string` last because everything after
/// `string` belongs to it. An `Info` with no fields at all prints as `info`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Info {
    pub depth: Option<u32>,
    pub seldepth: Option<u32>,
    pub multipv: Option<u32>,
    pub score: Option<(Score, Bound)>,
    /// Win, draw, loss in permille.
    pub wdl: Option<(u32, u32, u32)>,
    pub nodes: Option<u64>,
    pub nps: Option<u64>,
    /// Permille of the hash table in use.
    pub hashfull: Option<u32>,
    pub tbhits: Option<u64>,
    /// Milliseconds.
    pub time: Option<u64>,
    pub currmove: Option<String>,
    pub currmovenumber: Option<u32>,
    pub pv: Vec<String>,
    pub string: Option<String>,
}

impl fmt::Display for Info {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("info")?;
        if let Some(depth) = self.depth {
            write!(f, " depth {depth}")?;
        }
        if let Some(seldepth) = self.seldepth {
            write!(f, " seldepth {seldepth}")?;
        }
        if let Some(multipv) = self.multipv {
            write!(f, " multipv {multipv}")?;
        }
        if let Some((score, bound)) = self.score {
            write!(f, " score {score}")?;
            match bound {
                Bound::Exact => {}
                Bound::Lower => f.write_str(" lowerbound")?,
                Bound::Upper => f.write_str(" upperbound")?,
            }
        }
        if let Some((win, draw, loss)) = self.wdl {
            write!(f, " wdl {win} {draw} {loss}")?;
        }
        if let Some(nodes) = self.nodes {
            write!(f, " nodes {nodes}")?;
        }
        if let Some(nps) = self.nps {
            write!(f, " nps {nps}")?;
        }
        if let Some(hashfull) = self.hashfull {
            write!(f, " hashfull {hashfull}")?;
        }
        if let Some(tbhits) = self.tbhits {
            write!(f, " tbhits {tbhits}")?;
        }
        if let Some(time) = self.time {
            write!(f, " time {time}")?;
        }
        if let Some(currmove) = &self.currmove {
            write!(f, " currmove {currmove}")?;
        }
        if let Some(number) = self.currmovenumber {
            write!(f, " currmovenumber {number}")?;
        }
        if !self.pv.is_empty() {
            f.write_str(" pv")?;
            for mv in &self.pv {
                write!(f, " {mv}")?;
            }
        }
        if let Some(text) = &self.string {
            f.write_str(" string ")?;
            write_single_line(f, text)?;
        }
        Ok(())
    }
}

/// The type part of an `option` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionKind {
    Check { default: bool },
    Spin { default: i64, min: i64, max: i64 },
    Combo { default: String, vars: Vec<String> },
    Button,
    String { default: String },
}

/// The `option` line announcing one option in reply to `uci`.
pub fn option_line(name: &str, kind: &OptionKind) -> String {
    let mut line = String::from("option name ");
    line.push_str(&single_line(name));
    line.push_str(" type ");
    match kind {
        OptionKind::Check { default } => {
            line.push_str(&format!("check default {default}"));
        }
        OptionKind::Spin { default, min, max } => {
            line.push_str(&format!("spin default {default} min {min} max {max}"));
        }
        OptionKind::Combo { default, vars } => {
            line.push_str("combo default ");
            line.push_str(&default_text(default));
            for var in vars {
                line.push_str(" var ");
                line.push_str(&single_line(var));
            }
        }
        OptionKind::Button => line.push_str("button"),
        OptionKind::String { default } => {
            line.push_str("string default ");
            line.push_str(&default_text(default));
        }
    }
    line
}

/// The `bestmove` line. Without a move (no legal moves, or stopped before any
/// was found) it is the null move `0000`, and any ponder move is dropped since
/// there is nothing to ponder after.
pub fn bestmove_line(best: Option<&str>, ponder: Option<&str>) -> String {
    match (best, ponder) {
        (None, _) => String::from("bestmove 0000"),
        (Some(best), None) => format!("bestmove {best}"),
        (Some(best), Some(ponder)) => format!("bestmove {best} ponder {ponder}"),
    }
}

/// The spec's spelling of an empty default; a bare `default` with nothing
/// after it is read by GUIs as a missing default or as the next keyword.
fn default_text(default: &str) -> String {
    if default.trim().is_empty() {
        String::from("<empty>")
    } else {
        single_line(default)
    }
}

fn single_line(text: &str) -> String {
    text.replace(['\r', '\n'], " ")
}

fn write_single_line(out: &mut impl fmt::Write, text: &str) -> fmt::Result {
    for (i, part) in text.split(['\r', '\n']).enumerate() {
        if i > 0 {
            out.write_char(' ')?;
        }
        out.write_str(part)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(list: &[&str]) -> Vec<String> {
        list.iter().map(|m| m.to_string()).collect()
    }

    #[test]
    fn score_display() {
        assert_eq!(Score::Cp(35).to_string(), "cp 35");
        assert_eq!(Score::Cp(-120).to_string(), "cp -120");
        assert_eq!(Score::Mate(3).to_string(), "mate 3");
        assert_eq!(Score::Mate(-2).to_string(), "mate -2");
    }

    #[test]
    fn info_with_every_field_in_order() {
        let info = Info {
            depth: Some(12),
            seldepth: Some(18),
            multipv: Some(1),
            score: Some((Score::Cp(35), Bound::Lower)),
            wdl: Some((400, 500, 100)),
            nodes: Some(123_456),
            nps: Some(1_000_000),
            hashfull: Some(250),
            tbhits: Some(7),
            time: Some(1242),
            currmove: Some("g1f3".to_owned()),
            currmovenumber: Some(3),
            pv: moves(&["e2e4", "e7e5"]),
            string: Some("hello world".to_owned()),
        };
        assert_eq!(
            info.to_string(),
            "info depth 12 seldepth 18 multipv 1 score cp 35 lowerbound wdl 400 500 100 \
             nodes 123456 nps 1000000 hashfull 250 tbhits 7 time 1242 \
             currmove g1f3 currmovenumber 3 pv e2e4 e7e5 string hello world"
        );
    }

    #[test]
    fn info_typical_pv_line() {
        let info = Info {
            depth: Some(2),
            score: Some((Score::Cp(214), Bound::Exact)),
            time: Some(1242),
            nodes: Some(2124),
            nps: Some(34928),
            pv: moves(&["e2e4", "e7e5", "g1f3"]),
            ..Info::default()
        };
        assert_eq!(
            info.to_string(),
            "info depth 2 score cp 214 nodes 2124 nps 34928 time 1242 pv e2e4 e7e5 g1f3"
        );
    }

    #[test]
    fn info_mate_scores_and_bounds() {
        let mate = |moves, bound| Info {
            score: Some((Score::Mate(moves), bound)),
            ..Info::default()
        };
        assert_eq!(mate(3, Bound::Exact).to_string(), "info score mate 3");
        assert_eq!(
            mate(-2, Bound::Upper).to_string(),
            "info score mate -2 upperbound"
        );
        assert_eq!(
            mate(1, Bound::Lower).to_string(),
            "info score mate 1 lowerbound"
        );
    }

    #[test]
    fn info_currmove_uses_the_full_keyword() {
        let info = Info {
            depth: Some(5),
            currmove: Some("e2e4".to_owned()),
            currmovenumber: Some(1),
            ..Info::default()
        };
        assert_eq!(
            info.to_string(),
            "info depth 5 currmove e2e4 currmovenumber 1"
        );
    }

    #[test]
    fn info_string_and_empty() {
        assert_eq!(Info::default().to_string(), "info");
        let info = Info {
            string: Some("NNUE evaluation using nn.bin".to_owned()),
            ..Info::default()
        };
        assert_eq!(info.to_string(), "info string NNUE evaluation using nn.bin");
        let broken = Info {
            string: Some("line one\r\nline two\nend".to_owned()),
            ..Info::default()
        };
        assert_eq!(broken.to_string(), "info string line one  line two end");
    }

    #[test]
    fn info_hashfull_and_tbhits_alone() {
        let info = Info {
            hashfull: Some(0),
            tbhits: Some(0),
            ..Info::default()
        };
        assert_eq!(info.to_string(), "info hashfull 0 tbhits 0");
    }

    #[test]
    fn option_lines() {
        assert_eq!(
            option_line(
                "Hash",
                &OptionKind::Spin {
                    default: 16,
                    min: 1,
                    max: 33_554_432
                }
            ),
            "option name Hash type spin default 16 min 1 max 33554432"
        );
        assert_eq!(
            option_line(
                "Contempt",
                &OptionKind::Spin {
                    default: 0,
                    min: -100,
                    max: 100
                }
            ),
            "option name Contempt type spin default 0 min -100 max 100"
        );
        assert_eq!(
            option_line("Ponder", &OptionKind::Check { default: false }),
            "option name Ponder type check default false"
        );
        assert_eq!(
            option_line("UCI_Chess960", &OptionKind::Check { default: true }),
            "option name UCI_Chess960 type check default true"
        );
        assert_eq!(
            option_line("Clear Hash", &OptionKind::Button),
            "option name Clear Hash type button"
        );
        assert_eq!(
            option_line(
                "Style",
                &OptionKind::Combo {
                    default: "Normal".to_owned(),
                    vars: moves(&["Solid", "Normal", "Risky"])
                }
            ),
            "option name Style type combo default Normal var Solid var Normal var Risky"
        );
        assert_eq!(
            option_line(
                "Book File",
                &OptionKind::String {
                    default: "book.bin".to_owned()
                }
            ),
            "option name Book File type string default book.bin"
        );
    }

    #[test]
    fn empty_string_defaults_are_spelled_out() {
        assert_eq!(
            option_line(
                "SyzygyPath",
                &OptionKind::String {
                    default: String::new()
                }
            ),
            "option name SyzygyPath type string default <empty>"
        );
        assert_eq!(
            option_line(
                "SyzygyPath",
                &OptionKind::String {
                    default: "  ".to_owned()
                }
            ),
            "option name SyzygyPath type string default <empty>"
        );
        assert_eq!(
            option_line(
                "Mode",
                &OptionKind::Combo {
                    default: String::new(),
                    vars: moves(&["A"])
                }
            ),
            "option name Mode type combo default <empty> var A"
        );
    }

    #[test]
    fn option_text_stays_on_one_line() {
        assert_eq!(
            option_line(
                "Path",
                &OptionKind::String {
                    default: "a\nb".to_owned()
                }
            ),
            "option name Path type string default a b"
        );
    }

    #[test]
    fn bestmove_lines() {
        assert_eq!(bestmove_line(Some("e2e4"), None), "bestmove e2e4");
        assert_eq!(
            bestmove_line(Some("e2e4"), Some("e7e5")),
            "bestmove e2e4 ponder e7e5"
        );
        assert_eq!(
            bestmove_line(Some("e7e8q"), Some("a7a8n")),
            "bestmove e7e8q ponder a7a8n"
        );
        assert_eq!(bestmove_line(None, None), "bestmove 0000");
        assert_eq!(bestmove_line(None, Some("e7e5")), "bestmove 0000");
    }
}
