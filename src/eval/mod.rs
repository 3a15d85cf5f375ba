//! Static evaluation.
//!
//! This first evaluation is material and piece placement, tapered between
//! middlegame and endgame by the material on the board. Its numbers are
//! simple rules of thumb written for this engine (centralisation, pawn
//! advancement, king shelter); the evaluation issue replaces them with
//! terms and values tuned on Forsyth's own games.

pub mod wdl;

use crate::chess::{Color, PieceType, Position, Square};

/// A middlegame and an endgame value.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Score {
    pub mg: i32,
    pub eg: i32,
}

const fn s(mg: i32, eg: i32) -> Score {
    Score { mg, eg }
}

/// Material by piece type.
pub const PIECE_VALUE: [Score; 6] = [
    s(90, 120),
    s(320, 300),
    s(330, 320),
    s(470, 530),
    s(950, 980),
    s(0, 0),
];

/// Phase weight by piece type; 24 is a full board of minors and majors.
const PHASE: [i32; 6] = [0, 1, 1, 2, 4, 0];
const MAX_PHASE: i32 = 24;

/// The side to move's small advantage of being on move.
const TEMPO: i32 = 12;

/// Distance (0..3) from the centre four squares.
const fn centre_distance(sq: usize) -> i32 {
    let f = (sq % 8) as i32;
    let r = (sq / 8) as i32;
    let df = if f < 4 { 3 - f } else { f - 4 };
    let dr = if r < 4 { 3 - r } else { r - 4 };
    if df > dr { df } else { dr }
}

/// Placement bonus for a White piece on `sq` (Black's is mirrored).
const fn placement(kind: usize, sq: usize) -> Score {
    let c = centre_distance(sq);
    let rank = (sq / 8) as i32;
    let file = (sq % 8) as i32;
    match kind {
        // Pawns: advance, central ones more in the middlegame.
        0 => {
            let central = if file == 3 || file == 4 { 8 } else { 0 };
            s((rank - 1) * 4 + central * (rank - 1) / 2, (rank - 1) * 10)
        }
        1 => s(20 - 10 * c, 12 - 6 * c),
        2 => s(10 - 4 * c, 8 - 4 * c),
        3 => s(if rank == 6 { 15 } else { 0 } - c, 0),
        4 => s(4 - 2 * c, 10 - 5 * c),
        // King: shelter on the back rank away from the centre, then centralise.
        _ => s(
            if rank == 0 && (file <= 2 || file >= 6) {
                20
            } else {
                -10 * rank
            },
            30 - 12 * c,
        ),
    }
}

const fn placement_table() -> [[Score; 64]; 6] {
    let mut t = [[Score { mg: 0, eg: 0 }; 64]; 6];
    let mut k = 0;
    while k < 6 {
        let mut sq = 0;
        while sq < 64 {
            t[k][sq] = placement(k, sq);
            sq += 1;
        }
        k += 1;
    }
    t
}

static PST: [[Score; 64]; 6] = placement_table();

/// Material plus placement from White's point of view, and the phase.
fn material_and_placement(pos: &Position) -> (Score, i32) {
    let mut total = Score::default();
    let mut phase = 0;
    for color in Color::BOTH {
        let sign = if color == Color::White { 1 } else { -1 };
        for kind in PieceType::ALL {
            for sq in pos.pieces(color, kind) {
                let rel: Square = if color == Color::White {
                    sq
                } else {
                    sq.flip_rank()
                };
                let v = PIECE_VALUE[kind.index()];
                let p = PST[kind.index()][rel.index()];
                total.mg += sign * (v.mg + p.mg);
                total.eg += sign * (v.eg + p.eg);
                phase += PHASE[kind.index()];
            }
        }
    }
    (total, phase.min(MAX_PHASE))
}

/// The evaluation in centipawns from the side to move's point of view.
pub fn evaluate(pos: &Position) -> i32 {
    let (score, phase) = material_and_placement(pos);
    let blended = (score.mg * phase + score.eg * (MAX_PHASE - phase)) / MAX_PHASE;
    let white = blended;
    let stm = if pos.side_to_move() == Color::White {
        white
    } else {
        -white
    };
    stm + TEMPO
}

/// A human-readable breakdown of the evaluation (the `eval` command).
pub fn trace(pos: &Position) -> String {
    let (score, phase) = material_and_placement(pos);
    let stm = evaluate(pos);
    let white = if pos.side_to_move() == Color::White {
        stm
    } else {
        -stm
    };
    format!(
        "     Term    |   MG    EG\n-------------+-------------\n Material+PST | {:5} {:5}\n Tempo        | {:5} {:5} (side to move)\n Phase        | {phase}/{MAX_PHASE}\n\nFinal evaluation: {:+.2} (white side)",
        score.mg,
        score.eg,
        TEMPO,
        TEMPO,
        white as f64 / 100.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_is_level_but_for_tempo() {
        assert_eq!(evaluate(&Position::startpos()), TEMPO);
    }

    #[test]
    fn mirrored_positions_score_the_same() {
        let a =
            Position::from_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
                .unwrap()
                .0;
        let b =
            Position::from_fen("rnbqkb1r/pppp1ppp/5n2/4p3/4P3/2N5/PPPP1PPP/R1BQKBNR b KQkq - 2 3")
                .unwrap()
                .0;
        assert_eq!(evaluate(&a), evaluate(&b));
    }
}
