//! Static exchange evaluation: does a move win at least `threshold`
//! material once every capture on its square has been played out, each side
//! taking with its least valuable piece and stopping when that is better?

use crate::engine::chess::{Move, MoveKind, PieceType, Position, attacks};

/// Piece values for exchanges only (not the evaluation's values).
pub const SEE_VALUE: [i32; 6] = [100, 300, 300, 500, 900, 20_000];

#[inline]
fn value(kind: PieceType) -> i32 {
    SEE_VALUE[kind.index()]
}

/// Whether the exchange started by `m` gains at least `threshold`.
pub fn see_ge(pos: &Position, m: Move, threshold: i32) -> bool {
    // Castling and en passant exchange nothing worth counting here;
    // promotions are judged by the capture alone.
    if matches!(m.kind(), MoveKind::Castling | MoveKind::EnPassant) {
        return 0 >= threshold;
    }
    let (from, to) = (m.from(), m.to());
    let Some(mover) = pos.piece_at(from) else {
        return false;
    };
    let captured = pos.piece_at(to).map_or(0, |p| value(p.kind()));
    let mut swap = captured - threshold;
    if swap < 0 {
        return false;
    }
    swap = value(mover.kind()) - swap;
    if swap <= 0 {
        return true;
    }

    let mut occ = pos.occupied().without(from).without(to);
    let mut attackers = pos.attackers_to(to, occ) & occ;
    let diagonal = pos.kind(PieceType::Bishop) | pos.kind(PieceType::Queen);
    let orthogonal = pos.kind(PieceType::Rook) | pos.kind(PieceType::Queen);
    let mut stm = mover.color().flip();
    // `res` flips each time a side captures: 1 means the mover's side wins.
    let mut res = true;
    loop {
        let ours = attackers & pos.color(stm);
        if ours.is_empty() {
            break;
        }
        res = !res;
        // The least valuable attacker takes next.
        let mut taken = None;
        for kind in PieceType::ALL {
            let bb = ours & pos.kind(kind);
            if bb.any() {
                taken = Some((kind, bb.lsb()));
                break;
            }
        }
        let Some((kind, sq)) = taken else { break };
        if kind == PieceType::King {
            // The king may only take last: if the other side still has an
            // attacker, the king capture is illegal and the result flips back.
            if (attackers & pos.color(stm.flip())).any() {
                res = !res;
            }
            break;
        }
        swap = value(kind) - swap;
        if swap < res as i32 {
            break;
        }
        occ = occ.without(sq);
        // Sliders behind the piece that just took join in (x-rays).
        if matches!(kind, PieceType::Pawn | PieceType::Bishop | PieceType::Queen) {
            attackers |= attacks::bishop(to, occ) & diagonal;
        }
        if matches!(kind, PieceType::Rook | PieceType::Queen) {
            attackers |= attacks::rook(to, occ) & orthogonal;
        }
        attackers &= occ;
        stm = stm.flip();
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(pos: &Position, uci: &str) -> Move {
        pos.legal_moves()
            .into_iter()
            .find(|m| m.uci(false).to_string() == uci)
            .unwrap()
    }

    #[test]
    fn exchanges() {
        // Pawn takes an undefended knight: wins a knight.
        let p = Position::from_fen("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1")
            .unwrap()
            .0;
        let m = mv(&p, "e4d5");
        assert!(see_ge(&p, m, 300));
        assert!(!see_ge(&p, m, 301));
        // Queen takes a pawn defended by a pawn: loses 800.
        let p = Position::from_fen("4k3/2p5/3p4/8/8/8/3Q4/4K3 w - - 0 1")
            .unwrap()
            .0;
        let m = mv(&p, "d2d6");
        assert!(see_ge(&p, m, -800));
        assert!(!see_ge(&p, m, -799));
        // Rook takes a rook defended by a rook, with our second rook behind (x-ray).
        let p = Position::from_fen("3rk3/3r4/8/8/8/8/3R4/3RK3 w - - 0 1")
            .unwrap()
            .0;
        let m = mv(&p, "d2d7");
        assert!(see_ge(&p, m, 0));
        assert!(!see_ge(&p, m, 1));
        // A quiet move to an attacked square loses the piece.
        let p = Position::from_fen("4k3/8/8/2p5/8/8/2N5/4K3 w - - 0 1")
            .unwrap()
            .0;
        let m = mv(&p, "c2d4");
        assert!(!see_ge(&p, m, 0));
        assert!(see_ge(&p, m, -300));
    }
}
