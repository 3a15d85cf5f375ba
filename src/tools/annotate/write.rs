//! Writing a game as PGN: the tags one a line, then the movetext in lines
//! of at most 80 columns (the export format's), moves in SAN, NAGs as
//! `$n`, comments in braces, variations in parentheses, move numbers where
//! the export format wants them (`12...` for Black after a break).
//!
//! A line never starts with `%` (an escape line to readers) or with `[`
//! (where readers look for tags): a comment word that would is kept with
//! the word before it, as `[%eval ...]` commands are kept whole.

use crate::tools::pgn::{Game, Line};

/// The longest line of movetext.
pub const WIDTH: usize = 80;

/// Escapes a tag value (`\` and `"`).
fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The game as PGN, ending with a blank line.
pub fn game_pgn(game: &Game) -> String {
    let mut out = String::new();
    for (name, value) in &game.tags {
        out.push_str(&format!("[{name} \"{}\"]\n", escape(value)));
    }
    if !game.tags.is_empty() {
        out.push('\n');
    }
    let mut mt = Movetext::default();
    let first_ply = ply_of(&game.start);
    mt.line(&game.main, first_ply);
    for c in &game.end_comments {
        mt.comment(c);
    }
    mt.word(game.result());
    for line in mt.wrap() {
        out.push_str(&line);
        out.push('\n');
    }
    out.push('\n');
    out
}

/// The number of half-moves before a position, counted from move 1 (the
/// parity says who is to move).
pub fn ply_of(pos: &crate::engine::chess::Position) -> u64 {
    let black = u64::from(pos.side_to_move() == crate::engine::chess::Color::Black);
    2 * u64::from(pos.fullmove_number().saturating_sub(1)) + black
}

/// Units of movetext, each written whole on one line.
#[derive(Default)]
struct Movetext {
    units: Vec<String>,
    /// After `(`: the next unit joins it without a space.
    glue: bool,
}

impl Movetext {
    fn word(&mut self, w: &str) {
        match self.units.last_mut() {
            Some(last) if self.glue => last.push_str(w),
            _ => self.units.push(w.to_string()),
        }
        self.glue = false;
    }

    /// Appends to the last unit, after a space.
    fn join(&mut self, w: &str) {
        match self.units.last_mut() {
            Some(last) if !self.glue => {
                last.push(' ');
                last.push_str(w);
            }
            _ => self.word(w),
        }
    }

    fn comment(&mut self, text: &str) {
        let words = comment_words(text);
        let Some((first, rest)) = words.split_first() else {
            self.word("{ }");
            return;
        };
        self.word(&format!("{{ {first}"));
        for w in rest {
            if w.starts_with(['[', '%']) {
                self.join(w);
            } else {
                self.word(w);
            }
        }
        self.word("}");
    }

    fn line(&mut self, line: &Line, first_ply: u64) {
        for c in &line.comments {
            self.comment(c);
        }
        for n in &line.nags {
            self.word(&format!("${n}"));
        }
        // The first move of a line is numbered, and so is one after a
        // comment or a variation.
        let mut numbered = true;
        for (i, node) in line.nodes.iter().enumerate() {
            let ply = first_ply + i as u64;
            // A move stays on the line of its number.
            if ply.is_multiple_of(2) {
                self.word(&format!("{}. {}", ply / 2 + 1, node.san));
            } else if numbered {
                self.word(&format!("{}... {}", ply / 2 + 1, node.san));
            } else {
                self.word(&node.san);
            }
            for n in &node.nags {
                self.word(&format!("${n}"));
            }
            numbered = false;
            for c in &node.comments {
                self.comment(c);
                numbered = true;
            }
            for v in &node.variations {
                self.word("(");
                self.glue = true;
                self.line(v, ply);
                if let Some(last) = self.units.last_mut() {
                    last.push(')');
                }
                self.glue = false;
                numbered = true;
            }
        }
    }

    /// The units in lines of at most [`WIDTH`] columns (a longer unit
    /// stands alone).
    fn wrap(&self) -> Vec<String> {
        let mut lines = Vec::new();
        let mut cur = String::new();
        let mut width = 0;
        for u in &self.units {
            let w = u.chars().count();
            if width > 0 && width + 1 + w > WIDTH {
                lines.push(std::mem::take(&mut cur));
                width = 0;
            }
            if width > 0 {
                cur.push(' ');
                width += 1;
            }
            cur.push_str(u);
            width += w;
        }
        if !cur.is_empty() {
            lines.push(cur);
        }
        lines
    }
}

/// A comment's words, a `[%command ...]` kept as one.
fn comment_words(text: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut open = false;
    for w in text.split_whitespace() {
        match words.last_mut() {
            Some(last) if open => {
                last.push(' ');
                last.push_str(w);
            }
            _ => words.push(w.to_string()),
        }
        if w.starts_with("[%") {
            open = true;
        }
        if open && w.contains(']') {
            open = false;
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::pgn::read_games;

    fn round_trip(text: &str) -> String {
        let games = read_games(text.as_bytes()).unwrap();
        games
            .iter()
            .map(|g| game_pgn(g.as_ref().unwrap()))
            .collect()
    }

    #[test]
    fn writes_what_it_read() {
        let text = "[Event \"A \\\"B\\\"\"]\n[Site \"?\"]\n\n\
                    {Start} 1. e4 $1 {Good [%clk 0:01:00]} (1. d4 d5 (1... Nf6) 2. c4) \
                    1... e5 2. Nf3 Nc6 $6 {A comment} 3. Bb5 1-0\n";
        let out = round_trip(text);
        assert_eq!(
            out,
            "[Event \"A \\\"B\\\"\"]\n[Site \"?\"]\n\n\
             { Start } 1. e4 $1 { Good [%clk 0:01:00] } (1. d4 d5 (1... Nf6) 2. c4) 1... e5\n\
             2. Nf3 Nc6 $6 { A comment } 3. Bb5 1-0\n\n"
        );
        // What it writes, it reads back the same.
        assert_eq!(round_trip(&out), out);
    }

    #[test]
    fn lines_are_wrapped_and_never_start_with_a_bracket() {
        let moves = "1. Nf3 Nf6 2. Ng1 Ng8 ".repeat(12);
        let text = format!(
            "[Event \"x\"]\n\n{moves} {{ a long comment with [%eval 0.25] and [%clk 1:00:00] \
             in it, and %50 too, a long comment with words and more words and words }} *\n"
        );
        let out = round_trip(&text);
        let movetext: Vec<&str> = out.lines().skip(2).filter(|l| !l.is_empty()).collect();
        assert!(movetext.len() > 3, "{out}");
        for l in &movetext {
            assert!(l.chars().count() <= WIDTH, "{l}");
            assert!(!l.starts_with(['[', '%']), "{l}");
        }
        assert!(
            out.contains("[%eval 0.25]") && out.contains("[%clk 1:00:00]"),
            "{out}"
        );
        assert_eq!(round_trip(&out), out);
    }

    #[test]
    fn black_first_and_numbers_after_breaks() {
        let text = "[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 7\"]\n\n7... Kd7 {x} 8. e4 Ke6 (8... Kd6 9. e5+) 9. Kf2 *";
        let out = round_trip(text);
        assert!(
            out.ends_with("7... Kd7 { x } 8. e4 Ke6 (8... Kd6 9. e5+) 9. Kf2 *\n\n"),
            "{out}"
        );
    }
}
