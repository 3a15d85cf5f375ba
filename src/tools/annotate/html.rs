//! `forsyth annotate --html FILE`: the analysed games as one web page,
//! which needs nothing from the network (no scripts, fonts or images from
//! elsewhere): for each game its tags, an evaluation graph, the moves with
//! their marks and better lines, a diagram at every marked move, and each
//! side's figures.
//!
//! The page is XHTML-compatible HTML5 (every element closed, attributes
//! quoted, text escaped), so that an XML parser reads it as well as a
//! browser does; our tests read the graph and the diagrams back that way.
//! Its figures come from the same analysis as the PGN output: the graph's
//! points carry the text of the PGN's `[%eval]` commands in `data-eval`.

use super::analysis::{BLUNDER, Eval, INACCURACY, Judgement, MISTAKE, Mark, eval_command};
use super::output::{Side, summary};
use crate::engine::chess::{Color, Position};
use crate::engine::search::Budget;
use crate::tools::cli::atomic::Pending;
use crate::tools::diagram::{self, Arrow, ArrowKind, Diagram, escape};
use crate::tools::pgn::Game;
use std::fmt::Write;
use std::path::Path;

/// The graph shows evaluations from -5 to +5 pawns; beyond that (and a
/// mate) a point sits on the edge. Past five pawns a game is won, and a
/// wider scale would flatten the differences that decide it.
pub const CLAMP: f64 = 5.0;

/// The graph's size in SVG units, and its plot area inside.
const GRAPH_W: f64 = 720.0;
const GRAPH_H: f64 = 220.0;
const PLOT_LEFT: f64 = 38.0;
const PLOT_RIGHT: f64 = 12.0;
const PLOT_TOP: f64 = 10.0;
const PLOT_BOTTOM: f64 = 26.0;

/// Pixels of a diagram at a marked move.
const DIAGRAM_PX: u32 = 280;

/// The evaluation after a move as the PGN output writes it (`0.34`, `-1.20`,
/// `#3`, `#-2`, `#+0`): the text of its `[%eval]` command.
pub fn eval_text(score: i32, stm: Color) -> String {
    let command = eval_command(score, stm);
    command
        .strip_prefix("[%eval ")
        .and_then(|s| s.strip_suffix(']'))
        .unwrap_or(&command)
        .to_string()
}

/// The value an evaluation text is drawn at, in pawns from White's view,
/// within ±[`CLAMP`]; a mate sits on the edge of the side that mates.
pub fn graph_value(text: &str) -> f64 {
    match text.strip_prefix('#') {
        Some(m) if m.starts_with('-') => -CLAMP,
        Some(_) => CLAMP,
        None => text.parse::<f64>().unwrap_or(0.0).clamp(-CLAMP, CLAMP),
    }
}

/// Where the point after `ply` of `plies` moves is, for a value in pawns.
pub fn graph_point(ply: usize, plies: usize, value: f64) -> (f64, f64) {
    let w = GRAPH_W - PLOT_LEFT - PLOT_RIGHT;
    let h = GRAPH_H - PLOT_TOP - PLOT_BOTTOM;
    let x = PLOT_LEFT + w * ply as f64 / plies.max(1) as f64;
    let y = PLOT_TOP + h * (CLAMP - value) / (2.0 * CLAMP);
    (x, y)
}

fn mark_class(m: Mark) -> &'static str {
    match m {
        Mark::Inaccuracy => "inaccuracy",
        Mark::Mistake => "mistake",
        Mark::Blunder => "blunder",
    }
}

fn mark_colour(m: Mark) -> &'static str {
    match m {
        Mark::Inaccuracy => "#3f8fd2",
        Mark::Mistake => "#e08a00",
        Mark::Blunder => "#d3261b",
    }
}

/// The move's number as written before it: `12.` for White, `12...` for
/// Black.
fn number(pos: &Position) -> String {
    match pos.side_to_move() {
        Color::White => format!("{}.", pos.fullmove_number()),
        Color::Black => format!("{}...", pos.fullmove_number()),
    }
}

