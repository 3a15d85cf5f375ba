//! Static evaluation: a tapered middlegame/endgame score built from the
//! terms listed in `params.rs`, with the numbers of `values.rs`.
//!
//! The evaluation is written once, generic over an [`Accumulator`] that
//! receives each feature as (side, parameter, count). The search's
//! accumulator multiplies by the values as it goes; the `eval` command's
//! one sorts the result into a table; the tuner's records the counts, so
//! that the tuner and the evaluation can never disagree on what a
//! parameter means.
//!
//! Steps:
//! 1. Pawns: material, placement and structure, which depend on the pawns
//!    alone and are cached by pawn key (`pawns.rs`).
//! 2. Attack maps of both sides, pieces one by one: material, placement,
//!    mobility, outposts, files, and the attacks on the enemy king zone.
//! 3. Passed pawns against the pieces and kings.
//! 4. King safety: pawn shield and storm, then the danger of the attacks.
//! 5. Threats, bishop pair, tempo.
//! 6. Taper by phase, scale the endgame half in drawish endings.
//!
//! # The terms
//!
//! Each is a block of parameters in [`params`]; the `eval` command prints
//! them by side and phase, one row each.
//!
//! - Material and placement: piece-square tables, 64 squares per piece type.
//! - Mobility by piece type and number of safe squares (not attacked by
//!   enemy pawns, not our king or our blocked or unadvanced pawns).
//! - Pawns: isolated, doubled, backward, connected (defended or side by
//!   side) by rank. The pawn-only terms are kept in a per-thread pawn hash
//!   table of 16K entries, by pawn key.
//! - Passed pawns and candidate passers by rank; against the pieces, a free
//!   next square by rank and the distance of each king to that square.
//! - King safety: pawn shield and pawn storm on the king's three files, and
//!   a danger sum (attackers of the king zone by type, attacked zone
//!   squares, safe checks by piece type, weak zone squares, no enemy queen),
//!   counted once two pieces (or a queen) attack, which costs `d²/1024` in
//!   the middlegame and `d·c/1024` in the endgame (`c` learned; 1024 only
//!   fixes the unit of danger, as the units themselves are learned).
//! - Pieces: bishop pair, rooks and queens on open and half-open files,
//!   knight and bishop outposts.
//! - Threats: pieces attacked by pawns, by minors, by rooks; hanging pieces.
//! - Tempo.
//!
//! The phase runs from 0 to [`MAX_PHASE`]: each knight, bishop, rook and
//! queen adds its learned weight, capped at a full board's 240. Five drawish
//! endings ([`Ending`]) scale the endgame half, each by its own learned
//! factor: no pawns and at most a minor piece ahead, with less than a rook
//! (KNK, KBKN) or more (KRKB, KRNKR); opposite-coloured bishops alone or
//! with other pieces; rook endings with all pawns on one wing and at most
//! one pawn ahead. Scores are packed in one `i32`, both halves ([`score`]).
//!
//! Tests check that every one of about 5,000 positions from random games
//! scores exactly as its colour-flipped mirror, and that the tuner's float
//! evaluation equals this one.

pub mod params;
mod pawns;
pub mod score;
pub mod tables;
pub mod values;
pub mod wdl;

use crate::chess::{Bitboard, Color, PieceType, Position, Square, attacks};
use params::*;
pub use score::{Score, s};
use tables::*;
use values::{DANGER_EG, PHASE_WEIGHTS, SCALES, VALUES};

/// The phase of a full board of minors and majors; each knight, bishop,
/// rook and queen adds its weight (`values::PHASE_WEIGHTS`, learned), and
/// the sum is capped here. The unit is fine enough that learned weights
/// need no rounding worth the name (a minor of the hand-set scale is 10).
pub const MAX_PHASE: i32 = 240;
/// The endgame half is multiplied by scale / FULL_SCALE.
pub const FULL_SCALE: i32 = 128;
/// King danger `d` (units) costs `d * d / DANGER_MG_DIV` in the
/// middlegame and `d * values::DANGER_EG / DANGER_MG_DIV` in the endgame.
/// The divisor is the unit of danger, not a choice: the units are
/// learned, and scaling them all by c scales the middlegame cost by c².
pub const DANGER_MG_DIV: i32 = 1024;

