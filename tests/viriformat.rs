//! Our game files (`forsyth::tools::datagen::games`) against the `viriformat`
//! crate, Viridithas's own code for the format, both ways: games we write
//! read back in the crate with the same moves, positions, scores and
//! results, and games the crate writes read back in ours. The games are
//! random legal moves from the start position, Chess960 starts and
//! positions that reach en passant and promotions; each direction counts
//! the castling, en-passant and promotion moves it carried, so that a
//! change to the games cannot quietly drop a kind of move.

use forsyth::engine::chess::{MoveKind, Position};
use forsyth::engine::rng::Rng;
use forsyth::tools::datagen::format::GameResult;
use forsyth::tools::datagen::games::{Game, GameReader, Ply, encode_games};
use viriformat::chess::board::Board;
use viriformat::dataformat::{Game as ViriGame, WDL};

/// Start positions: standard, en passant and promotions close at hand,
/// castling both ways for both sides, and Chess960 (Shredder FEN).
const STARTS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "4k3/1P4p1/8/5P2/8/8/p5P1/4K3 b - - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9",
    "1r2k1rr/8/8/8/8/8/8/RR2K2R w HBgb - 0 1",
];

const GAMES_PER_START: usize = 12;
const MAX_PLIES: usize = 160;

fn position(fen: &str) -> Position {
    let (pos, warnings) = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    assert!(warnings.is_empty(), "{fen}: {warnings:?}");
    pos
}

/// The FEN fields both sides write alike: placement, side, halfmove clock.
fn common_fields(fen: &str) -> String {
    let fields: Vec<&str> = fen.split(' ').collect();
    format!("{} {} {}", fields[0], fields[1], fields[4])
}

fn result_of(i: usize) -> GameResult {
    [GameResult::BlackWin, GameResult::Draw, GameResult::WhiteWin][i % 3]
}

fn wdl_of(result: GameResult) -> WDL {
    match result {
        GameResult::BlackWin => WDL::Loss,
        GameResult::Draw => WDL::Draw,
        GameResult::WhiteWin => WDL::Win,
    }
}

/// Castling, en-passant and promotion moves among `moves`.
#[derive(Default, Debug, PartialEq, Eq)]
struct Kinds {
    castling: usize,
    en_passant: usize,
    promotions: usize,
    plies: usize,
}

/// Random games in our move generator (castling and en passant, when
/// legal, half the time), with varied scores (mate scores
/// included) and opening-ply counts.
fn our_games(kinds: &mut Kinds) -> Vec<Game> {
    let mut rng = Rng::new(37);
    let mut games = Vec::new();
    for (s, fen) in STARTS.iter().enumerate() {
        for i in 0..GAMES_PER_START {
            let mut pos = position(fen);
            let mut game = Game::new(pos.clone(), result_of(s + i));
            for ply in 0..MAX_PLIES {
                let moves = pos.legal_moves();
                if moves.is_empty() || pos.halfmove_clock() >= 100 {
                    break;
                }
                // Castling and en passant, when legal, half the time.
                let special: Vec<_> = moves
                    .iter()
                    .copied()
                    .filter(|m| matches!(m.kind(), MoveKind::Castling | MoveKind::EnPassant))
                    .collect();
                let mv = if !special.is_empty() && rng.below(2) == 0 {
                    special[rng.below(special.len())]
                } else {
                    moves[rng.below(moves.len())]
                };
                match mv.kind() {
                    MoveKind::Castling => kinds.castling += 1,
                    MoveKind::EnPassant => kinds.en_passant += 1,
                    MoveKind::Promotion => kinds.promotions += 1,
                    MoveKind::Normal => {}
                }
                kinds.plies += 1;
                let score = match ply % 7 {
                    0 => 31_900,
                    1 => -31_950,
                    _ => rng.below(4001) as i16 - 2000,
                };
                game.plies.push(Ply { mv, score });
                pos.play(mv);
            }
            game.opening_plies = (i % 9).min(game.plies.len()) as u8;
            games.push(game);
        }
    }
    games
}

