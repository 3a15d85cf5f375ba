//! Staged move ordering: the hash move before anything is generated, then
//! captures and promotions that do not lose material (by victim and
//! attacker), then killers, then the quiet moves by history, and last the
//! captures that lose material by static exchange. Quiescence gets only the
//! captures that do not lose material.

use super::history::{ContIndex, Histories};
use super::params::Params;
use super::see::{SEE_VALUE, see_ge};
use crate::engine::chess::{Move, MoveList, Position};
use arrayvec::ArrayVec;

/// Puts quiet checks ahead of every other quiet move (histories stay
/// within +-3 * HISTORY_MAX), unless they lose more than
/// `mp_check_see_margin` by static exchange.
const CHECK_BONUS: i32 = 1 << 20;

#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Stage {
    TtMove,
    GenNoisy,
    Noisy,
    Killers,
    Counter,
    GenQuiet,
    Quiet,
    BadNoisy,
    Done,
}

pub struct MovePicker {
    stage: Stage,
    tt_move: Move,
    killers: [Move; 2],
    killer_idx: usize,
    counter: Move,
    conts: ContIndex,
    list: MoveList,
    scores: [i32; 256],
    idx: usize,
    /// Quiescence: noisy moves only (unless in check, when every evasion counts).
    noisy_only: bool,
    /// Set by late-move pruning: no more quiet moves are wanted.
    skip_quiets: bool,
    /// In check: all evasions come from one list in the quiet stage.
    evasions: bool,
    /// Captures that lose material, tried after the quiet moves.
    bad_noisy: ArrayVec<Move, 64>,
    bad_idx: usize,
    /// `Params::mp_check_see_margin` and `mp_noisy_hist_divisor`.
    check_see_margin: i32,
    noisy_hist_divisor: i32,
}

impl MovePicker {
    pub fn new(
        pos: &Position,
        tt_move: Move,
        killers: [Move; 2],
        counter: Move,
        conts: ContIndex,
        params: &Params,
    ) -> MovePicker {
        MovePicker {
            stage: if !tt_move.is_null() && pos.is_legal(tt_move) {
                Stage::TtMove
            } else {
                Stage::GenNoisy
            },
            tt_move,
            killers,
            killer_idx: 0,
            counter,
            conts,
            list: MoveList::new(),
            scores: [0; 256],
            idx: 0,
            noisy_only: false,
            skip_quiets: false,
            evasions: false,
            bad_noisy: ArrayVec::new(),
            bad_idx: 0,
            check_see_margin: params.mp_check_see_margin,
            noisy_hist_divisor: params.mp_noisy_hist_divisor,
        }
    }

    /// Stops handing out quiet moves (captures and promotions still come).
    pub fn skip_quiets(&mut self) {
        self.skip_quiets = true;
    }

    /// For quiescence: captures and promotions, or all evasions in check.
    pub fn new_qsearch(pos: &Position, tt_move: Move, params: &Params) -> MovePicker {
        let mut mp = MovePicker::new(pos, tt_move, [Move::NULL; 2], Move::NULL, [None; 2], params);
        mp.noisy_only = !pos.in_check();
        if mp.noisy_only
            && mp.stage == Stage::TtMove
            && !pos.is_capture(tt_move)
            && tt_move.promo().is_none()
        {
            mp.stage = Stage::GenNoisy;
        }
        mp
    }

    /// Most valuable victim first, then by capture history, then least
    /// valuable attacker.
    fn score_noisy(&mut self, pos: &Position, hist: &Histories) {
        for (i, &m) in self.list.iter().enumerate() {
            let victim = pos.captured(m).map_or(0, |k| SEE_VALUE[k.index()]);
            let attacker = pos
                .piece_at(m.from())
                .map_or(0, |p| p.kind().index() as i32);
            let promo = m.promo().map_or(0, |k| SEE_VALUE[k.index()]);
            self.scores[i] =
                16 * (victim + promo) + hist.noisy(pos, m) / self.noisy_hist_divisor - attacker;
        }
    }

    /// History, with direct checks first: they find mates that late-move
    /// pruning would otherwise cut away.
    fn score_quiet(&mut self, pos: &Position, hist: &Histories) {
        let checks = pos.check_info().squares;
        for (i, &m) in self.list.iter().enumerate() {
            let checking = pos
                .piece_at(m.from())
                .is_some_and(|p| checks[p.kind().index()].has(m.to()))
                && see_ge(pos, m, -self.check_see_margin);
            self.scores[i] =
                hist.quiet(pos, m, &self.conts) + if checking { CHECK_BONUS } else { 0 };
        }
    }

