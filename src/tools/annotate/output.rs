//! What an analysed game becomes: the game itself with evaluations, marks,
//! better lines and a summary added (written as PGN by `write.rs`), or one
//! JSON object (schema in docs/command-line.md).

use super::analysis::{Eval, Judgement, Mark, eval_command, judge, white_score};
use crate::engine::chess::{Color, Move, Position};
use crate::engine::score::wdl::{normalise, wdl};
use crate::engine::search::mate_in;
use crate::tools::pgn::{Game, Line, Node};
use serde::{Serialize, Serializer};

/// The judgement of every move of the main line; `evals` holds one
/// evaluation per position, the start's first.
pub fn judge_game(game: &Game, evals: &[Eval]) -> Vec<Judgement> {
    game.main
        .nodes
        .iter()
        .zip(evals.windows(2))
        .map(|(node, pair)| judge(&pair[0], &pair[1], node.mv))
        .collect()
}

/// One side's figures for a game.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Side {
    pub moves: u32,
    /// Average centipawn loss, rounded.
    pub acpl: u32,
    pub inaccuracies: u32,
    pub mistakes: u32,
    pub blunders: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    pub white: Side,
    pub black: Side,
}

pub fn summary(game: &Game, judgements: &[Judgement]) -> Summary {
    let mut sides = [Side::default(), Side::default()];
    let mut cpl = [0u64; 2];
    let mut stm = game.start.side_to_move();
    for j in judgements {
        let i = stm.index();
        sides[i].moves += 1;
        cpl[i] += j.cpl as u64;
        match j.mark {
            Some(Mark::Inaccuracy) => sides[i].inaccuracies += 1,
            Some(Mark::Mistake) => sides[i].mistakes += 1,
            Some(Mark::Blunder) => sides[i].blunders += 1,
            None => {}
        }
        stm = stm.flip();
    }
    for (side, total) in sides.iter_mut().zip(cpl) {
        if side.moves > 0 {
            side.acpl = ((total as f64) / f64::from(side.moves)).round() as u32;
        }
    }
    let [white, black] = sides;
    Summary { white, black }
}

impl Summary {
    /// The comment at the end of an annotated game.
    pub fn comment(&self) -> String {
        let side = |name: &str, s: &Side| {
            format!(
                "{name}: average centipawn loss {}, inaccuracies {}, mistakes {}, blunders {}.",
                s.acpl, s.inaccuracies, s.mistakes, s.blunders
            )
        };
        format!(
            "{} {}",
            side("White", &self.white),
            side("Black", &self.black)
        )
    }
}