#[test]
fn the_crate_reads_our_games() {
    let mut kinds = Kinds::default();
    let games = our_games(&mut kinds);
    let bytes = encode_games(&games);
    let mut reader = &bytes[..];
    for (n, ours) in games.iter().enumerate() {
        let theirs = ViriGame::deserialise_from(&mut reader, Vec::new())
            .unwrap_or_else(|e| panic!("game {n}: {e}"));
        assert_eq!(theirs.outcome(), wdl_of(ours.result), "game {n}");
        assert_eq!(theirs.initial_position.unpack().3, ours.opening_plies);
        assert_eq!(theirs.len(), ours.plies.len(), "game {n}");
        let mut board = theirs.initial_position();
        let mut pos = ours.start.clone();
        for (i, ((mv, score), ply)) in theirs.moves.iter().zip(&ours.plies).enumerate() {
            assert_eq!(
                common_fields(&board.to_string()),
                common_fields(&pos.fen()),
                "game {n} ply {i}"
            );
            assert_eq!(score.get(), ply.score);
            assert!(board.legal_moves().contains(mv), "game {n} ply {i}");
            assert_eq!(
                mv.display(true).to_string(),
                ply.mv.uci(true).to_string(),
                "game {n} ply {i}"
            );
            assert!(board.make_move_simple(*mv));
            pos.play(ply.mv);
        }
        assert_eq!(common_fields(&board.to_string()), common_fields(&pos.fen()));
    }
    assert!(reader.is_empty());
    assert_eq!(games.len(), STARTS.len() * GAMES_PER_START);
    assert_eq!(
        kinds,
        Kinds {
            castling: 75,
            en_passant: 12,
            promotions: 87,
            plies: 12_228
        }
    );
}

#[test]
fn we_read_the_crates_games() {
    let mut rng = Rng::new(960);
    let mut bytes = Vec::new();
    let mut expected: Vec<(GameResult, Vec<String>, Vec<i16>)> = Vec::new();
    let mut kinds = Kinds::default();
    for (s, fen) in STARTS.iter().enumerate() {
        for i in 0..GAMES_PER_START {
            // Chess960 castling notation (king takes rook) for every start.
            let mut board = Board::new();
            board
                .set_from_fen(fen, true)
                .unwrap_or_else(|e| panic!("{fen}: {e}"));
            let result = result_of(s + i);
            let mut game = ViriGame {
                initial_position: board.to_marlinformat(0, result as u8, 0),
                moves: Vec::new(),
            };
            let mut uci = Vec::new();
            let mut scores = Vec::new();
            for _ in 0..MAX_PLIES {
                let moves = board.legal_moves();
                if moves.is_empty() || board.fifty_move_counter() >= 100 {
                    break;
                }
                let special: Vec<_> = moves
                    .iter()
                    .copied()
                    .filter(|m| m.is_castle() || m.is_ep())
                    .collect();
                let mv = if !special.is_empty() && rng.below(2) == 0 {
                    special[rng.below(special.len())]
                } else {
                    moves[rng.below(moves.len())]
                };
                if mv.is_castle() {
                    kinds.castling += 1;
                } else if mv.is_ep() {
                    kinds.en_passant += 1;
                } else if mv.is_promo() {
                    kinds.promotions += 1;
                }
                kinds.plies += 1;
                let score = rng.below(20_001) as i16 - 10_000;
                game.add_move(mv, score);
                uci.push(mv.display(true).to_string());
                scores.push(score);
                assert!(board.make_move_simple(mv));
            }
            game.serialise_into(&mut bytes).unwrap();
            expected.push((result, uci, scores));
        }
    }
    let games: Vec<Game> = GameReader::new(&bytes[..])
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(games.len(), expected.len());
    for (n, (game, (result, uci, scores))) in games.iter().zip(&expected).enumerate() {
        assert_eq!(game.result, *result, "game {n}");
        assert_eq!(game.opening_plies, 0);
        let ours: Vec<String> = game
            .plies
            .iter()
            .map(|p| p.mv.uci(true).to_string())
            .collect();
        assert_eq!(&ours, uci, "game {n}");
        let our_scores: Vec<i16> = game.plies.iter().map(|p| p.score).collect();
        assert_eq!(&our_scores, scores, "game {n}");
    }
    // And our bytes for what we read are the crate's bytes.
    assert_eq!(encode_games(&games), bytes);
    assert_eq!(
        kinds,
        Kinds {
            castling: 69,
            en_passant: 11,
            promotions: 92,
            plies: 11_847
        }
    );
}
