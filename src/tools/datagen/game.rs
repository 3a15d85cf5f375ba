//! Playing one self-play game: an opening (book line or start position
//! plus random moves), then node-limited searches for both sides until the
//! rules, the tables or adjudication end the game.

use super::format::GameResult;
use crate::engine::chess::{Color, GameEnd, Move, Position};
use crate::engine::search::{Job, Limits, MATE_BOUND, SearchOptions, SearchPool};
use crate::engine::tablebase::{Tablebases, Wdl};
use std::fmt;
use std::sync::Arc;

/// An opening whose first search scores beyond this is too lopsided to
/// teach anything but the obvious; another is drawn instead.
const MAX_OPENING_SCORE: i32 = 1000;
/// Openings drawn before giving up (a book of nothing but lost positions).
const MAX_OPENING_TRIES: u32 = 200;

/// When a game is called before the rules end it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Adjudication {
    /// A score of at least `win_score` cp (mates included), held by the same
    /// side for `win_plies` searched plies in a row (0: never), is a win
    /// for that side: the rest of the game adds little but length.
    pub win_score: i32,
    pub win_plies: u32,
    /// From searched ply `draw_after` on, `draw_plies` plies in a row
    /// (0: never) scored within ±`draw_score` cp are a draw: dead-level
    /// endgames would otherwise fill the data with shuffling until the
    /// fifty-move rule.
    pub draw_after: u32,
    pub draw_score: i32,
    pub draw_plies: u32,
    /// Searched plies after which the game is a draw whatever the score.
    pub max_plies: u32,
}

impl Default for Adjudication {
    fn default() -> Adjudication {
        Adjudication {
            win_score: 2000,
            win_plies: 4,
            draw_after: 80,
            draw_score: 10,
            draw_plies: 12,
            max_plies: 400,
        }
    }
}

/// What every game of a run shares.
#[derive(Clone, Debug)]
pub struct GameSettings {
    /// The hard node limit of every search.
    pub nodes: u64,
    /// The soft one: no iteration starts past it (`None`: off).
    pub soft_nodes: Option<u64>,
    pub random_plies: u32,
    pub adjudication: Adjudication,
    /// Ends a game as soon as a move reaches a position in these tables,
    /// with the tables' result ([`tablebase_result`]).
    pub tablebases: Option<Arc<Tablebases>>,
}

/// A finished game: the positions worth training on, each with its search
/// score in centipawns from White's point of view, and the result; and
/// the whole game, for game files: where it started (the book line), the
/// opening's random moves, and every searched move with its score.
#[derive(Clone, Debug)]
pub struct PlayedGame {
    pub positions: Vec<(Position, i16)>,
    pub result: GameResult,
    /// Plies searched (the opening's random moves not included).
    pub plies: u32,
    pub start: Position,
    pub opening: Vec<Move>,
    /// Each searched ply's move and score (White's view; mate scores as
    /// the search gives them).
    pub moves: Vec<(Move, i32)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameError {
    /// Every opening tried was over by the rules or had a lopsided score.
    NoOpening { tries: u32 },
    /// The search returned no move in a position that has legal moves.
    NoMove(String),
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            GameError::NoOpening { tries } => write!(
                f,
                "no usable opening in {tries} tries (each was over by the rules or scored \
                 beyond ±{MAX_OPENING_SCORE} cp)"
            ),
            GameError::NoMove(fen) => write!(f, "the search found no move in {fen}"),
        }
    }
}

impl std::error::Error for GameError {}

use crate::engine::rng::Rng;

/// The generator for game `index` of a run seeded with `seed`: every game
/// has its own stream, so a resumed run (which continues at the next
/// index) plays new games, whichever thread plays them.
pub fn rng_for_game(seed: u64, index: u64) -> Rng {
    let mixed = Rng::new(seed).next_u64() ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03);
    let mut rng = Rng::new(mixed);
    rng.next_u64();
    rng
}

/// Where an opening starts, its random moves, the position they reach
/// and the keys of the positions before it.
struct Opening {
    start: Position,
    moves: Vec<Move>,
    pos: Position,
    keys: Vec<u64>,
}