/// The comment text without its `[%eval ...]` commands (ours replace them).
fn without_eval(comment: &str) -> String {
    let mut out = String::new();
    let mut rest = comment;
    while let Some(i) = rest.find("[%eval") {
        out.push_str(&rest[..i]);
        rest = match rest[i..].find(']') {
            Some(j) => &rest[i + j + 1..],
            None => "",
        };
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A line of the engine from `pos` as a variation, its first move carrying
/// the line's evaluation.
fn engine_variation(pos: &Position, pv: &[Move], score: i32) -> Line {
    let mut p = pos.clone();
    let mut nodes = Vec::new();
    for &m in pv {
        nodes.push(Node {
            mv: m,
            san: p.san(m),
            nags: Vec::new(),
            comments: Vec::new(),
            variations: Vec::new(),
        });
        p.play(m);
    }
    if let Some(first) = nodes.first_mut() {
        // After the line's first move, the line's score is the mover's.
        first.comments.push(eval_command(score, pos.side_to_move()));
    }
    Line {
        comments: Vec::new(),
        nags: Vec::new(),
        nodes,
    }
}

/// Adds the analysis to the game: `[Annotator]`, after each move of the
/// main line its evaluation (replacing any `[%eval]` it had), for a marked
/// move the mark (unless the move already has a move-quality NAG, `$1` to
/// `$6`, which is kept), a word on it and the engine's better lines, and a
/// summary after the last move.
pub fn annotate(game: &mut Game, evals: &[Eval], judgements: &[Judgement]) {
    game.set_tag(
        "Annotator",
        &format!("Forsyth {}", env!("CARGO_PKG_VERSION")),
    );
    let summary = summary(game, judgements);
    let positions = game.positions();
    for (i, node) in game.main.nodes.iter_mut().enumerate() {
        let (before, after) = (&evals[i], &evals[i + 1]);
        let j = &judgements[i];
        node.comments = node
            .comments
            .iter()
            .map(|c| without_eval(c))
            .filter(|c| !c.is_empty())
            .collect();
        let mut comment = eval_command(after.score, positions[i + 1].side_to_move());
        if let Some(mark) = j.mark {
            if !node.nags.iter().any(|n| (1..=6).contains(n)) {
                node.nags.push(mark.nag());
            }
            if let Some(best) = before.best {
                comment.push_str(&format!(
                    " {}. {} was best.",
                    mark.word(),
                    positions[i].san(best)
                ));
            }
            // The engine's lines that beat the move played, the best first.
            let played = -after.score;
            for line in &before.lines {
                let Some(&first) = line.pv.first() else {
                    continue;
                };
                let known = node
                    .variations
                    .iter()
                    .any(|v| v.nodes.first().is_some_and(|n| n.mv == first));
                if first != node.mv && line.score > played && !known {
                    node.variations
                        .push(engine_variation(&positions[i], &line.pv, line.score));
                }
            }
        }
        node.comments.push(comment);
    }
    if !game.main.nodes.is_empty() {
        game.end_comments.push(summary.comment());
    }
}

/// A score as JSON: `{"cp": 34}` or `{"mate": -3}`, from White's view
/// (`{"mate": 0}`: mated, the WDL says who).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ScoreJson {
    Cp(i32),
    Mate(i32),
}

impl ScoreJson {
    pub fn new(score: i32, stm: Color) -> ScoreJson {
        let white = white_score(score, stm);
        match mate_in(white) {
            Some(mate) => ScoreJson::Mate(mate),
            None => ScoreJson::Cp(normalise(white)),
        }
    }
}

/// Win, draw, loss per mille from White's view.
fn white_wdl(score: i32, stm: Color) -> [u32; 3] {
    let (w, d, l) = wdl(score);
    if stm == Color::White {
        [w, d, l]
    } else {
        [l, d, w]
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct LineJson {
    pub score: ScoreJson,
    pub wdl: [u32; 3],
    pub san: Vec<String>,
    pub uci: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct PlyJson {
    pub ply: usize,
    pub move_number: u32,
    pub color: &'static str,
    pub san: String,
    pub uci: String,
    pub eval_before: ScoreJson,
    pub eval_after: ScoreJson,
    pub wdl_before: [u32; 3],
    pub wdl_after: [u32; 3],
    pub loss: f64,
    pub cpl: i32,
    pub mark: Option<&'static str>,
    pub forced: bool,
    pub best: Option<String>,
    pub best_uci: Option<String>,
    pub best_line: Vec<String>,
    pub best_line_uci: Vec<String>,
    pub lines: Vec<LineJson>,
    pub depth: u32,
}

/// Tags as a JSON object, in the game's order (a repeated name: the last).
#[derive(Clone, Debug)]
pub struct Tags(pub Vec<(String, String)>);

impl Serialize for Tags {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let last = |i: usize, name: &str| !self.0[i + 1..].iter().any(|(n, _)| n == name);
        s.collect_map(
            self.0
                .iter()
                .enumerate()
                .filter(|(i, (n, _))| last(*i, n))
                .map(|(_, (n, v))| (n, v)),
        )
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct GameJson {
    pub game: usize,
    pub tags: Tags,
    pub fen: String,
    pub chess960: bool,
    pub result: String,
    pub plies: Vec<PlyJson>,
    pub summary: Summary,
}

fn sans(pos: &Position, moves: &[Move]) -> Vec<String> {
    let mut p = pos.clone();
    moves
        .iter()
        .map(|&m| {
            let s = p.san(m);
            p.play(m);
            s
        })
        .collect()
}

pub fn game_json(game: &Game, evals: &[Eval], judgements: &[Judgement]) -> GameJson {
    let positions = game.positions();
    let uci = |m: Move| m.uci(game.chess960).to_string();
    let first_ply = super::write::ply_of(&game.start) as usize;
    let plies = game
        .main
        .nodes
        .iter()
        .enumerate()
        .map(|(i, node)| {
            let (pos, next) = (&positions[i], &positions[i + 1]);
            let (before, after) = (&evals[i], &evals[i + 1]);
            let j = &judgements[i];
            let (stm, them) = (pos.side_to_move(), next.side_to_move());
            let best_line = before.best_line();
            PlyJson {
                ply: first_ply + i + 1,
                move_number: pos.fullmove_number(),
                color: if stm == Color::White {
                    "white"
                } else {
                    "black"
                },
                san: node.san.clone(),
                uci: uci(node.mv),
                eval_before: ScoreJson::new(before.score, stm),
                eval_after: ScoreJson::new(after.score, them),
                wdl_before: white_wdl(before.score, stm),
                wdl_after: white_wdl(after.score, them),
                loss: (j.loss * 1000.0).round() / 1000.0,
                cpl: j.cpl,
                mark: j.mark.map(Mark::symbol),
                forced: j.forced,
                best: before.best.map(|m| pos.san(m)),
                best_uci: before.best.map(uci),
                best_line: sans(pos, best_line),
                best_line_uci: best_line.iter().map(|&m| uci(m)).collect(),
                lines: before
                    .lines
                    .iter()
                    .map(|l| LineJson {
                        score: ScoreJson::new(l.score, stm),
                        wdl: white_wdl(l.score, stm),
                        san: sans(pos, &l.pv),
                        uci: l.pv.iter().map(|&m| uci(m)).collect(),
                    })
                    .collect(),
                depth: before.depth,
            }
        })
        .collect();
    GameJson {
        game: game.number,
        tags: Tags(game.tags.clone()),
        fen: game.start.fen(),
        chess960: game.chess960,
        result: game.result().to_string(),
        plies,
        summary: summary(game, judgements),
    }
}

#[cfg(test)]
mod tests {
    use super::super::analysis::EngineLine;
    use super::super::write::game_pgn;
    use super::*;
    use crate::engine::score::wdl::WDL_A;
    use crate::tools::pgn::read_games;

    fn game(text: &str) -> Game {
        read_games(text.as_bytes()).unwrap().remove(0).unwrap()
    }

    /// An evaluation whose best line is `line` (SAN from `pos`).
    fn eval(pos: &Position, score: i32, line: &[&str]) -> Eval {
        let mut p = pos.clone();
        let pv: Vec<Move> = line
            .iter()
            .map(|s| {
                let m = p.parse_san(s).unwrap();
                p.play(m);
                m
            })
            .collect();
        Eval {
            score,
            best: pv.first().copied(),
            lines: if pv.is_empty() {
                Vec::new()
            } else {
                vec![EngineLine { score, pv }]
            },
            depth: 5,
            nodes: 100,
            legal: pos.count_legal(),
        }
    }

    #[test]
    fn marks_lines_and_the_summary_go_into_the_game() {
        // 2. Qh5 and 3. Qh4 each throw three pawns away: the first gets
        // $4, the second keeps its own `!` ($1); both get the engine's line,
        // but not twice (2. Nc3 is there already). 2... Nc6 gives the three
        // pawns back, but it is the engine's own move: no mark. The old
        // `[%eval]` goes, the rest of its comment stays.
        let mut g = game(
            "[Event \"x\"]\n\n1. e4 e5 2. Qh5 { [%eval 0.1] plan } (2. Nc3 Nf6) Nc6 \
             3. Qh4 $1 Nf6 *",
        );
        let p = g.positions();
        // n pawns as the user reads them: the raw score that normalises to n
        // (rounded, so that it does not hang on WDL_A being a whole number).
        let pawns = |n: f64| (n * WDL_A).round() as i32;
        let evals = vec![
            eval(&p[0], 0, &["e4", "e5"]),
            eval(&p[1], 0, &["e5", "Nf3"]),
            eval(&p[2], 0, &["Nc3", "Nf6"]),
            eval(&p[3], pawns(3.0), &["Nc6"]),
            eval(&p[4], 0, &["Nf3", "d6"]),
            eval(&p[5], pawns(3.0), &["Nf6"]),
            eval(&p[6], -pawns(3.0), &["Nf3"]),
        ];
        let js = judge_game(&g, &evals);
        let marks: Vec<Option<Mark>> = js.iter().map(|j| j.mark).collect();
        assert_eq!(
            marks,
            [
                None,
                None,
                Some(Mark::Blunder),
                None,
                Some(Mark::Blunder),
                None
            ]
        );
        annotate(&mut g, &evals, &js);
        let out = game_pgn(&g);
        assert_eq!(
            out,
            format!(
                "[Event \"x\"]\n[Annotator \"Forsyth {}\"]\n\n\
                 1. e4 {{ [%eval 0.00] }} 1... e5 {{ [%eval 0.00] }} 2. Qh5 $4 {{ plan }}\n\
                 {{ [%eval -3.00] Blunder. Nc3 was best. }} (2. Nc3 Nf6) 2... Nc6 {{ [%eval 0.00] }}\n\
                 3. Qh4 $1 {{ [%eval -3.00] Blunder. Nf3 was best. }} (3. Nf3 {{ [%eval 0.00] }}\n\
                 3... d6) 3... Nf6 {{ [%eval -3.00] }} {{ White: average centipawn loss 200,\n\
                 inaccuracies 0, mistakes 0, blunders 2. Black: average centipawn loss 100,\n\
                 inaccuracies 0, mistakes 0, blunders 0. }} *\n\n",
                env!("CARGO_PKG_VERSION")
            )
        );
        let s = summary(&g, &js);
        assert_eq!(
            (s.white.moves, s.white.acpl, s.black.moves, s.black.acpl),
            (3, 200, 3, 100)
        );
    }

    #[test]
    fn old_evals_are_replaced() {
        assert_eq!(without_eval("[%eval 0.3] [%clk 0:01:00]"), "[%clk 0:01:00]");
        assert_eq!(without_eval("good [%eval #-2,20] move"), "good move");
        assert_eq!(without_eval("[%eval 0.3"), "");
    }

    #[test]
    fn tags_keep_their_order() {
        let t = Tags(vec![
            ("White".into(), "b".into()),
            ("Event".into(), "x".into()),
            ("White".into(), "c".into()),
        ]);
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            r#"{"Event":"x","White":"c"}"#
        );
        let s = ScoreJson::new(-crate::engine::search::MATE + 4, Color::White);
        assert_eq!(serde_json::to_string(&s).unwrap(), r#"{"mate":-2}"#);
        let s = ScoreJson::new(0, Color::Black);
        assert_eq!(serde_json::to_string(&s).unwrap(), r#"{"cp":0}"#);
    }
}
