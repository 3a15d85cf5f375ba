//! Score units: what a score means, below both the search and the
//! evaluation, so that neither reaches into the other for them.
//!
//! - The mate constants: a score of `MATE - n` is mate in `n` plies; the
//!   tablebases' wins sit just below every mate ([`TB_WIN`]).
//! - [`wdl`]: the win/draw/loss model of the network's scores, for
//!   `UCI_ShowWDL`, and the normalisation of reported scores (+100 is a
//!   50% chance to win).
//!
//! Scores are centipawns of the evaluation, from the side to move's view,
//! in an `i32`.

pub mod wdl;

/// The deepest the search goes from the root, in plies (mate scores count
/// plies, so the mate range depends on it).
pub const MAX_PLY: usize = 128;
/// A score beyond any real one.
pub const INFINITE: i32 = 32_001;
/// The score of giving mate now; mate in n plies scores `MATE - n`.
pub const MATE: i32 = 32_000;
/// Scores at or beyond this are mates.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// A win the tablebases prove, at the root; `TB_WIN - ply` deeper. Below
/// every mate score (a mate found is better than a win known), above any
/// evaluation.
pub const TB_WIN: i32 = MATE_BOUND - 1;

/// Mate in how many moves (negative: being mated), if `score` is a mate score.
pub fn mate_in(score: i32) -> Option<i32> {
    if score >= MATE_BOUND {
        Some((MATE - score + 1) / 2)
    } else if score <= -MATE_BOUND {
        Some(-(MATE + score + 1) / 2)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_scores_in_moves() {
        assert_eq!(mate_in(MATE - 1), Some(1));
        assert_eq!(mate_in(MATE - 3), Some(2));
        assert_eq!(mate_in(-MATE + 2), Some(-1));
        assert_eq!(mate_in(-MATE), Some(0));
        assert_eq!(mate_in(150), None);
    }
}
