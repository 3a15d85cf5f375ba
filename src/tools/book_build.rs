//! Building a Polyglot book ([`crate::engine::book`]) from games, for
//! `forsyth book build`. The games come from [`crate::tools::pgn`] (the
//! `pgn-reader` crate: comments, nested variations, NAGs, move suffixes,
//! `SetUp`/`FEN` tags, games with or without tags, one line of moves per
//! game); only their main lines count.
//!
//! Weighting: every game adds points to each move it plays in its first
//! `max_ply` plies (`--max-ply`, default 20), for the side that played it:
//! 2 for a win, 1 for a draw, 0 for a loss, and 1 when the result is
//! unknown (`*`, which is what the curated lines of `book/` end with, so
//! there a move's weight is the number of lines that play it). Moves met in
//! several games, or in the same position reached by different orders, are
//! merged by adding their points. A move with 0 points (only ever lost) is
//! left out, as Polyglot's own builder does, and so is one played in fewer
//! than `min_games` games (`--min-games`). When the heaviest move has more
//! than 65535 points, all weights are scaled down together (never below 1).
//!
//! A game with an illegal move (or a bad FEN, or text the reader gives up
//! on) is reported on stderr with its file, game number, move and reason,
//! and skipped (`--strict`: it fails the build); a word that is no move at
//! all is passed over by the reader.
//!
//! The output is sorted by key, then heaviest first, then by move, so the
//! same games give the same bytes whatever order the files come in.

use crate::engine::book::polyglot::{self, ENTRY_SIZE, Entry};
use crate::engine::chess::Color;
use crate::tools::pgn::{Game, GameResult, PgnError};
use std::collections::{HashMap, HashSet};

/// Options of `forsyth book build`; the defaults build `book/forsyth.bin`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// Moves after this many plies from the start of a game are not used.
    pub max_ply: u32,
    /// A move must have been played in at least this many games.
    pub min_games: u32,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            max_ply: 20,
            min_games: 1,
        }
    }
}

#[derive(Default, Clone, Copy)]
struct Tally {
    points: u64,
    games: u32,
}

/// Collects games, then writes the book.
pub struct Builder {
    options: BuildOptions,
    tallies: HashMap<(u64, u16), Tally>,
    games: usize,
}

impl Builder {
    pub fn new(options: BuildOptions) -> Builder {
        Builder {
            options,
            tallies: HashMap::new(),
            games: 0,
        }
    }

    /// The number of games added.
    pub fn games(&self) -> usize {
        self.games
    }

    /// Adds every good game of a PGN text; returns why the others were
    /// skipped.
    pub fn add_pgn(&mut self, text: impl AsRef<[u8]>) -> Vec<PgnError> {
        let mut errors = Vec::new();
        for game in crate::tools::pgn::games(text.as_ref()) {
            match game {
                Ok(g) => self.add_game(&g),
                Err(e) => errors.push(e),
            }
        }
        errors
    }

    pub fn add_game(&mut self, game: &Game) {
        self.games += 1;
        let mut pos = game.start.clone();
        // Each (position, move) counts once per game for `min_games`.
        let mut seen = HashSet::new();
        for (ply, m) in game.moves().enumerate() {
            if ply as u32 >= self.options.max_ply {
                break;
            }
            // Positions the key cannot describe are left out (Chess960).
            if !polyglot::ambiguous_castling(&pos) {
                let points = match (game.outcome(), pos.side_to_move()) {
                    (GameResult::WhiteWins, Color::White)
                    | (GameResult::BlackWins, Color::Black) => 2,
                    (GameResult::WhiteWins, Color::Black)
                    | (GameResult::BlackWins, Color::White) => 0,
                    (GameResult::Draw | GameResult::Unknown, _) => 1,
                };
                let k = (polyglot::key(&pos), polyglot::encode_move(m));
                let t = self.tallies.entry(k).or_default();
                t.points += points;
                if seen.insert(k) {
                    t.games += 1;
                }
            }
            pos.play(m);
        }
    }

    /// The book's entries, sorted.
    pub fn entries(&self) -> Vec<Entry> {
        let kept: Vec<((u64, u16), u64)> = self
            .tallies
            .iter()
            .filter(|(_, t)| t.points > 0 && t.games >= self.options.min_games)
            .map(|(&k, t)| (k, t.points))
            .collect();
        let top = kept.iter().map(|&(_, p)| p).max().unwrap_or(0);
        let scale = |p: u64| -> u16 {
            if top <= u64::from(u16::MAX) {
                p as u16
            } else {
                (p * u64::from(u16::MAX) / top).max(1) as u16
            }
        };
        let mut entries: Vec<Entry> = kept
            .into_iter()
            .map(|((key, mv), p)| Entry {
                key,
                mv,
                weight: scale(p),
                learn: 0,
            })
            .collect();
        entries.sort_by(|a, b| {
            a.key
                .cmp(&b.key)
                .then(b.weight.cmp(&a.weight))
                .then(a.mv.cmp(&b.mv))
        });
        entries
    }
}