/// The evaluation graph of one game as inline SVG.
fn graph(game: &Game, positions: &[Position], evals: &[Eval], judgements: &[Judgement]) -> String {
    let plies = positions.len() - 1;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="graph" viewBox="0 0 {GRAPH_W} {GRAPH_H}" width="{GRAPH_W}" height="{GRAPH_H}" font-family="DejaVu Sans, Arial, Helvetica, sans-serif">"#
    );
    let (left, top) = (PLOT_LEFT, PLOT_TOP);
    let (w, h) = (
        GRAPH_W - PLOT_LEFT - PLOT_RIGHT,
        GRAPH_H - PLOT_TOP - PLOT_BOTTOM,
    );
    let _ = write!(
        out,
        r##"<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="#f7f7f7" stroke="#888"/>"##
    );
    // One line a pawn, the zero line darker, each labelled.
    for pawns in -5..=5 {
        let (_, y) = graph_point(0, plies, f64::from(pawns));
        let (colour, width) = if pawns == 0 {
            ("#666", 1.2)
        } else {
            ("#ddd", 0.8)
        };
        let _ = write!(
            out,
            r#"<line x1="{left}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{colour}" stroke-width="{width}"/>"#,
            left + w
        );
        let label = if pawns > 0 {
            format!("+{pawns}")
        } else {
            pawns.to_string()
        };
        let _ = write!(
            out,
            r##"<text class="axis y" x="{:.1}" y="{:.1}" font-size="11" text-anchor="end" fill="#444">{label}</text>"##,
            left - 5.0,
            y + 4.0
        );
    }
    // Move numbers along the bottom, about ten of them whatever the length.
    let moves = plies.div_ceil(2).max(1);
    let step = [1, 2, 5, 10, 20, 50, 100]
        .into_iter()
        .find(|s| moves / s <= 12)
        .unwrap_or(200);
    for (i, pos) in positions.iter().enumerate() {
        let n = pos.fullmove_number() as usize;
        if pos.side_to_move() != Color::White || !n.is_multiple_of(step) {
            continue;
        }
        let (x, _) = graph_point(i, plies, 0.0);
        let _ = write!(
            out,
            r##"<line x1="{x:.1}" y1="{top}" x2="{x:.1}" y2="{:.1}" stroke="#e4e4e4" stroke-width="0.8"/><text class="axis x" x="{x:.1}" y="{:.1}" font-size="11" text-anchor="middle" fill="#444">{n}</text>"##,
            top + h,
            top + h + 16.0
        );
    }
    let texts: Vec<String> = positions
        .iter()
        .zip(evals)
        .map(|(p, e)| eval_text(e.score, p.side_to_move()))
        .collect();
    let points: Vec<(f64, f64)> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| graph_point(i, plies, graph_value(t)))
        .collect();
    let (_, zero) = graph_point(0, plies, 0.0);
    let mut area = format!("{left:.1},{zero:.1}");
    let mut line = String::new();
    for (x, y) in &points {
        let _ = write!(area, " {x:.1},{y:.1}");
        let _ = write!(line, "{x:.1},{y:.1} ");
    }
    let _ = write!(
        area,
        " {:.1},{zero:.1}",
        points.last().map_or(left, |p| p.0)
    );
    let _ = write!(
        out,
        r##"<polygon points="{area}" fill="#4a78a8" fill-opacity="0.22"/><polyline points="{}" fill="none" stroke="#2b5d8f" stroke-width="1.6" stroke-linejoin="round"/>"##,
        line.trim_end()
    );
    // Every position's point, with its evaluation to read back and to
    // hover over; a marked move's point bigger, in its mark's colour.
    for (i, ((x, y), text)) in points.iter().zip(&texts).enumerate() {
        let what = match i.checked_sub(1) {
            None => "start".to_string(),
            Some(m) => format!(
                "{} {}{}",
                number(&positions[m]),
                game.main.nodes[m].san,
                judgements[m].mark.map_or("", Mark::symbol)
            ),
        };
        let mark = i.checked_sub(1).and_then(|m| judgements[m].mark);
        let (class, r, fill) = match mark {
            Some(m) => (format!("point {}", mark_class(m)), 4.5, mark_colour(m)),
            None => ("point".to_string(), 1.8, "#2b5d8f"),
        };
        let _ = write!(
            out,
            r##"<circle class="{class}" data-ply="{i}" data-eval="{}" cx="{x:.1}" cy="{y:.1}" r="{r}" fill="{fill}" stroke="#fff" stroke-width="0.8"><title>{}: {}</title></circle>"##,
            escape(text),
            escape(&what),
            escape(text)
        );
    }
    out.push_str("</svg>");
    out
}

