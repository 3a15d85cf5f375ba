//! What a reported line may show: every line the search reports (each
//! iteration's, the MultiPV lines, the line printed again before the best
//! move) and the ponder move pass through here.
//!
//! Tournament managers replay each `pv` on the game's board, the moves
//! played before it included, and warn when it goes on after the rules
//! have ended the game (threefold repetition, the fifty-move rule, mate,
//! stalemate); with mate checks on, they also warn when an exact mate
//! score comes with a line that does not end in that mate at exactly that
//! distance. The search's own lines mostly stop in time: it scores a
//! repetition already at its second occurrence inside the tree, and stops
//! a line at the fifty-move rule and at mate. But not every line is the
//! search's own: the ponder move after a one-move line comes from the hash
//! table, which knows nothing of the game (a position about to occur for
//! the third time has the entry it had when it was searched before), and
//! quiescence plays evasions without looking for repetitions. So a line is
//! cut here, against the rules and the game's history, and not in the
//! search, whose tree (and `bench`) stays as it was.
//!
//! A mate score is claimed exactly only with the line that shows it: when
//! the line shown does not end in mate after the plies the score counts,
//! the score is reported as a bound in the direction of the mate
//! (`lowerbound` for a mate given, `upperbound` for one suffered), which
//! says that the search found the mate without claiming a line for it.

use super::ScoreBound;
use crate::engine::chess::{GameEnd, Move, Position};
use crate::engine::score::mate_in;

/// A line as it is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shown {
    /// How many of the line's moves are shown: up to and including the
    /// first after which the rules end the game.
    pub len: usize,
    /// The bound of the score reported with it.
    pub bound: ScoreBound,
}

/// How much of `pv` the game can play from `root`, `history` being the
/// keys of the game's positions before it (oldest first): the moves up to
/// and including the first after which the rules end the game, and none
/// from an illegal one on (a line is built from legal moves; a hash move is
/// checked before it joins one). The root itself is where a move is asked
/// for: the game goes on from it even when it could be claimed drawn.
/// Also returns how the game ends after the last move shown, if it does.
pub fn playable(root: &Position, history: &[u64], pv: &[Move]) -> (usize, Option<GameEnd>) {
    // Nothing before the last capture or pawn move can repeat.
    let reach = (root.halfmove_clock() as usize).min(history.len());
    let mut keys = Vec::with_capacity(reach + pv.len());
    keys.extend_from_slice(&history[history.len() - reach..]);
    let mut pos = root.clone();
    for (i, &m) in pv.iter().enumerate() {
        if !pos.is_legal(m) {
            return (i, None);
        }
        keys.push(pos.key());
        pos.play(m);
        if let Some(end) = pos.game_end(&keys) {
            return (i + 1, Some(end));
        }
    }
    (pv.len(), None)
}

