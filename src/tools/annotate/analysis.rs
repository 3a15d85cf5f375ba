//! Searching the positions of a game and judging its moves.
//!
//! Every position of the main line is searched once: the evaluation after
//! move n is the one before move n+1. A move's cost is what the side that
//! played it lost in expected score (win + draw/2, by the WDL model of
//! `src/engine/score/wdl.rs`), as lichess judges by winning chances rather than by
//! centipawns: a pawn thrown away in a won ending costs nothing, the same
//! pawn in a balanced middlegame costs a lot.

use crate::engine::chess::{Color, Move, Position};
use crate::engine::score::wdl::{normalise, wdl};
use crate::engine::search::{
    Budget, Collector, Job, Keep, MATE, MATE_BOUND, SearchOptions, SearchPool, mate_in,
};
use std::sync::Arc;
use std::time::Duration;

/// Expected score lost by a move for `?!` (inaccuracy)...
pub const INACCURACY: f64 = 0.10;
/// ... for `?` (mistake) ...
pub const MISTAKE: f64 = 0.20;
/// ... and for `??` (blunder).
pub const BLUNDER: f64 = 0.30;
/// Centipawn losses are counted up to this (lichess's cap): a mate counts
/// as this much.
pub const CPL_CAP: i32 = 1000;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mark {
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Mark {
    /// The mark for a loss in expected score, if it deserves one.
    pub fn of(loss: f64) -> Option<Mark> {
        if loss >= BLUNDER {
            Some(Mark::Blunder)
        } else if loss >= MISTAKE {
            Some(Mark::Mistake)
        } else if loss >= INACCURACY {
            Some(Mark::Inaccuracy)
        } else {
            None
        }
    }

    /// Its NAG: `$6` `?!`, `$2` `?`, `$4` `??`.
    pub fn nag(self) -> u8 {
        match self {
            Mark::Inaccuracy => 6,
            Mark::Mistake => 2,
            Mark::Blunder => 4,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            Mark::Inaccuracy => "?!",
            Mark::Mistake => "?",
            Mark::Blunder => "??",
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Mark::Inaccuracy => "Inaccuracy",
            Mark::Mistake => "Mistake",
            Mark::Blunder => "Blunder",
        }
    }
}

/// One line of the engine: its score for the side to move, and its moves.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineLine {
    pub score: i32,
    pub pv: Vec<Move>,
}

/// What the search says of a position, for the side to move.
#[derive(Clone, Debug, PartialEq)]
pub struct Eval {
    pub score: i32,
    /// Best first (MultiPV order); empty when the game is over.
    pub lines: Vec<EngineLine>,
    pub best: Option<Move>,
    pub depth: u32,
    pub nodes: u64,
    /// Legal moves in the position.
    pub legal: u64,
}

impl Eval {
    /// The engine's best line (empty when the game is over).
    pub fn best_line(&self) -> &[Move] {
        self.lines.first().map_or(&[], |l| &l.pv[..])
    }
}

/// One search pool for a whole run; its table is kept from one position
/// of a game to the next.
pub struct Analyser {
    pool: SearchPool,
    budget: Budget,
    multipv: usize,
}

impl Analyser {
    pub fn new(
        budget: Budget,
        multipv: usize,
        threads: usize,
        hash_mb: usize,
    ) -> Result<Analyser, String> {
        Ok(Analyser {
            pool: SearchPool::new(hash_mb, threads)?,
            budget,
            multipv: multipv.max(1),
        })
    }

    /// A new game: an empty table and histories, so that each game's
    /// analysis is the same whatever came before it in the file.
    pub fn new_game(&mut self) {
        self.pool.clear();
    }