/// The drawish endings whose endgame half is scaled down, each by its own
/// learned factor (`values::SCALES`, out of FULL_SCALE).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// No pawns for the stronger side, at most a minor piece ahead, and
    /// less than a rook (KNK, KBK, KNKB).
    BareMinor = 0,
    /// No pawns for the stronger side, at most a minor piece ahead
    /// (KRKB, KRKN, KRNKR).
    PawnlessMinorUp = 1,
    /// Opposite-coloured bishops and pawns only.
    OppositeBishops = 2,
    /// Opposite-coloured bishops with other pieces.
    OppositeBishopsAndPieces = 3,
    /// Rook and pawns each, at most a pawn ahead, all pawns on one wing.
    RookOneWing = 4,
}

impl Ending {
    pub const COUNT: usize = 5;
    pub const ALL: [Ending; Ending::COUNT] = [
        Ending::BareMinor,
        Ending::PawnlessMinorUp,
        Ending::OppositeBishops,
        Ending::OppositeBishopsAndPieces,
        Ending::RookOneWing,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Ending::BareMinor => "bare minor",
            Ending::PawnlessMinorUp => "pawnless, a minor up",
            Ending::OppositeBishops => "opposite bishops",
            Ending::OppositeBishopsAndPieces => "opposite bishops and pieces",
            Ending::RookOneWing => "rooks, pawns on one wing",
        }
    }
}

/// Receives the features of a position.
pub trait Accumulator {
    /// `count` times parameter `param`, for `side`.
    fn add(&mut self, side: Color, param: usize, count: i32);
    /// Pawn-only terms, which may come from the pawn cache: `cached` is
    /// what they sum to (White minus Black) when the accumulator may use
    /// it instead of being told the features one by one.
    fn wants_pawn_features(&self) -> bool {
        false
    }
    fn add_pawn_score(&mut self, _white_minus_black: Score) {}
}

/// The search's accumulator: scores as it goes.
#[derive(Default)]
struct Scorer {
    score: [Score; 2],
    danger: [i32; 2],
}

impl Accumulator for Scorer {
    #[inline(always)]
    fn add(&mut self, side: Color, param: usize, count: i32) {
        if (DANGER_START..DANGER_END).contains(&param) {
            self.danger[side.index()] += VALUES[param].mg() * count;
        } else {
            self.score[side.index()] += VALUES[param] * count;
        }
    }

    fn add_pawn_score(&mut self, white_minus_black: Score) {
        self.score[0] += white_minus_black;
    }
}

/// The penalty for `units` of danger against a king.
pub fn king_danger(units: i32) -> Score {
    let d = units.max(0);
    s(-(d * d / DANGER_MG_DIV), -(d * DANGER_EG / DANGER_MG_DIV))
}

/// What the evaluation knows beyond the features: phase and scale.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    pub phase: i32,
    /// Out of FULL_SCALE, applied to the endgame half.
    pub scale: i32,
}

/// Blends a White-minus-Black score into centipawns from White's side.
pub fn taper(score: Score, shape: Shape) -> i32 {
    let mg = score.mg() * shape.phase;
    let eg = score.eg() * shape.scale / FULL_SCALE * (MAX_PHASE - shape.phase);
    (mg + eg) / MAX_PHASE
}

/// The evaluation in centipawns from the side to move's point of view.
pub fn evaluate(pos: &Position) -> i32 {
    let mut acc = Scorer::default();
    let mut shape = features(pos, &mut acc);
    let total =
        acc.score[0] - acc.score[1] + king_danger(acc.danger[0]) - king_danger(acc.danger[1]);
    shape.scale = scale(pos, total.eg());
    let white = taper(total, shape);
    if pos.side_to_move() == Color::White {
        white
    } else {
        -white
    }
}

/// Attack maps shared by the steps.
struct Maps {
    occ: Bitboard,
    pawn_attacks: [Bitboard; 2],
    /// Squares attacked by each side's pieces of each type.
    by: [[Bitboard; 6]; 2],
    /// Attacked by a side at all, and at least twice.
    all: [Bitboard; 2],
    twice: [Bitboard; 2],
    king_zone: [Bitboard; 2],
    /// Pieces of each type attacking the zone of the *enemy* king.
    zone_attackers: [[i32; 4]; 2],
    zone_attacks: [i32; 2],
}