/// A line of the engine in numbered SAN.
fn line_san(pos: &Position, pv: &[crate::engine::chess::Move]) -> String {
    crate::tools::cli::numbered_san(pos, pv)
}

/// What is said at a marked move: the diagram before it, with the move
/// played in red and the engine's in green, and the better lines.
fn mistake(positions: &[Position], game: &Game, evals: &[Eval], i: usize, mark: Mark) -> String {
    let (pos, node) = (&positions[i], &game.main.nodes[i]);
    let (before, after) = (&evals[i], &evals[i + 1]);
    let mut arrows = Vec::new();
    if let Some(best) = before.best {
        let (from, to) = diagram::move_squares(best);
        arrows.push(Arrow {
            from,
            to,
            kind: ArrowKind::Good,
        });
    }
    let (from, to) = diagram::move_squares(node.mv);
    arrows.push(Arrow {
        from,
        to,
        kind: ArrowKind::Bad,
    });
    let d = Diagram {
        // From the side of the player who went wrong.
        flip: pos.side_to_move() == Color::Black,
        last: i
            .checked_sub(1)
            .map(|p| diagram::move_squares(game.main.nodes[p].mv)),
        arrows,
        pixels: Some(DIAGRAM_PX),
    };
    let played = format!("{} {}{}", number(pos), node.san, mark.symbol());
    let mut out = format!(
        r#"<div class="diagram" data-mark="{}" data-ply="{}">{}<div class="comment"><p><b>{}</b> {}: the evaluation went from {} to {}."#,
        mark_class(mark),
        i + 1,
        diagram::svg(pos, &d),
        escape(&played),
        mark.word(),
        escape(&eval_text(before.score, pos.side_to_move())),
        escape(&eval_text(after.score, positions[i + 1].side_to_move())),
    );
    if let Some(best) = before.best {
        let _ = write!(
            out,
            " {} was best.",
            escape(&format!("{} {}", number(pos), pos.san(best)))
        );
    }
    out.push_str(r#"</p><p class="arrows"><span class="bad">red</span>: the move played; <span class="good">green</span>: the engine's move.</p>"#);
    // The engine's lines that beat the move played, as in the PGN output.
    let beaten = -after.score;
    let better: Vec<String> = before
        .lines
        .iter()
        .filter(|l| l.pv.first().is_some_and(|&m| m != node.mv) && l.score > beaten)
        .map(|l| {
            format!(
                r#"<li><span class="line">{}</span> <span class="eval">{}</span></li>"#,
                escape(&line_san(pos, &l.pv)),
                escape(&eval_text(l.score, pos.side_to_move()))
            )
        })
        .collect();
    if !better.is_empty() {
        let _ = write!(
            out,
            r#"<p>Better:</p><ul class="better">{}</ul>"#,
            better.concat()
        );
    }
    out.push_str("</div></div>");
    out
}

fn side_row(colour: &str, name: &str, s: &Side) -> String {
    format!(
        r#"<tr data-side="{colour}"><th>{}</th><td class="inaccuracies">{}</td><td class="mistakes">{}</td><td class="blunders">{}</td><td class="acpl">{}</td><td class="moves">{}</td></tr>"#,
        escape(name),
        s.inaccuracies,
        s.mistakes,
        s.blunders,
        s.acpl,
        s.moves
    )
}

/// One game's part of the page.
pub fn game_section(game: &Game, evals: &[Eval], judgements: &[Judgement]) -> String {
    let positions = game.positions();
    let tag = |name: &str| game.tag(name).unwrap_or("?").to_string();
    let (white, black) = (tag("White"), tag("Black"));
    let mut out = format!(
        r#"<section class="game" data-game="{}"><h2>{}. {} – {} <span class="result">{}</span></h2>"#,
        game.number,
        game.number,
        escape(&white),
        escape(&black),
        escape(game.result())
    );
    out.push_str(r#"<table class="tags">"#);
    for (name, value) in &game.tags {
        let _ = write!(
            out,
            r#"<tr><th>{}</th><td>{}</td></tr>"#,
            escape(name),
            escape(value)
        );
    }
    out.push_str("</table>");
    if game.main.nodes.is_empty() {
        // No move: nothing to draw or count.
        out.push_str(r#"<p class="moves">No moves.</p></section>"#);
        return out;
    }
    out.push_str(&graph(game, &positions, evals, judgements));
    out.push_str(r#"<p class="note">Evaluation in pawns from White's side after each move, clamped at ±5 (a mate at the edge); dots in colour: <span class="inaccuracy">?! inaccuracy</span>, <span class="mistake">? mistake</span>, <span class="blunder">?? blunder</span>.</p>"#);
    let s = summary(game, judgements);
    out.push_str(r#"<table class="summary"><tr><th></th><th>?! Inaccuracies</th><th>? Mistakes</th><th>?? Blunders</th><th>Average centipawn loss</th><th>Moves</th></tr>"#);
    out.push_str(&side_row("white", &format!("White: {white}"), &s.white));
    out.push_str(&side_row("black", &format!("Black: {black}"), &s.black));
    out.push_str("</table>");
    // The moves, broken by a diagram at each marked move; after a break
    // Black's move gets its own number again, as in a book.
    out.push_str(r#"<div class="moves"><p>"#);
    let mut numbered = true;
    for (i, node) in game.main.nodes.iter().enumerate() {
        let pos = &positions[i];
        let j = &judgements[i];
        if pos.side_to_move() == Color::White || numbered {
            let _ = write!(out, r#"<span class="number">{}</span> "#, number(pos));
        }
        numbered = false;
        let mark = j.mark.map_or(String::new(), |m| {
            format!(r#"<span class="{}">{}</span>"#, mark_class(m), m.symbol())
        });
        let _ = write!(
            out,
            r#"<span class="move" data-ply="{}">{}{mark}</span> <span class="eval">{}</span> "#,
            i + 1,
            escape(&node.san),
            escape(&eval_text(
                evals[i + 1].score,
                positions[i + 1].side_to_move()
            ))
        );
        if let Some(m) = j.mark {
            out.push_str("</p>");
            out.push_str(&mistake(&positions, game, evals, i, m));
            out.push_str("<p>");
            numbered = true;
        }
    }
    let _ = write!(
        out,
        r#"<span class="result">{}</span></p></div></section>"#,
        escape(game.result())
    );
    out
}

const STYLE: &str = "
body { font-family: 'DejaVu Sans', Arial, Helvetica, sans-serif; margin: 1.5em auto; max-width: 760px; padding: 0 1em; color: #222; background: #fff; }
h1 { font-size: 1.4em; }
h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.6em 0; }
table.tags th, table.tags td { text-align: left; padding: 0 0.8em 0 0; font-size: 0.9em; }
table.tags th { color: #666; font-weight: normal; }
table.summary { font-size: 0.9em; }
table.summary th, table.summary td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
table.summary tr th:first-child { text-align: left; }
svg.graph { width: 100%; height: auto; display: block; margin: 0.8em 0 0 0; }
p.note { font-size: 0.8em; color: #555; margin-top: 0.2em; }
.moves p { line-height: 1.7; }
.number { color: #777; }
.move { font-weight: bold; }
.eval { color: #777; font-size: 0.8em; }
span.inaccuracy { color: #3f8fd2; font-weight: bold; }
span.mistake { color: #e08a00; font-weight: bold; }
span.blunder { color: #d3261b; font-weight: bold; }
span.good { color: #1b7f2a; font-weight: bold; }
span.bad { color: #c8281e; font-weight: bold; }
div.diagram { display: flex; gap: 1em; align-items: flex-start; margin: 0.6em 0; padding: 0.6em; background: #f5f3ee; border-radius: 4px; }
div.diagram svg { flex: none; }
div.comment p { margin: 0 0 0.5em 0; }
ul.better { margin: 0; padding: 0; list-style: none; }
ul.better li { margin-bottom: 0.3em; }
footer { margin-top: 3em; font-size: 0.8em; color: #777; }
";

fn budget_text(b: Budget) -> String {
    match b {
        Budget::Depth(d) => format!("depth {d} a position"),
        Budget::Nodes(n) => format!("{n} nodes a position"),
        Budget::MoveTime(ms) => format!("{ms} ms a position"),
    }
}

/// The whole page around the games' sections.
pub fn page(title: &str, sections: &[String], budget: Budget) -> String {
    let mut out = String::from("<!DOCTYPE html>\n");
    let _ = write!(
        out,
        r#"<html xmlns="http://www.w3.org/1999/xhtml" lang="en"><head><meta charset="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/><title>{}</title><style>{STYLE}</style></head><body><h1>{}</h1>"#,
        escape(title),
        escape(title)
    );
    out.push_str(&sections.concat());
    let _ = writeln!(
        out,
        "<footer>Analysed by Forsyth {}, {}. Marks by the expected score the mover lost: ?! {INACCURACY:.2}, ? {MISTAKE:.2}, ?? {BLUNDER:.2}.</footer></body></html>",
        env!("CARGO_PKG_VERSION"),
        budget_text(budget)
    );
    out
}

/// The page being made during a run: its file is created at the start
/// (a folder that cannot be written fails before the analysis), and put
/// in place whole at the end.
pub struct Report {
    file: Pending,
    name: String,
    title: String,
    sections: Vec<String>,
    budget: Budget,
}

impl Report {
    pub fn create(path: &Path, title: &str, budget: Budget) -> Result<Report, String> {
        Ok(Report {
            file: Pending::create(path)?,
            name: path.display().to_string(),
            title: title.to_string(),
            sections: Vec::new(),
            budget,
        })
    }

    /// A game analysed (before `output::annotate` changes it).
    pub fn add(&mut self, game: &Game, evals: &[Eval], judgements: &[Judgement]) {
        self.sections.push(game_section(game, evals, judgements));
    }

    /// Writes the page of the games added; with none (the run was
    /// stopped during the first game), nothing at all.
    pub fn finish(self) -> Result<(), String> {
        if self.sections.is_empty() {
            eprintln!("no game was finished: {} not written", self.name);
            return Ok(());
        }
        let text = page(&self.title, &self.sections, self.budget);
        self.file.commit(text.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::search::MATE;

    #[test]
    fn values_on_the_graph() {
        assert_eq!(graph_value("0.34"), 0.34);
        assert_eq!(graph_value("-12.00"), -CLAMP);
        assert_eq!(graph_value("#3"), CLAMP);
        assert_eq!(graph_value("#-2"), -CLAMP);
        assert_eq!(graph_value("#+0"), CLAMP);
        assert_eq!(graph_value("#-0"), -CLAMP);
        // The plot runs from +5 at the top to -5 at the bottom.
        let top = PLOT_TOP;
        let bottom = GRAPH_H - PLOT_BOTTOM;
        assert_eq!(graph_point(0, 10, CLAMP), (PLOT_LEFT, top));
        assert_eq!(graph_point(10, 10, -CLAMP), (GRAPH_W - PLOT_RIGHT, bottom));
        assert_eq!(graph_point(5, 10, 0.0).1, (top + bottom) / 2.0);
        assert_eq!(eval_text(MATE - 5, Color::Black), "#-3");
        assert_eq!(eval_text(-MATE, Color::White), "#-0");
        assert_eq!(eval_text(0, Color::White), "0.00");
    }
}
