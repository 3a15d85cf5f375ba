use super::*;
use crate::chess::moves::Move;

fn play_uci(pos: &mut Position, text: &str) {
    let m: Move = pos
        .legal_moves()
        .into_iter()
        .find(|m| m.uci(false).to_string() == text)
        .unwrap_or_else(|| panic!("{text} is not legal in {}", pos.fen()));
    pos.play(m);
}

#[test]
fn fen_after_moves_names_the_double_step_square() {
    let mut pos = Position::startpos();
    assert_eq!(pos.fen(), STARTPOS);
    play_uci(&mut pos, "e2e4");
    assert_eq!(
        pos.fen(),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    );
    play_uci(&mut pos, "c7c5");
    assert_eq!(
        pos.fen(),
        "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2"
    );
    play_uci(&mut pos, "g1f3");
    assert_eq!(
        pos.fen(),
        "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    );
}

#[test]
fn round_trips() {
    for fen in [
        "8/8/8/1r1B3R/3K1k2/8/8/8 b - - 0 175",
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/2N5/PPPP1PPP/R1BQKBNR w KQkq - 2 3",
    ] {
        let (pos, warnings) = Position::from_fen(fen).unwrap();
        assert!(warnings.is_empty());
        assert_eq!(pos.fen(), fen);
    }
}