impl Maps {
    fn attack(&mut self, side: Color, kind: PieceType, att: Bitboard) {
        let c = side.index();
        self.by[c][kind.index()] |= att;
        self.twice[c] |= self.all[c] & att;
        self.all[c] |= att;
    }
}

/// Runs every step, telling `acc` each feature; returns the phase (the
/// scale is left full, as it depends on the summed score).
pub fn features(pos: &Position, acc: &mut impl Accumulator) -> Shape {
    let occ = pos.occupied();
    let mut maps = Maps {
        occ,
        pawn_attacks: [Bitboard::EMPTY; 2],
        by: [[Bitboard::EMPTY; 6]; 2],
        all: [Bitboard::EMPTY; 2],
        twice: [Bitboard::EMPTY; 2],
        king_zone: [Bitboard::EMPTY; 2],
        zone_attackers: [[0; 4]; 2],
        zone_attacks: [0; 2],
    };

    // Step 1. Pawns.
    for side in Color::BOTH {
        let (east, west) = pawn_attack_sides(side, pos.pieces(side, PieceType::Pawn));
        let att = east | west;
        maps.pawn_attacks[side.index()] = att;
        // Squares attacked by two pawns count twice.
        maps.twice[side.index()] |= east & west;
        maps.attack(side, PieceType::Pawn, att);
    }
    let passed = if acc.wants_pawn_features() {
        pawns::features(pos, acc)
    } else {
        let entry = pawns::probe(pos);
        acc.add_pawn_score(entry.score);
        entry.passed
    };

    for side in Color::BOTH {
        let ksq = pos.king_square(side);
        let katt = attacks::king(ksq);
        maps.attack(side, PieceType::King, katt);
        // The zone: the king's squares and one more rank towards the enemy.
        let zone = katt.with(ksq);
        let ahead = if side == Color::White {
            zone.north()
        } else {
            zone.south()
        };
        maps.king_zone[side.index()] = zone | ahead;
    }

    // Step 2. Pieces.
    let mut phase = 0;
    for side in Color::BOTH {
        let us = side.index();
        let them = side.flip();
        let our_pawns = pos.pieces(side, PieceType::Pawn);
        let their_pawns = pos.pieces(them, PieceType::Pawn);
        // Mobility counts squares not attacked by enemy pawns and not
        // holding our king or our blocked or unadvanced pawns.
        let low_ranks = if side == Color::White {
            Bitboard::RANK_2 | Bitboard::RANK_3
        } else {
            Bitboard::RANK_6 | Bitboard::RANK_7
        };
        let blocked = our_pawns & forward(them, occ);
        let area = !(maps.pawn_attacks[them.index()]
            | (our_pawns & (low_ranks | blocked))
            | pos.pieces(side, PieceType::King));
        let enemy_zone = maps.king_zone[them.index()];

        for kind in [
            PieceType::Knight,
            PieceType::Bishop,
            PieceType::Rook,
            PieceType::Queen,
        ] {
            let k = kind.index();
            for sq in pos.pieces(side, kind) {
                let rel = relative(side, sq);
                acc.add(side, MATERIAL + k, 1);
                acc.add(side, PST + 64 * k + rel.index(), 1);
                phase += PHASE_WEIGHTS[k - 1];
                let att = attacks::piece(kind, sq, occ);
                maps.attack(side, kind, att);
                let mobility = (att & area).count() as usize;
                let table = match kind {
                    PieceType::Knight => MOBILITY_KNIGHT,
                    PieceType::Bishop => MOBILITY_BISHOP,
                    PieceType::Rook => MOBILITY_ROOK,
                    _ => MOBILITY_QUEEN,
                };
                acc.add(side, table + mobility, 1);
                let zone_hits = (att & enemy_zone).count() as i32;
                if zone_hits > 0 {
                    maps.zone_attackers[us][k - 1] += 1;
                    maps.zone_attacks[us] += zone_hits;
                }
                match kind {
                    PieceType::Knight | PieceType::Bishop => {
                        let rank = side.relative_rank(sq.rank());
                        if (3..=5).contains(&rank)
                            && maps.pawn_attacks[us].has(sq)
                            && (their_pawns & outpost_span(side, sq)).is_empty()
                        {
                            acc.add(side, OUTPOST + k - 1, 1);
                        }
                    }
                    PieceType::Rook | PieceType::Queen => {
                        let file = Bitboard::file(sq.file());
                        let base = if kind == PieceType::Rook {
                            ROOK_FILE
                        } else {
                            QUEEN_FILE
                        };
                        if (file & our_pawns).is_empty() {
                            let open = (file & their_pawns).is_empty();
                            acc.add(side, base + usize::from(!open), 1);
                        }
                    }
                    _ => {}
                }
            }
        }
        let ksq = pos.king_square(side);
        acc.add(side, PST + 64 * 5 + relative(side, ksq).index(), 1);
    }
    phase = phase.min(MAX_PHASE);

    // Step 3. Passed pawns against pieces and kings.
    for side in Color::BOTH {
        let them = side.flip();
        for sq in passed[side.index()] {
            let rank = side.relative_rank(sq.rank()) as usize;
            let stop = sq.offset(side.forward());
            let own = distance(pos.king_square(side), stop);
            let theirs = distance(pos.king_square(them), stop);
            acc.add(side, PASSED_OWN_KING + rank, own);
            acc.add(side, PASSED_THEIR_KING + rank, theirs);
            if !occ.has(stop) && !maps.all[them.index()].has(stop) {
                acc.add(side, PASSED_FREE + rank, 1);
            }
        }
    }

    // Step 4. King safety.
    for side in Color::BOTH {
        king_safety(pos, &maps, side, acc);
    }

    // Step 5. Threats, bishop pair, tempo.
    for side in Color::BOTH {
        threats(pos, &maps, side, acc);
        if pos.pieces(side, PieceType::Bishop).several() {
            acc.add(side, BISHOP_PAIR, 1);
        }
    }
    acc.add(pos.side_to_move(), TEMPO, 1);

    Shape {
        phase,
        scale: FULL_SCALE,
    }
}