/// How `pv`, reported from `root` with `score` and `bound`, is shown:
/// cut where the game ends, and an exact mate score a bound unless the
/// line shown ends in that mate after exactly the plies it counts.
pub fn shown(
    root: &Position,
    history: &[u64],
    pv: &[Move],
    score: Option<i32>,
    bound: ScoreBound,
) -> Shown {
    let (len, end) = playable(root, history, pv);
    let bound = match (bound, score.and_then(mate_in)) {
        (ScoreBound::Exact, Some(moves)) => {
            // Mate in n moves is 2n - 1 plies; being mated in n, 2n.
            let plies = if moves > 0 { 2 * moves - 1 } else { -2 * moves } as usize;
            if len == plies && end == Some(GameEnd::Checkmate) {
                ScoreBound::Exact
            } else if moves > 0 {
                ScoreBound::Lower
            } else {
                ScoreBound::Upper
            }
        }
        (bound, _) => bound,
    };
    Shown { len, bound }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::score::MATE;

    /// The position after `moves` (UCI) from `fen` (None: the start), with
    /// the keys of the positions before it.
    fn game(fen: Option<&str>, moves: &str) -> (Position, Vec<u64>) {
        let mut pos = match fen {
            Some(f) => Position::from_fen(f).unwrap().0,
            None => Position::startpos(),
        };
        let mut keys = Vec::new();
        for text in moves.split_whitespace() {
            let m = pos.parse_uci_move(text).unwrap();
            keys.push(pos.key());
            pos.play(m);
        }
        (pos, keys)
    }

    fn line(root: &Position, moves: &str) -> Vec<Move> {
        let mut pos = root.clone();
        moves
            .split_whitespace()
            .map(|text| {
                let m = pos.parse_uci_move(text).unwrap();
                pos.play(m);
                m
            })
            .collect()
    }

    /// The position after 1. Nf3 occurred twice in the game (the second
    /// time after 1... Nf6 2. Ng1 Ng8 3. Nf3), and White's knight, back
    /// from h4, can bring it about a third time: the game ends there, so a
    /// line through it stops after h4f3, however it goes on (with a reply
    /// from the hash table, say). Without that history the line is whole.
    #[test]
    fn a_line_stops_at_the_third_occurrence() {
        let (root, history) = game(None, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3h4 f6g8");
        let pv = line(&root, "h4f3 d7d5 d2d4");
        assert_eq!(
            playable(&root, &history, &pv),
            (1, Some(GameEnd::Threefold))
        );
        assert_eq!(playable(&root, &[], &pv), (3, None));
        // With only the last four positions of the history, one earlier
        // occurrence is left: the line is whole.
        assert_eq!(
            playable(&root, &history[history.len() - 4..], &pv),
            (3, None)
        );
        let other = line(&root, "e2e4 d7d5 h4f3");
        assert_eq!(playable(&root, &history, &other), (3, None));
    }

    /// A line stops at mate, at stalemate and at the fifty-move rule, and
    /// before an illegal move.
    #[test]
    fn a_line_stops_where_the_rules_end_the_game() {
        let (root, _) = game(Some("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"), "");
        let mate = line(&root, "d1d8");
        let mut past = mate.clone();
        past.extend(line(&root, "g1h1"));
        assert_eq!(playable(&root, &[], &past), (1, Some(GameEnd::Checkmate)));

        let (root, _) = game(Some("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1"), "");
        let stalemate = line(&root, "f1f7");
        assert_eq!(
            playable(&root, &[], &stalemate),
            (1, Some(GameEnd::Stalemate))
        );

        // The 99th ply without a capture or pawn move is played; after
        // the 100th nothing is.
        let (root, history) = game(Some("4k3/8/8/8/8/8/4P3/4K2R w - - 98 80"), "");
        let pv = line(&root, "h1h2 e8d8 h2h1 d8e8");
        assert_eq!(
            playable(&root, &history, &pv),
            (2, Some(GameEnd::FiftyMoves))
        );

        let start = Position::startpos();
        let e4 = line(&start, "e2e4");
        let bad = [e4[0], e4[0]];
        assert_eq!(playable(&start, &[], &bad), (1, None));
    }

    /// An exact mate score is exact only with its whole line: Légal's mate
    /// in two (1. Nf6+ gxf6 2. Bxf7#) shown in full, and as a bound when
    /// the line is cut short or the distance is not the line's. Bounds and
    /// other scores pass as they are.
    #[test]
    fn a_mate_is_exact_only_with_its_line() {
        let fen = "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1";
        let (root, _) = game(Some(fen), "");
        let pv = line(&root, "d5f6 g7f6 c4f7");
        let mate_in_2 = Some(MATE - 3);
        let exact = ScoreBound::Exact;
        let show = |pv: &[Move], score, bound| shown(&root, &[], pv, score, bound);
        assert_eq!(
            show(&pv, mate_in_2, exact),
            Shown {
                len: 3,
                bound: ScoreBound::Exact
            }
        );
        assert_eq!(show(&pv[..2], mate_in_2, exact).bound, ScoreBound::Lower);
        assert_eq!(show(&pv, Some(MATE - 5), exact).bound, ScoreBound::Lower);
        assert_eq!(
            show(&pv, mate_in_2, ScoreBound::Upper).bound,
            ScoreBound::Upper
        );
        assert_eq!(show(&pv[..2], Some(120), exact).bound, ScoreBound::Exact);
        assert_eq!(show(&pv[..2], None, exact).bound, ScoreBound::Exact);

        // Black to move after 1. Nf6+ is mated in one: exact with the
        // whole reply, an upper bound without it.
        let (black, _) = game(Some(fen), "d5f6");
        let reply = line(&black, "g7f6 c4f7");
        let mated_in_1 = Some(-MATE + 2);
        let show = |pv: &[Move]| shown(&black, &[], pv, mated_in_1, exact);
        assert_eq!(show(&reply).bound, ScoreBound::Exact);
        assert_eq!(show(&reply[..1]).bound, ScoreBound::Upper);
    }
}