    /// Searches `pos` (reached through the positions whose keys are
    /// `history`). `poll` is called every 10 ms while the search runs;
    /// when it answers true, the search is stopped and `None` comes back.
    pub fn evaluate(
        &mut self,
        pos: &Position,
        history: &[u64],
        mut poll: impl FnMut() -> bool,
    ) -> Option<Eval> {
        let legal = pos.count_legal();
        if legal == 0 {
            let score = if pos.in_check() { -MATE } else { 0 };
            return Some(Eval {
                score,
                lines: Vec::new(),
                best: None,
                depth: 0,
                nodes: 0,
                legal,
            });
        }
        // A line without a score (the search stopped before any move was
        // scored) says nothing to judge a move by: the last one stands.
        let collector = Arc::new(Collector::new(Keep {
            unscored: false,
            final_lines: true,
        }));
        let job = Job {
            root: pos.clone(),
            history: history.to_vec(),
            limits: self.budget.limits(),
            options: SearchOptions {
                multipv: self.multipv.min(legal as usize),
                move_overhead_ms: 0,
                ..SearchOptions::default()
            },
        };
        self.pool.start(job, collector.clone());
        while !self.pool.wait_timeout(Duration::from_millis(10)) {
            if poll() {
                self.pool.stop();
                self.pool.wait();
                return None;
            }
        }
        let s = collector.latest();
        let mut lines: Vec<EngineLine> = s
            .lines
            .iter()
            .flatten()
            .map(|l| EngineLine {
                score: l.score.unwrap_or_default(),
                pv: legal_prefix(pos, &l.pv),
            })
            .collect();
        let best = s.best;
        // A helper thread's move may win over the main line: then the line
        // is that move alone.
        if let (Some(b), Some(first)) = (best, lines.first_mut())
            && first.pv.first() != Some(&b)
        {
            first.pv = vec![b];
        }
        let depth = s.line(1).map_or(0, |l| l.depth);
        Some(Eval {
            score: lines.first().map_or(0, |l| l.score),
            lines,
            best,
            depth,
            nodes: s.nodes,
            legal,
        })
    }
}

/// The moves of `pv` up to the first that is not legal where it is played.
fn legal_prefix(pos: &Position, pv: &[Move]) -> Vec<Move> {
    let mut p = pos.clone();
    let mut out = Vec::new();
    for &m in pv {
        if !p.is_legal(m) {
            break;
        }
        p.play(m);
        out.push(m);
    }
    out
}

/// The expected score (win + draw/2, from 0 to 1) of a score for the side
/// to move.
pub fn expected(score: i32) -> f64 {
    let (w, d, _) = wdl(score);
    (f64::from(w) + f64::from(d) / 2.0) / 1000.0
}

/// A score in normalised centipawns, within ±[`CPL_CAP`] (mates at the cap).
pub fn capped_cp(score: i32) -> i32 {
    if score >= MATE_BOUND {
        CPL_CAP
    } else if score <= -MATE_BOUND {
        -CPL_CAP
    } else {
        normalise(score).clamp(-CPL_CAP, CPL_CAP)
    }
}

/// How one move fared.
#[derive(Clone, Debug, PartialEq)]
pub struct Judgement {
    /// Expected score the mover lost, from 0 to 1.
    pub loss: f64,
    /// Normalised centipawns the mover lost (at least 0).
    pub cpl: i32,
    pub mark: Option<Mark>,
    /// The only legal move.
    pub forced: bool,
}

/// Judges `played`, from the evaluation of the position before it and of
/// the one after (the latter for the opponent, who is then to move).
/// Neither a forced move nor the engine's own choice is ever marked.
pub fn judge(before: &Eval, after: &Eval, played: Move) -> Judgement {
    let loss = (expected(before.score) - (1.0 - expected(after.score))).max(0.0);
    let cpl = (capped_cp(before.score) + capped_cp(after.score)).max(0);
    let forced = before.legal == 1;
    let mark = if forced || before.best == Some(played) {
        None
    } else {
        Mark::of(loss)
    };
    Judgement {
        loss,
        cpl,
        mark,
        forced,
    }
}

/// A score for the side to move `stm` as White sees it.
pub fn white_score(score: i32, stm: Color) -> i32 {
    if stm == Color::White { score } else { -score }
}