/// Shield, storm and the danger from the attacks on `side`'s king.
fn king_safety(pos: &Position, maps: &Maps, side: Color, acc: &mut impl Accumulator) {
    let us = side.index();
    let them = side.flip();
    let ksq = pos.king_square(side);
    let kfile = ksq.file();
    let krank = side.relative_rank(ksq.rank());
    let our_pawns = pos.pieces(side, PieceType::Pawn);
    let their_pawns = pos.pieces(them, PieceType::Pawn);
    for file in kfile.saturating_sub(1)..=(kfile + 1).min(7) {
        let f = Bitboard::file(file);
        let nearest = |pawns: Bitboard| {
            pawns
                .filter(|p| side.relative_rank(p.rank()) >= krank)
                .map(|p| side.relative_rank(p.rank()) as usize)
                .min()
                .unwrap_or(0)
        };
        acc.add(side, KING_SHIELD + nearest(our_pawns & f), 1);
        acc.add(side, KING_STORM + nearest(their_pawns & f), 1);
    }

    // The danger: only with two attackers, or one that is a queen.
    let attackers = maps.zone_attackers[them.index()];
    let count: i32 = attackers.iter().sum();
    let queens = pos.pieces(them, PieceType::Queen);
    if count < 2 && !(count == 1 && attackers[3] == 1) {
        return;
    }
    for (k, &n) in attackers.iter().enumerate() {
        if n > 0 {
            acc.add(side, DANGER_ATTACKER + k, n);
        }
    }
    acc.add(side, DANGER_ZONE_ATTACKS, maps.zone_attacks[them.index()]);
    let occ = maps.occ;
    let safe = !maps.all[us] & !pos.color(them);
    let checks = [
        attacks::knight(ksq),
        attacks::bishop(ksq, occ),
        attacks::rook(ksq, occ),
        attacks::queen(ksq, occ),
    ];
    for (k, &squares) in checks.iter().enumerate() {
        let n = (squares & safe & maps.by[them.index()][k + 1]).count() as i32;
        if n > 0 {
            acc.add(side, DANGER_SAFE_CHECK + k, n);
        }
    }
    let weak = maps.king_zone[us]
        & maps.all[them.index()]
        & !maps.twice[us]
        & (!maps.all[us] | maps.by[us][PieceType::King.index()] | maps.by[us][4]);
    let weak = weak & !maps.pawn_attacks[us];
    acc.add(side, DANGER_WEAK_ZONE, weak.count() as i32);
    if queens.is_empty() {
        acc.add(side, DANGER_NO_QUEEN, 1);
    }
    acc.add(side, DANGER_BASE, 1);
}