/// A random opening, or `None` when the random moves reach a position
/// with no legal move.
fn random_opening(book: &[Position], random_plies: u32, rng: &mut Rng) -> Option<Opening> {
    let start = if book.is_empty() {
        Position::startpos()
    } else {
        book[rng.below(book.len())].clone()
    };
    let mut pos = start.clone();
    let mut keys = Vec::new();
    let mut moves = Vec::new();
    for _ in 0..random_plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            return None;
        }
        keys.push(pos.key());
        let mv = legal[rng.below(legal.len())];
        moves.push(mv);
        pos.play(mv);
    }
    (!pos.legal_moves().is_empty()).then_some(Opening {
        start,
        moves,
        pos,
        keys,
    })
}

/// Plays one game with `pool` (one thread; cleared here, before each try).
pub fn play(
    pool: &mut SearchPool,
    settings: &GameSettings,
    book: &[Position],
    rng: &mut Rng,
) -> Result<PlayedGame, GameError> {
    for _ in 0..MAX_OPENING_TRIES {
        let Some(opening) = random_opening(book, settings.random_plies, rng) else {
            continue;
        };
        pool.clear();
        if let Some(game) = play_from(pool, settings, opening)? {
            return Ok(game);
        }
    }
    Err(GameError::NoOpening {
        tries: MAX_OPENING_TRIES,
    })
}

/// How the rules end the game in `pos`, if they do (`keys`: the game's
/// positions before it).
fn rules_result(pos: &Position, keys: &[u64]) -> Option<GameResult> {
    Some(match pos.game_end(keys)? {
        GameEnd::Checkmate if pos.side_to_move() == Color::White => GameResult::BlackWin,
        GameEnd::Checkmate => GameResult::WhiteWin,
        _ => GameResult::Draw,
    })
}

/// The exact result of `pos` by the tables, when it is in them: the
/// position's pieces within the tables' reach, no castling rights, and the
/// fifty-move rule counted from its halfmove clock, as a game goes on under
/// it (a win the rule frustrates is a draw, and so is a loss it saves).
/// With the clock at 0 the WDL tables say it; otherwise the DTZ tables
/// must (`None` without them: the game goes on until a capture or pawn
/// move zeroes the clock): a win is a win when the winner can zero the
/// clock again before it reaches 100 plies (DTZ plus the clock at most 100).
pub fn tablebase_result(tables: &Tablebases, pos: &Position) -> Option<GameResult> {
    if pos.castling_rights() != 0 || pos.occupied().count() as usize > tables.max_pieces() {
        return None;
    }
    let clock = pos.halfmove_clock() as i32;
    let wdl = if clock == 0 {
        tables.probe_wdl(pos)?.under_rule50(true)
    } else {
        let dtz = tables.probe_dtz(pos)?;
        if dtz == 0 || dtz.abs() + clock > 100 {
            Wdl::Draw
        } else if dtz > 0 {
            Wdl::Win
        } else {
            Wdl::Loss
        }
    };
    let mover = pos.side_to_move();
    Some(match wdl {
        Wdl::Win if mover == Color::White => GameResult::WhiteWin,
        Wdl::Win => GameResult::BlackWin,
        Wdl::Loss if mover == Color::White => GameResult::BlackWin,
        Wdl::Loss => GameResult::WhiteWin,
        _ => GameResult::Draw,
    })
}

/// Tracks the adjudication streaks.
struct Adjudicator {
    rules: Adjudication,
    /// Consecutive plies with |score| >= win_score, and for which side.
    win_plies: u32,
    winner: Option<Color>,
    draw_plies: u32,
}

impl Adjudicator {
    fn new(rules: Adjudication) -> Adjudicator {
        Adjudicator {
            rules,
            win_plies: 0,
            winner: None,
            draw_plies: 0,
        }
    }