/// The bytes of a book file holding these entries.
pub fn to_bytes(entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(entries.len() * ENTRY_SIZE);
    for e in entries {
        out.extend_from_slice(&e.to_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::chess::Position;
    use crate::tools::pgn::games;

    fn build(text: &str, options: BuildOptions) -> Vec<Entry> {
        let mut b = Builder::new(options);
        for g in games(text.as_bytes()) {
            b.add_game(&g.unwrap());
        }
        b.entries()
    }

    fn weight(entries: &[Entry], pos: &Position, uci: &str) -> Option<u16> {
        let m = polyglot::encode_move(pos.parse_uci_move(uci).unwrap());
        let k = polyglot::key(pos);
        entries
            .iter()
            .find(|e| e.key == k && e.mv == m)
            .map(|e| e.weight)
    }

    #[test]
    fn results_weight_the_moves() {
        let text =
            "1. e4 e5 2. Nf3 1-0\n1. e4 c5 0-1\n1. e4 e5 1/2-1/2\n1. d4 d5 *\n1. d4 Nf6 0-1\n";
        let entries = build(text, BuildOptions::default());
        let start = Position::startpos();
        // e4: win 2 + loss 0 + draw 1.
        assert_eq!(weight(&entries, &start, "e2e4"), Some(3));
        // d4: unknown 1 + loss 0.
        assert_eq!(weight(&entries, &start, "d2d4"), Some(1));
        let mut after_e4 = start.clone();
        after_e4.play(start.parse_uci_move("e2e4").unwrap());
        // e5 for Black: loss 0 + draw 1; c5: win 2.
        assert_eq!(weight(&entries, &after_e4, "e7e5"), Some(1));
        assert_eq!(weight(&entries, &after_e4, "c7c5"), Some(2));
        assert!(entries.windows(2).all(|w| w[0].key <= w[1].key));
        // A move only ever lost is dropped: 1. d4 Nf6 0-1 gave White's d4 0
        // but d4 stays through the other game; 2. Nf3 after 1. e4 e5 won.
        let mut after_e5 = after_e4.clone();
        after_e5.play(after_e4.parse_uci_move("e7e5").unwrap());
        assert_eq!(weight(&entries, &after_e5, "g1f3"), Some(2));
    }

    #[test]
    fn limits_and_merging() {
        // Transposition: 1. d4 Nf6 2. c4 and 1. c4 Nf6 2. d4 meet.
        let text = "1. d4 Nf6 2. c4 e6 *\n1. c4 Nf6 2. d4 e6 *\n1. e4 e5 *\n";
        let entries = build(text, BuildOptions::default());
        let pos =
            Position::from_fen("rnbqkb1r/pppppppp/5n2/8/2PP4/8/PP2PPPP/RNBQKBNR b KQkq - 0 2")
                .unwrap()
                .0;
        assert_eq!(weight(&entries, &pos, "e7e6"), Some(2));
        // max_ply 1: only the first moves.
        let first = build(
            text,
            BuildOptions {
                max_ply: 1,
                min_games: 1,
            },
        );
        assert_eq!(first.len(), 3);
        // min_games 2: only what two games share.
        let shared = build(
            text,
            BuildOptions {
                max_ply: 20,
                min_games: 2,
            },
        );
        assert_eq!(shared.len(), 1);
        assert_eq!(
            weight(&shared, &pos, "e7e6"),
            Some(2),
            "only the transposed e6 is in two games"
        );
        // The same games in another order give the same bytes.
        let reordered = build(
            "1. e4 e5 *\n1. c4 Nf6 2. d4 e6 *\n1. d4 Nf6 2. c4 e6 *\n",
            BuildOptions::default(),
        );
        assert_eq!(to_bytes(&reordered), to_bytes(&entries));
    }

    #[test]
    fn heavy_weights_are_scaled() {
        let mut b = Builder::new(BuildOptions::default());
        let win = games(b"1. e4 e5 1-0").next().unwrap().unwrap();
        let draw = games(b"1. d4 d5 1/2-1/2").next().unwrap().unwrap();
        for _ in 0..40_000 {
            b.add_game(&win);
        }
        b.add_game(&draw);
        let entries = b.entries();
        let start = Position::startpos();
        assert_eq!(weight(&entries, &start, "e2e4"), Some(u16::MAX));
        assert_eq!(weight(&entries, &start, "d2d4"), Some(1));
    }
}