/// What `side` attacks of the enemy's.
fn threats(pos: &Position, maps: &Maps, side: Color, acc: &mut impl Accumulator) {
    let us = side.index();
    let them = side.flip();
    let minors = maps.by[us][PieceType::Knight.index()] | maps.by[us][PieceType::Bishop.index()];
    let rooks = maps.by[us][PieceType::Rook.index()];
    for kind in [
        PieceType::Pawn,
        PieceType::Knight,
        PieceType::Bishop,
        PieceType::Rook,
        PieceType::Queen,
    ] {
        let k = kind.index();
        let victims = pos.pieces(them, kind);
        if victims.is_empty() {
            continue;
        }
        if k > 0 {
            let n = (victims & maps.pawn_attacks[us]).count() as i32;
            if n > 0 {
                acc.add(side, THREAT_BY_PAWN + k - 1, n);
            }
        }
        let n = (victims & minors).count() as i32;
        if n > 0 {
            acc.add(side, THREAT_BY_MINOR + k, n);
        }
        let n = (victims & rooks).count() as i32;
        if n > 0 {
            acc.add(side, THREAT_BY_ROOK + k, n);
        }
    }
    let targets = pos.color(them) & !pos.pieces(them, PieceType::King);
    let hanging = targets & maps.all[us] & !maps.all[them.index()];
    if hanging.any() {
        acc.add(side, HANGING, hanging.count() as i32);
    }
}

/// How much of the endgame half survives, given its sign: endings the
/// stronger side cannot usually win are scaled down.
pub fn scale(pos: &Position, eg: i32) -> i32 {
    ending(pos, eg).map_or(FULL_SCALE, |e| SCALES[e as usize])
}

/// Which drawish ending, if any, the position is, given the sign of the
/// endgame half (which names the stronger side).
pub fn ending(pos: &Position, eg: i32) -> Option<Ending> {
    let strong = if eg > 0 { Color::White } else { Color::Black };
    let weak = strong.flip();
    let npm = |c: Color| {
        [
            (PieceType::Knight, 3),
            (PieceType::Bishop, 3),
            (PieceType::Rook, 5),
            (PieceType::Queen, 9),
        ]
        .iter()
        .map(|&(k, v)| pos.pieces(c, k).count() as i32 * v)
        .sum::<i32>()
    };
    let (strong_npm, weak_npm) = (npm(strong), npm(weak));
    let strong_pawns = pos.pieces(strong, PieceType::Pawn).count();
    // Without pawns, a minor piece more is not enough to win (KNK, KRKB...).
    if strong_pawns == 0 && strong_npm - weak_npm <= 3 {
        return Some(if strong_npm < 5 {
            Ending::BareMinor
        } else {
            Ending::PawnlessMinorUp
        });
    }
    let only = |c: Color, kind: PieceType| {
        pos.pieces(c, kind).count() == 1
            && (pos.color(c)
                & !pos.pieces(c, PieceType::Pawn)
                & !pos.pieces(c, PieceType::King)
                & !pos.pieces(c, kind))
            .is_empty()
    };
    let bishops_w = pos.pieces(Color::White, PieceType::Bishop);
    let bishops_b = pos.pieces(Color::Black, PieceType::Bishop);
    if bishops_w.count() == 1 && bishops_b.count() == 1 {
        let dark = |b: Bitboard| (b & Bitboard::DARK_SQUARES).any();
        if dark(bishops_w) != dark(bishops_b) {
            return Some(
                if only(Color::White, PieceType::Bishop) && only(Color::Black, PieceType::Bishop) {
                    Ending::OppositeBishops
                } else {
                    Ending::OppositeBishopsAndPieces
                },
            );
        }
    }
    // Rook endings a pawn up with all pawns on one wing are mostly drawn.
    if only(strong, PieceType::Rook) && only(weak, PieceType::Rook) {
        let pawns = pos.kind(PieceType::Pawn);
        let weak_pawns = pos.pieces(weak, PieceType::Pawn).count();
        let one_wing = (pawns & QUEENSIDE).is_empty() || (pawns & KINGSIDE).is_empty();
        if strong_pawns <= weak_pawns + 1 && one_wing {
            return Some(Ending::RookOneWing);
        }
    }
    None
}