    fn update(&mut self, ply: u32, score_white: i32) -> Option<GameResult> {
        let rules = self.rules;
        if score_white.abs() >= rules.win_score {
            let side = if score_white > 0 {
                Color::White
            } else {
                Color::Black
            };
            if self.winner == Some(side) {
                self.win_plies += 1;
            } else {
                self.winner = Some(side);
                self.win_plies = 1;
            }
            if rules.win_plies > 0 && self.win_plies >= rules.win_plies {
                return Some(match side {
                    Color::White => GameResult::WhiteWin,
                    Color::Black => GameResult::BlackWin,
                });
            }
        } else {
            self.winner = None;
            self.win_plies = 0;
        }
        if ply >= rules.draw_after && score_white.abs() <= rules.draw_score {
            self.draw_plies += 1;
            if rules.draw_plies > 0 && self.draw_plies >= rules.draw_plies {
                return Some(GameResult::Draw);
            }
        } else {
            self.draw_plies = 0;
        }
        None
    }
}

/// Plays the game out from an opening; `None` when the opening is already
/// over by the rules or the first search finds it too lopsided.
fn play_from(
    pool: &mut SearchPool,
    settings: &GameSettings,
    opening: Opening,
) -> Result<Option<PlayedGame>, GameError> {
    let Opening {
        start,
        moves: opening,
        mut pos,
        mut keys,
    } = opening;
    let mut positions = Vec::new();
    let mut moves = Vec::new();
    let mut adjudicator = Adjudicator::new(settings.adjudication);
    let mut ply = 0;
    let result = loop {
        if let Some(result) = rules_result(&pos, &keys) {
            if ply == 0 {
                // A game over before it starts teaches nothing.
                return Ok(None);
            }
            break result;
        }
        // After a searched move, a position in the tables ends the game
        // with their exact result (the start is searched: it may be a book
        // line inside them, and a game needs one searched ply).
        if ply > 0
            && let Some(tables) = &settings.tablebases
            && let Some(result) = tablebase_result(tables, &pos)
        {
            break result;
        }
        if ply >= settings.adjudication.max_plies {
            break GameResult::Draw;
        }
        // The search needs only the positions that can still repeat.
        let reach = (pos.halfmove_clock() as usize).min(keys.len());
        let found = pool.search(Job {
            root: pos.clone(),
            history: keys[keys.len() - reach..].to_vec(),
            limits: Limits {
                nodes: Some(settings.nodes),
                soft_nodes: settings.soft_nodes,
                ..Limits::default()
            },
            options: SearchOptions::default(),
        });
        let Some(best) = found.best else {
            return Err(GameError::NoMove(pos.fen()));
        };
        let score_white = match pos.side_to_move() {
            Color::White => found.score,
            Color::Black => -found.score,
        };
        if ply == 0 && score_white.abs() > MAX_OPENING_SCORE {
            return Ok(None);
        }
        // Quiet positions only: a tactic in progress makes the score a
        // poor label for the position's static features.
        let quiet = !pos.in_check() && !pos.is_capture(best) && best.promo().is_none();
        if quiet && score_white.abs() < MATE_BOUND {
            positions.push((pos.clone(), score_white as i16));
        }
        moves.push((best, score_white));
        if let Some(result) = adjudicator.update(ply, score_white) {
            break result;
        }
        keys.push(pos.key());
        pos.play(best);
        ply += 1;
    };
    Ok(Some(PlayedGame {
        positions,
        result,
        plies: ply,
        start,
        opening,
        moves,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(fen: &str) -> Position {
        match Position::from_fen(fen) {
            Ok((pos, _)) => pos,
            Err(e) => panic!("{fen}: {e}"),
        }
    }

    #[test]
    fn rng_streams_differ_by_game_and_repeat_by_seed() {
        let draw = |seed, index| {
            let mut r = rng_for_game(seed, index);
            (0..4).map(|_| r.next_u64()).collect::<Vec<_>>()
        };
        assert_eq!(draw(7, 3), draw(7, 3));
        assert_ne!(draw(7, 3), draw(7, 4));
        assert_ne!(draw(7, 3), draw(8, 3));
        let mut r = rng_for_game(1, 0);
        let mut seen = [0u32; 5];
        for _ in 0..5000 {
            seen[r.below(5)] += 1;
        }
        assert!(seen.iter().all(|&n| (800..1200).contains(&n)), "{seen:?}");
    }

    #[test]
    fn rules_end_games() {
        // Fool's mate: White is mated.
        let mated = position("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
        assert_eq!(rules_result(&mated, &[]), Some(GameResult::BlackWin));
        let stalemate = position("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
        assert_eq!(rules_result(&stalemate, &[]), Some(GameResult::Draw));
        let fifty = position("4k3/8/8/8/8/8/4P3/4K2R w - - 100 80");
        assert_eq!(rules_result(&fifty, &[]), Some(GameResult::Draw));
        let bare = position("4k3/8/8/8/8/8/8/3NK3 w - - 0 1");
        assert_eq!(rules_result(&bare, &[]), Some(GameResult::Draw));
        assert_eq!(rules_result(&Position::startpos(), &[]), None);
    }

    #[test]
    fn adjudication_streaks() {
        let rules = Adjudication::default();
        let mut a = Adjudicator::new(rules);
        assert_eq!(a.update(10, 2500), None);
        assert_eq!(a.update(11, 2100), None);
        assert_eq!(
            a.update(12, -3000),
            None,
            "a change of sign restarts the count"
        );
        assert_eq!(a.update(13, -2000), None);
        assert_eq!(a.update(14, -2200), None);
        assert_eq!(a.update(15, -MATE_BOUND), Some(GameResult::BlackWin));

        let mut a = Adjudicator::new(rules);
        for ply in 0..rules.draw_after {
            assert_eq!(a.update(ply, 0), None, "no draw before ply 80");
        }
        for ply in 80..80 + 12 - 1 {
            assert_eq!(a.update(ply, 5), None);
        }
        assert_eq!(a.update(200, -10), Some(GameResult::Draw));

        // Other limits, and 0 plies for never.
        let rules = Adjudication {
            win_score: 500,
            win_plies: 2,
            draw_after: 0,
            draw_score: 30,
            draw_plies: 0,
            max_plies: 400,
        };
        let mut a = Adjudicator::new(rules);
        assert_eq!(a.update(0, -499), None);
        for ply in 1..100 {
            assert_eq!(a.update(ply, 30), None, "draws are off");
        }
        assert_eq!(a.update(100, 500), None);
        assert_eq!(a.update(101, 501), Some(GameResult::WhiteWin));
        let mut a = Adjudicator::new(Adjudication {
            win_plies: 0,
            ..Adjudication::default()
        });
        for ply in 0..50 {
            assert_eq!(a.update(ply, MATE_BOUND), None, "wins are off");
        }
    }

    fn tables() -> Tablebases {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy");
        let (tables, errors) = Tablebases::load(path);
        assert!(errors.is_empty(), "{errors:?}");
        tables
    }

    #[test]
    fn tablebase_results_count_the_fifty_move_rule() {
        let tables = tables();
        let result = |fen: &str| tablebase_result(&tables, &position(fen));
        // KRvK, Black to move: lost, unless the clock runs out first.
        assert_eq!(
            result("4k3/8/8/8/8/8/8/R3K3 b - - 0 1"),
            Some(GameResult::WhiteWin)
        );
        assert_eq!(
            result("4k3/8/8/8/8/8/8/R3K3 b - - 60 40"),
            Some(GameResult::WhiteWin)
        );
        assert_eq!(
            result("4k3/8/8/8/8/8/8/R3K3 b - - 95 60"),
            Some(GameResult::Draw)
        );
        // KQvK, White to move: won; Black to move with the queen en prise: drawn.
        assert_eq!(
            result("8/8/8/8/8/8/k7/4K2Q w - - 0 1"),
            Some(GameResult::WhiteWin)
        );
        assert_eq!(
            result("8/8/8/8/8/8/6k1/4K2Q b - - 0 1"),
            Some(GameResult::Draw)
        );
        // A black win of KQvKR.
        assert_eq!(
            result("8/8/8/8/2q5/2k5/8/K6R b - - 0 1"),
            Some(GameResult::BlackWin)
        );
        // Five pieces, or castling rights: not in these tables.
        assert_eq!(result("4k3/p7/8/8/8/8/P7/R3K3 b - - 0 1"), None);
        assert_eq!(result("4k3/8/8/8/8/8/8/R3K3 b Q - 0 1"), None);
    }

    #[test]
    fn soft_nodes_finish_the_iteration_that_passes_them() {
        let mut pool = SearchPool::new(1, 1).unwrap();
        let search = |pool: &mut SearchPool, limits: Limits| {
            pool.clear();
            pool.search(Job {
                root: Position::startpos(),
                history: Vec::new(),
                limits,
                options: SearchOptions::default(),
            })
        };
        let soft = search(
            &mut pool,
            Limits {
                nodes: Some(1_000_000),
                soft_nodes: Some(3000),
                ..Limits::default()
            },
        );
        assert!(soft.nodes >= 3000, "{}", soft.nodes);
        // Exactly the nodes of the whole last iteration: the same search
        // to that depth.
        let by_depth = search(
            &mut pool,
            Limits {
                depth: Some(soft.depth),
                ..Limits::default()
            },
        );
        assert_eq!(
            (by_depth.nodes, by_depth.best, by_depth.score),
            (soft.nodes, soft.best, soft.score)
        );
        let shallower = search(
            &mut pool,
            Limits {
                depth: Some(soft.depth - 1),
                ..Limits::default()
            },
        );
        assert!(shallower.nodes < 3000, "{}", shallower.nodes);
        // A soft limit at the hard one changes nothing: the hard limit cuts
        // the iteration that would pass it (the result is the last whole
        // iteration's, and its nodes are that iteration's count).
        let hard = |pool: &mut SearchPool, soft| {
            search(
                pool,
                Limits {
                    nodes: Some(3000),
                    soft_nodes: soft,
                    ..Limits::default()
                },
            )
        };
        let (cut, off) = (hard(&mut pool, Some(3000)), hard(&mut pool, None));
        assert_eq!(
            (cut.nodes, cut.depth, cut.best, cut.score),
            (off.nodes, off.depth, off.best, off.score)
        );
        assert_eq!(cut.depth, soft.depth - 1);
    }

    #[test]
    fn finished_or_lopsided_openings_are_refused() {
        let mut pool = SearchPool::new(1, 1).unwrap();
        let settings = GameSettings {
            nodes: 300,
            soft_nodes: None,
            random_plies: 0,
            adjudication: Adjudication::default(),
            tablebases: None,
        };
        let refused = GameError::NoOpening {
            tries: MAX_OPENING_TRIES,
        };
        for fen in [
            "4k3/8/8/8/8/8/8/3NK3 w - - 0 1",
            "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
            "4k3/8/8/8/8/8/8/QQQQK3 w - - 0 1",
        ] {
            let mut rng = rng_for_game(1, 0);
            let result = play(&mut pool, &settings, &[position(fen)], &mut rng);
            assert_eq!(result.err(), Some(refused.clone()), "{fen}");
        }
        // One good line among them is found.
        let book = [
            position("4k3/8/8/8/8/8/8/QQQQK3 w - - 0 1"),
            Position::startpos(),
        ];
        let mut rng = rng_for_game(1, 0);
        assert!(play(&mut pool, &settings, &book, &mut rng).is_ok());
    }

    #[test]
    fn a_game_records_only_quiet_positions() {
        let mut pool = SearchPool::new(1, 1).unwrap();
        let settings = GameSettings {
            nodes: 300,
            soft_nodes: None,
            random_plies: 6,
            adjudication: Adjudication::default(),
            tablebases: None,
        };
        let mut rng = rng_for_game(42, 0);
        let game = play(&mut pool, &settings, &[], &mut rng).unwrap();
        assert!(game.plies > 0);
        assert!(!game.positions.is_empty());
        assert!(game.positions.len() <= game.plies as usize);
        for (pos, score) in &game.positions {
            assert!(!pos.in_check(), "{}", pos.fen());
            assert!((*score as i32).abs() < MATE_BOUND);
        }
        // Six random plies from the start: the first recorded position has
        // at least six plies behind it.
        assert!(game.positions[0].0.fullmove_number() >= 4);
    }
}
