//! How the rules end a game in a position, counting the game's positions
//! before it: what a referee (a GUI, a tournament manager, our own data
//! generation) checks after each move, and where a line the engine shows
//! must stop.
//!
//! Repetitions are found by key. The en-passant square enters a key only
//! when a legal capture exists ([`super::zobrist`]), as FIDE counts a
//! position the same (article 9.2.3): a tournament manager whose keys also
//! hold a square no pawn can take on sees fewer repetitions, never more.

use super::position::Position;

/// Why the rules end the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameEnd {
    /// The side to move is checkmated (also on the hundredth ply without a
    /// capture or pawn move: a mate ends the game before the fifty-move
    /// rule can, FIDE's article 9.3, and so do tournament managers).
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// A hundred plies without a capture or a pawn move.
    FiftyMoves,
    /// Neither side has the material to mate (a dead position).
    InsufficientMaterial,
    /// The position occurred twice before.
    Threefold,
}

impl Position {
    /// Whether this position occurred twice before. `earlier` holds the keys
    /// of the game's positions before this one, oldest first; only those
    /// since the last capture or pawn move can repeat it, and only those
    /// with the same side to move: every second one back.
    pub fn is_threefold(&self, earlier: &[u64]) -> bool {
        let reach = (self.halfmove_clock() as usize).min(earlier.len());
        let key = self.key();
        (2..=reach)
            .step_by(2)
            .filter(|&back| earlier[earlier.len() - back] == key)
            .count()
            >= 2
    }

    /// How the rules end the game here, if they do; `earlier` as for
    /// [`Position::is_threefold`].
    pub fn game_end(&self, earlier: &[u64]) -> Option<GameEnd> {
        if self.count_legal() == 0 {
            return Some(if self.in_check() {
                GameEnd::Checkmate
            } else {
                GameEnd::Stalemate
            });
        }
        if self.halfmove_clock() >= 100 {
            Some(GameEnd::FiftyMoves)
        } else if self.insufficient_material() {
            Some(GameEnd::InsufficientMaterial)
        } else if self.is_threefold(earlier) {
            Some(GameEnd::Threefold)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(fen: &str) -> Position {
        Position::from_fen(fen).unwrap().0
    }

    /// Plays `moves` (UCI) from `pos`; returns the keys of the positions
    /// before the last one, as `earlier` wants them.
    fn play(pos: &mut Position, moves: &[&str]) -> Vec<u64> {
        let mut keys = Vec::new();
        for text in moves {
            let m = pos.parse_uci_move(text).unwrap();
            keys.push(pos.key());
            pos.play(m);
        }
        keys
    }

    #[test]
    fn threefold_needs_two_earlier_occurrences() {
        let mut pos = Position::startpos();
        let mut keys = Vec::new();
        let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        // The start position comes back after 4 plies (twice seen), and
        // after 8 (three times).
        for (i, text) in shuffle.iter().cycle().take(8).enumerate() {
            assert!(!pos.is_threefold(&keys), "ply {i}");
            assert_eq!(pos.game_end(&keys), None, "ply {i}");
            let m = pos.parse_uci_move(text).unwrap();
            keys.push(pos.key());
            pos.play(m);
        }
        assert!(pos.is_threefold(&keys));
        assert_eq!(pos.game_end(&keys), Some(GameEnd::Threefold));
        // Nothing before the last capture or pawn move can repeat a
        // position: its halfmove clock says how far back to look.
        let k = Position::startpos().key();
        assert!(!Position::startpos().is_threefold(&[k, 1, k, 2]));
    }

    /// The same position reached by other moves repeats too: the first
    /// occurrence after 1. Nf3, the second by 1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3,
    /// the third by a knight coming back from h4.
    #[test]
    fn transpositions_repeat() {
        let mut pos = Position::startpos();
        let keys = play(
            &mut pos,
            &[
                "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3h4", "f6g8", "h4f3",
            ],
        );
        assert_eq!(pos.game_end(&keys), Some(GameEnd::Threefold));
        assert_eq!(pos.game_end(&keys[..keys.len() - 4]), None);
    }

    #[test]
    fn each_end_by_the_rules() {
        let fools_mate = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
        assert_eq!(position(fools_mate).game_end(&[]), Some(GameEnd::Checkmate));
        assert_eq!(
            position("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").game_end(&[]),
            Some(GameEnd::Stalemate)
        );
        let fifty = position("4k3/8/8/8/8/8/4P3/4K2R w - - 100 80");
        assert_eq!(fifty.game_end(&[]), Some(GameEnd::FiftyMoves));
        assert_eq!(
            position("4k3/8/8/8/8/8/4P3/4K2R w - - 99 80").game_end(&[]),
            None
        );
        // Mate on the hundredth ply is mate.
        let mate_at_100 = position("R5k1/5ppp/8/8/8/8/8/6K1 b - - 100 80");
        assert_eq!(mate_at_100.game_end(&[]), Some(GameEnd::Checkmate));
        assert_eq!(
            position("4k3/8/8/8/8/8/8/3NK3 w - - 0 1").game_end(&[]),
            Some(GameEnd::InsufficientMaterial)
        );
        assert_eq!(Position::startpos().game_end(&[]), None);
    }
}