/// Squares attacked by `side`'s pawns towards the east and the west.
fn pawn_attack_sides(side: Color, pawns: Bitboard) -> (Bitboard, Bitboard) {
    let fwd = forward(side, pawns);
    (fwd.east(), fwd.west())
}

/// One rank towards the enemy of `side`.
fn forward(side: Color, b: Bitboard) -> Bitboard {
    if side == Color::White {
        b.north()
    } else {
        b.south()
    }
}

/// The square as `side` sees it: a1 is always its queen's rook corner.
fn relative(side: Color, sq: Square) -> Square {
    if side == Color::White {
        sq
    } else {
        sq.flip_rank()
    }
}

fn distance(a: Square, b: Square) -> i32 {
    let df = (a.file() as i32 - b.file() as i32).abs();
    let dr = (a.rank() as i32 - b.rank() as i32).abs();
    df.max(dr)
}

/// The evaluation split by term and side, for the `eval` command.
#[derive(Default)]
struct Table {
    rows: [[Score; 2]; Group::ALL.len()],
    danger: [i32; 2],
}

impl Accumulator for Table {
    fn add(&mut self, side: Color, param: usize, count: i32) {
        if (DANGER_START..DANGER_END).contains(&param) {
            self.danger[side.index()] += VALUES[param].mg() * count;
            return;
        }
        let g = block_of(param).group;
        let row = Group::ALL.iter().position(|&x| x == g).unwrap_or(0);
        self.rows[row][side.index()] += VALUES[param] * count;
    }

    fn wants_pawn_features(&self) -> bool {
        true
    }
}

/// A human-readable breakdown of the evaluation (the `eval` command).
pub fn trace(pos: &Position) -> String {
    let mut table = Table::default();
    let mut shape = features(pos, &mut table);
    let king = Group::ALL
        .iter()
        .position(|&g| g == Group::King)
        .unwrap_or(0);
    for side in Color::BOTH {
        table.rows[king][side.index()] += king_danger(table.danger[side.index()]);
    }
    let mut total = Score::ZERO;
    for row in &table.rows {
        total += row[0] - row[1];
    }
    shape.scale = scale(pos, total.eg());
    let cp = |v: i32| format!("{:6.2}", v as f64 / 100.0);
    let mut out = String::new();
    let rule = "---------------+---------------+---------------+---------------\n";
    out.push_str("          Term |     White     |     Black     |     Total\n");
    out.push_str("               |    MG     EG  |    MG     EG  |    MG     EG\n");
    out.push_str(rule);
    for (g, row) in Group::ALL.iter().zip(table.rows.iter()) {
        let [w, b] = *row;
        let t = w - b;
        out.push_str(&format!(
            "{:>14} | {} {} | {} {} | {} {}\n",
            g.name(),
            cp(w.mg()),
            cp(w.eg()),
            cp(b.mg()),
            cp(b.eg()),
            cp(t.mg()),
            cp(t.eg())
        ));
    }
    out.push_str(rule);
    out.push_str(&format!(
        "{:>14} |               |               | {} {}\n",
        "Total",
        cp(total.mg()),
        cp(total.eg())
    ));
    let white = taper(total, shape);
    out.push_str(&format!(
        "\nKing danger units: White's king {}, Black's king {}\n",
        table.danger[0].max(0),
        table.danger[1].max(0)
    ));
    let which = ending(pos, total.eg()).map_or(String::new(), |e| format!(" ({})", e.name()));
    out.push_str(&format!(
        "Phase {}/{MAX_PHASE}, endgame scale {}/{FULL_SCALE}{which}\n",
        shape.phase, shape.scale
    ));
    out.push_str(&format!(
        "Reported in info lines as {:+.2} (normalised: +1.00 is a 50% chance to win)\n",
        wdl::normalise(white) as f64 / 100.0
    ));
    out.push_str(&format!(
        "Final evaluation: {:+.2} (White's side)",
        white as f64 / 100.0
    ));
    out
}

#[cfg(test)]
mod tests;