    /// Takes the best-scored remaining move (selection sort: most nodes cut
    /// off after a few moves, so sorting the whole list would be waste).
    fn take_best(&mut self) -> Option<Move> {
        let n = self.list.len();
        if self.idx >= n {
            return None;
        }
        let mut best = self.idx;
        for i in self.idx + 1..n {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        self.list.swap(self.idx, best);
        self.scores.swap(self.idx, best);
        let m = self.list[self.idx];
        self.idx += 1;
        Some(m)
    }

    pub fn next(&mut self, pos: &Position, hist: &Histories) -> Option<Move> {
        loop {
            match self.stage {
                Stage::TtMove => {
                    self.stage = Stage::GenNoisy;
                    return Some(self.tt_move);
                }
                Stage::GenNoisy => {
                    self.list = if self.noisy_only || !pos.in_check() {
                        pos.noisy_moves()
                    } else {
                        pos.legal_moves()
                    };
                    self.idx = 0;
                    if self.noisy_only || !pos.in_check() {
                        self.score_noisy(pos, hist);
                        self.stage = Stage::Noisy;
                    } else {
                        // In check: all evasions in one list, captures first.
                        self.score_evasions(pos, hist);
                        self.evasions = true;
                        self.stage = Stage::Quiet;
                    }
                }
                Stage::Noisy => {
                    while let Some(m) = self.take_best() {
                        if m == self.tt_move {
                            continue;
                        }
                        if !see_ge(pos, m, 0) {
                            // Quiescence drops losing captures; the main
                            // search tries them last.
                            if !self.noisy_only {
                                let _ = self.bad_noisy.try_push(m);
                            }
                            continue;
                        }
                        return Some(m);
                    }
                    self.stage = if self.noisy_only {
                        Stage::Done
                    } else {
                        Stage::Killers
                    };
                }
                Stage::Killers => {
                    if self.skip_quiets {
                        self.stage = Stage::BadNoisy;
                        continue;
                    }
                    while self.killer_idx < 2 {
                        let k = self.killers[self.killer_idx];
                        self.killer_idx += 1;
                        if !k.is_null()
                            && k != self.tt_move
                            && !pos.is_capture(k)
                            && k.promo().is_none()
                            && pos.is_legal(k)
                        {
                            return Some(k);
                        }
                    }
                    self.stage = Stage::Counter;
                }
                Stage::Counter => {
                    self.stage = Stage::GenQuiet;
                    let c = self.counter;
                    if !self.skip_quiets
                        && !c.is_null()
                        && c != self.tt_move
                        && !self.killers.contains(&c)
                        && !pos.is_capture(c)
                        && c.promo().is_none()
                        && pos.is_legal(c)
                    {
                        return Some(c);
                    }
                }
                Stage::GenQuiet => {
                    if self.skip_quiets {
                        self.stage = Stage::BadNoisy;
                        continue;
                    }
                    self.list = pos.quiet_moves();
                    self.idx = 0;
                    self.score_quiet(pos, hist);
                    self.stage = Stage::Quiet;
                }
                Stage::Quiet => {
                    if !self.skip_quiets || self.evasions {
                        while let Some(m) = self.take_best() {
                            // In check the killers were not tried separately.
                            if m != self.tt_move
                                && (self.evasions
                                    || (!self.killers.contains(&m) && m != self.counter))
                            {
                                return Some(m);
                            }
                        }
                    }
                    self.stage = Stage::BadNoisy;
                }
                Stage::BadNoisy => {
                    if let Some(&m) = self.bad_noisy.get(self.bad_idx) {
                        self.bad_idx += 1;
                        return Some(m);
                    }
                    self.stage = Stage::Done;
                }
                Stage::Done => return None,
            }
        }
    }

    fn score_evasions(&mut self, pos: &Position, hist: &Histories) {
        for (i, &m) in self.list.iter().enumerate() {
            self.scores[i] = match pos.captured(m) {
                Some(k) => 1_000_000 + 16 * SEE_VALUE[k.index()],
                None => hist.quiet(pos, m, &self.conts),
            };
        }
    }
}