/// The `[%eval ...]` command for a score of the side to move `stm`: pawns
/// from White's view (normalised, so +1.00 is what the engine reports as
/// a pawn), or `#n` moves to mate (negative: Black mates). Once mated, the
/// sign says who: `#-0` White is mated, `#+0` Black is.
pub fn eval_command(score: i32, stm: Color) -> String {
    let white = white_score(score, stm);
    match mate_in(white) {
        Some(0) => format!("[%eval #{}0]", if stm == Color::White { "-" } else { "+" }),
        Some(m) => format!("[%eval #{m}]"),
        None => format!("[%eval {:.2}]", f64::from(normalise(white)) / 100.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::score::wdl::WDL_A;

    fn eval(score: i32, best: Option<Move>, legal: u64) -> Eval {
        Eval {
            score,
            lines: Vec::new(),
            best,
            depth: 1,
            nodes: 1,
            legal,
        }
    }

    #[test]
    fn thresholds() {
        assert_eq!(Mark::of(0.0999), None);
        assert_eq!(Mark::of(0.10), Some(Mark::Inaccuracy));
        assert_eq!(Mark::of(0.2), Some(Mark::Mistake));
        assert_eq!(Mark::of(0.35), Some(Mark::Blunder));
        assert_eq!(
            [Mark::Inaccuracy, Mark::Mistake, Mark::Blunder].map(Mark::nag),
            [6, 2, 4]
        );
    }

    #[test]
    fn judging_by_expected_score() {
        let pos = Position::startpos();
        let e4 = pos.parse_san("e4").unwrap();
        let d4 = pos.parse_san("d4").unwrap();
        // n pawns as the user reads them: the raw score that normalises to n
        // (rounded, so that it does not hang on WDL_A being a whole number).
        let pawns = |n: f64| (n * WDL_A).round() as i32;
        // Equal before, a piece down after (+3 for the opponent): a blunder.
        let j = judge(&eval(0, Some(d4), 20), &eval(pawns(3.0), None, 20), e4);
        assert_eq!(j.mark, Some(Mark::Blunder));
        assert!(j.loss > 0.45 && j.loss < 0.5, "{j:?}");
        assert_eq!(j.cpl, 300);
        // The same three pawns thrown away at +10: nothing is lost.
        let j = judge(
            &eval(pawns(10.0), Some(d4), 20),
            &eval(pawns(-7.0), None, 20),
            e4,
        );
        assert_eq!((j.mark, j.cpl), (None, 300));
        assert!(j.loss < 0.001);
        // The engine's own move, and a forced move, are never marked.
        let j = judge(&eval(0, Some(e4), 20), &eval(pawns(3.0), None, 20), e4);
        assert_eq!(j.mark, None);
        let j = judge(&eval(0, Some(d4), 1), &eval(pawns(3.0), None, 20), e4);
        assert_eq!((j.mark, j.forced), (None, true));
        // A mate in 2 missed for an equal position.
        let j = judge(&eval(MATE - 3, Some(d4), 20), &eval(0, None, 20), e4);
        assert_eq!((j.mark, j.cpl), (Some(Mark::Blunder), 1000));
        assert!((j.loss - 0.5).abs() < 1e-9);
        // Mate in 3 kept as a mate in 4: fine.
        let j = judge(
            &eval(MATE - 5, Some(d4), 20),
            &eval(-MATE + 6, None, 20),
            e4,
        );
        assert_eq!((j.mark, j.cpl, j.loss), (None, 0, 0.0));
    }

    #[test]
    fn eval_commands_from_whites_view() {
        // n pawns as the user reads them: the raw score that normalises to n
        // (rounded, so that it does not hang on WDL_A being a whole number).
        let pawns = |n: f64| (n * WDL_A).round() as i32;
        assert_eq!(eval_command(pawns(1.0), Color::White), "[%eval 1.00]");
        assert_eq!(eval_command(pawns(1.0), Color::Black), "[%eval -1.00]");
        assert_eq!(eval_command(0, Color::Black), "[%eval 0.00]");
        assert_eq!(eval_command(pawns(0.34), Color::White), "[%eval 0.34]");
        // Mate in 3 for the side to move.
        assert_eq!(eval_command(MATE - 5, Color::White), "[%eval #3]");
        assert_eq!(eval_command(MATE - 5, Color::Black), "[%eval #-3]");
        assert_eq!(eval_command(-MATE + 4, Color::White), "[%eval #-2]");
        // Mated.
        assert_eq!(eval_command(-MATE, Color::White), "[%eval #-0]");
        assert_eq!(eval_command(-MATE, Color::Black), "[%eval #+0]");
    }
}
