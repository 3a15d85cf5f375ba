use super::*;
use crate::search::bench::POSITIONS;

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).expect("valid FEN").0
}

/// Every position of a pseudo-random playout from each bench position.
fn positions() -> Vec<Position> {
    let mut out = Vec::new();
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    for fen in POSITIONS {
        let mut p = pos(fen);
        for _ in 0..120 {
            let legal = p.legal_moves();
            if legal.is_empty() {
                break;
            }
            out.push(p.clone());
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            p.play(legal[(rng % legal.len() as u64) as usize]);
        }
    }
    out
}

/// The score of a position is minus that of its colour-flipped mirror,
/// to the centipawn, on thousands of positions.
#[test]
fn evaluation_is_symmetric() {
    let all = positions();
    assert!(all.len() > 4000, "{} positions", all.len());
    for p in &all {
        let m = p.mirrored();
        // Both are scored from the side to move, who swaps sides too.
        assert_eq!(evaluate(p), evaluate(&m), "{} vs {}", p.fen(), m.fen());
    }
}

/// The `eval` table, the pawn cache and the search's scorer agree.
#[test]
fn table_and_cache_agree_with_the_scorer() {
    for p in positions().iter().step_by(7) {
        // Twice: the second call reads the pawn cache.
        let first = evaluate(p);
        assert_eq!(first, evaluate(p));
        let text = trace(p);
        let white = if p.side_to_move() == Color::White {
            first
        } else {
            -first
        };
        let expected = format!(
            "Final evaluation: {:+.2} (White's side)",
            white as f64 / 100.0
        );
        assert!(
            text.ends_with(&expected),
            "{}\n{text}\nexpected {expected}",
            p.fen()
        );
    }
}

#[test]
fn start_position_is_level_but_for_tempo() {
    let p = Position::startpos();
    let tempo = VALUES[TEMPO];
    assert_eq!(
        evaluate(&p),
        taper(
            tempo,
            Shape {
                phase: MAX_PHASE,
                scale: FULL_SCALE
            }
        )
    );
}

#[test]
fn features_are_found() {
    // White: isolated, doubled pawns on the a-file; a passed pawn on d5;
    // a knight outpost on e6; Black: a bishop pair.
    let mut seen = Vec::new();
    struct Collect<'a>(&'a mut Vec<(Color, usize, i32)>);
    impl Accumulator for Collect<'_> {
        fn add(&mut self, side: Color, param: usize, count: i32) {
            self.0.push((side, param, count));
        }
        fn wants_pawn_features(&self) -> bool {
            true
        }
    }
    let p = pos("4k3/1b4p1/1b2N3/3P4/8/P7/P5PP/4K3 w - - 0 1");
    features(&p, &mut Collect(&mut seen));
    let has = |side: Color, param: usize| {
        seen.iter()
            .any(|&(s, q, n)| s == side && q == param && n > 0)
    };
    assert!(has(Color::White, PAWN_ISOLATED));
    assert!(has(Color::White, PAWN_DOUBLED));
    assert!(has(Color::White, PASSED_RANK + 4));
    assert!(has(Color::White, OUTPOST));
    assert!(has(Color::Black, BISHOP_PAIR));
    assert!(!has(Color::White, BISHOP_PAIR));
    assert!(has(Color::White, TEMPO));
    assert!(!has(Color::Black, TEMPO));
    // The knight attacks the undefended g7 pawn.
    assert!(has(Color::White, HANGING));
}

#[test]
fn drawish_endings_are_recognised_and_scaled() {
    let case = |fen: &str| ending(&pos(fen), 100);
    // KNK and KBK: nothing to win with.
    assert_eq!(
        case("8/8/4k3/8/8/3NK3/8/8 w - - 0 1"),
        Some(Ending::BareMinor)
    );
    assert_eq!(
        case("8/8/4k3/8/8/3BK3/8/8 w - - 0 1"),
        Some(Ending::BareMinor)
    );
    // KRKB.
    assert_eq!(
        case("8/8/4k3/4b3/8/3RK3/8/8 w - - 0 1"),
        Some(Ending::PawnlessMinorUp)
    );
    // Opposite-coloured bishops alone, and with a rook each.
    assert_eq!(
        case("8/5p2/4kb2/8/1P6/3BK3/P7/8 w - - 0 1"),
        Some(Ending::OppositeBishops)
    );
    assert_eq!(
        case("r7/5p2/4kb2/8/1P6/3BK3/P7/7R w - - 0 1"),
        Some(Ending::OppositeBishopsAndPieces)
    );
    // KRP v KR with the pawn on one wing.
    assert_eq!(
        case("8/8/4k3/8/6P1/4K3/r7/7R w - - 0 1"),
        Some(Ending::RookOneWing)
    );
    // A queen up is a queen up.
    assert_eq!(case("8/8/4k3/8/8/3QK3/8/8 w - - 0 1"), None);
    let p = pos("8/5p2/4kb2/8/1P6/3BK3/P7/8 w - - 0 1");
    assert_eq!(scale(&p, 100), SCALES[Ending::OppositeBishops as usize]);
    assert_eq!(
        scale(&pos("8/8/4k3/8/8/3QK3/8/8 w - - 0 1"), 100),
        FULL_SCALE
    );
}

#[test]
fn the_king_in_danger_scores_worse() {
    // Same material; Black's queen and rook bear down on White's king.
    let safe = pos("r5k1/5ppp/8/q7/8/8/5PPP/2R3K1 w - - 0 1");
    let attacked = pos("6k1/5ppp/7r/6q1/8/8/5PPP/2R3K1 w - - 0 1");
    let units = |p: &Position| {
        let mut t = Table::default();
        features(p, &mut t);
        t.danger
    };
    assert_eq!(units(&safe), [0, 0]);
    assert!(units(&attacked)[0] > 100, "{:?}", units(&attacked));
    assert_eq!(units(&attacked)[1], 0);
    assert!(evaluate(&attacked) < evaluate(&safe) - 20);
}
