use super::*;
use crate::engine::chess::moves::Move;

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

// ----- Helpers -----

/// Reads a FEN that must be valid and produce no warnings.
fn read(fen: &str) -> Position {
    match Position::from_fen(fen) {
        Ok((pos, warnings)) => {
            assert!(warnings.is_empty(), "{fen:?}: unexpected {warnings:?}");
            pos
        }
        Err(e) => panic!("{fen:?} rejected: {e}"),
    }
}

/// Reads a FEN that must be rejected.
fn reject(fen: &str) -> FenError {
    match Position::from_fen(fen) {
        Ok((pos, _)) => panic!("{fen:?} accepted as {}", pos.fen()),
        Err(e) => e,
    }
}

fn sq(name: &str) -> Square {
    Square::parse(name).unwrap()
}

fn has_en_passant_move(pos: &Position) -> bool {
    pos.legal_moves()
        .iter()
        .any(|m| m.kind() == crate::engine::chess::moves::MoveKind::EnPassant)
}

// ----- Valid FENs -----

#[test]
fn valid_fens_round_trip_exactly() {
    for fen in [
        STARTPOS,
        // En-passant squares, with and without a pawn able to take.
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3",
        "4k3/8/8/8/Pp6/8/8/4K3 b - a3 0 40",
        "4k3/8/8/6pP/8/8/8/4K3 w - g6 0 61",
        // Black to move.
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 3 27",
        // High counters.
        "8/8/4k3/8/8/4K3/8/8 w - - 99 250",
        "8/5k2/8/8/8/8/2K5/8 b - - 1234 9999",
        "8/8/4k3/8/8/4K3/8/8 w - - 4000000000 4000000000",
        // No castling, partial castling.
        "r3k2r/8/8/8/8/8/8/R3K2R b - - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R w Qk - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R b K - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R w kq - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R b Q - 0 1",
        // Well-known perft positions.
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        // In check (one and two checkers) is fine for the side to move.
        "4k3/8/8/8/8/8/8/r3K3 w - - 0 1",
        "4k3/8/8/8/8/3n4/8/r3K3 w - - 0 1",
        // Chess960 with outermost rooks: written as KQkq.
        "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w KQkq - 0 1",
    ] {
        let pos = read(fen);
        assert_eq!(pos.fen(), fen);
    }
}

#[test]
fn missing_counters_default_to_zero_and_one() {
    let cases = [
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
            STARTPOS,
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 7",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 7 1",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
        ),
        // A fullmove number of 0 (seen in the wild) means 1.
        (
            "8/8/4k3/8/8/4K3/8/8 b - - 3 0",
            "8/8/4k3/8/8/4K3/8/8 b - - 3 1",
        ),
    ];
    for (input, output) in cases {
        assert_eq!(read(input).fen(), output, "{input:?}");
    }
}

#[test]
fn extra_whitespace_is_accepted() {
    for input in [
        "  rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR   w  KQkq  -   0  1  ",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR\tw\tKQkq\t-\t0\t1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\r",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\r\n",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\r\n",
        "\trnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w \t KQkq - 0 1\n",
    ] {
        assert_eq!(read(input).fen(), STARTPOS, "{input:?}");
    }
}

#[test]
fn setup_keeps_the_fields_as_given() {
    let setup = Setup::parse("r3k2r/8/8/8/8/8/8/R3K2R b HAk c3 12 34").unwrap();
    assert_eq!(setup.side, Color::Black);
    assert_eq!(setup.castling, vec!['H', 'A', 'k']);
    assert_eq!(setup.ep, Some(sq("c3")));
    assert_eq!((setup.halfmove, setup.fullmove), (12, 34));
    assert_eq!(setup.board[sq("a1").index()], Some(Piece::WhiteRook));
    assert_eq!(setup.board[sq("e8").index()], Some(Piece::BlackKing));
    assert_eq!(setup.board[sq("e4").index()], None);
    let setup = Setup::parse("8/8/8/8/8/8/8/8 w - -").unwrap();
    assert!(setup.castling.is_empty());
    assert_eq!(setup.ep, None);
    assert_eq!((setup.halfmove, setup.fullmove), (0, 1));
}

// ----- Castling notations -----

#[test]
fn castling_notations() {
    // (input, fen(), fen_shredder())
    let cases = [
        (
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1",
        ),
        // Shredder-FEN in a standard position comes out as KQkq.
        (
            "r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1",
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1",
        ),
        (
            "r3k2r/8/8/8/8/8/8/R3K2R b Hah - 0 1",
            "r3k2r/8/8/8/8/8/8/R3K2R b Kkq - 0 1",
            "r3k2r/8/8/8/8/8/8/R3K2R b Hha - 0 1",
        ),
        // Chess960 in Shredder-FEN: the rooks are the outermost ones.
        (
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        ),
        (
            "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w KQkq - 0 1",
            "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w KQkq - 0 1",
            "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w CAca - 0 1",
        ),
        // X-FEN: K and Q mean the outermost rook; an inner rook needs its file.
        (
            "r3k1rr/8/8/8/8/8/8/RR2K2R w KBgq - 0 1",
            "r3k1rr/8/8/8/8/8/8/RR2K2R w KBgq - 0 1",
            "r3k1rr/8/8/8/8/8/8/RR2K2R w HBga - 0 1",
        ),
        (
            "r3k1rr/8/8/8/8/8/8/RR2K2R w Aga - 0 1",
            "r3k1rr/8/8/8/8/8/8/RR2K2R w Qgq - 0 1",
            "r3k1rr/8/8/8/8/8/8/RR2K2R w Aga - 0 1",
        ),
        (
            "r3k1rr/8/8/8/8/8/8/RR2K2R w Qk - 0 1",
            "r3k1rr/8/8/8/8/8/8/RR2K2R w Qk - 0 1",
            "r3k1rr/8/8/8/8/8/8/RR2K2R w Ah - 0 1",
        ),
        // An enemy rook beyond the castling rook does not make it inner.
        (
            "4k3/8/8/8/8/8/8/rR2K3 w Q - 0 1",
            "4k3/8/8/8/8/8/8/rR2K3 w Q - 0 1",
            "4k3/8/8/8/8/8/8/rR2K3 w B - 0 1",
        ),
        // King on b1 with rook a1; king on g1 with rook h1.
        (
            "rk6/8/8/8/8/8/8/RK6 w Aa - 0 1",
            "rk6/8/8/8/8/8/8/RK6 w Qq - 0 1",
            "rk6/8/8/8/8/8/8/RK6 w Aa - 0 1",
        ),
        (
            "6kr/8/8/8/8/8/8/6KR b Kh - 5 20",
            "6kr/8/8/8/8/8/8/6KR b Kk - 5 20",
            "6kr/8/8/8/8/8/8/6KR b Hh - 5 20",
        ),
    ];
    for (input, fen, shredder) in cases {
        let pos = read(input);
        assert_eq!(pos.fen(), fen, "fen() of {input:?}");
        assert_eq!(pos.fen_shredder(), shredder, "fen_shredder() of {input:?}");
        // Both outputs read back to the same position.
        assert_eq!(read(fen).key(), pos.key());
        assert_eq!(read(shredder).fen(), fen);
    }
}

#[test]
fn castling_letters_resolve_to_rooks() {
    let pos = read("r3k1rr/8/8/8/8/8/8/RR2K2R w KBgq - 0 1");
    assert_eq!(pos.castling_rook(Color::White, true), Some(sq("h1")));
    assert_eq!(pos.castling_rook(Color::White, false), Some(sq("b1")));
    assert_eq!(pos.castling_rook(Color::Black, true), Some(sq("g8")));
    assert_eq!(pos.castling_rook(Color::Black, false), Some(sq("a8")));
    // K in the same position means the outermost rook, h8 for Black.
    let pos = read("r3k1rr/8/8/8/8/8/8/RR2K2R w kQ - 0 1");
    assert_eq!(pos.castling_rook(Color::Black, true), Some(sq("h8")));
    assert_eq!(pos.castling_rook(Color::White, false), Some(sq("a1")));
    assert_eq!(pos.castling_rook(Color::White, true), None);
    assert_eq!(pos.castling_rook(Color::Black, false), None);
}

#[test]
fn non_canonical_placements_are_normalised() {
    for (input, output) in [
        (
            "4k3/8/8/8/44/8/8/4K3 w - - 0 1",
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
        ),
        (
            "4k3/8/8/8/11111111/8/8/3K13 w - - 0 1",
            "4k3/8/8/8/8/8/8/3K4 w - - 0 1",
        ),
        (
            "4k3/8/8/8/8/8/8/1111K3 b - - 0 1",
            "4k3/8/8/8/8/8/8/4K3 b - - 0 1",
        ),
    ] {
        assert_eq!(read(input).fen(), output, "{input:?}");
    }
}

// ----- Rejections -----

#[test]
fn placement_errors() {
    let cases = [
        ("8/8/8/8/8/8/8 w - - 0 1", FenError::RankCount(7)),
        ("4k3/8/8/8/8/8/8/8/4K3 w - - 0 1", FenError::RankCount(9)),
        (
            "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            FenError::RankLength {
                rank: 7,
                squares: 7,
            },
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPPP/RNBQKBNR w KQkq - 0 1",
            FenError::RankLength {
                rank: 2,
                squares: 9,
            },
        ),
        ("4k3/8/8/8/8/8/8/4K3/ w - - 0 1", FenError::RankCount(9)),
        (
            "4k3/8/8/8/8/8//4K3 w - - 0 1",
            FenError::RankLength {
                rank: 2,
                squares: 0,
            },
        ),
        (
            "4k3/8/8/8/8/8/8/4K4 w - - 0 1",
            FenError::RankLength {
                rank: 1,
                squares: 9,
            },
        ),
        (
            "4k3/8/8/8/8/8/8/8K w - - 0 1",
            FenError::RankLength {
                rank: 1,
                squares: 9,
            },
        ),
        (
            "rnbqkbnr/pppppppp/8/8/4X3/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            FenError::BadPieceLetter {
                rank: 4,
                letter: 'X',
            },
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN* w KQkq - 0 1",
            FenError::BadPieceLetter {
                rank: 1,
                letter: '*',
            },
        ),
        (
            "rnbqkbnr/pppppppp/8/8/08/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            FenError::BadDigit {
                rank: 4,
                digit: '0',
            },
        ),
        (
            "rnbqkbnr/pppppppp/8/9/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            FenError::BadDigit {
                rank: 5,
                digit: '9',
            },
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1",
            FenError::KingCount {
                color: Color::White,
                count: 0,
            },
        ),
        (
            "8/8/8/8/8/8/8/8 w - - 0 1",
            FenError::KingCount {
                color: Color::White,
                count: 0,
            },
        ),
        (
            "k6k/8/8/8/8/8/8/4K3 w - - 0 1",
            FenError::KingCount {
                color: Color::Black,
                count: 2,
            },
        ),
        (
            "4k3/8/8/8/8/8/8/8 b - - 0 1",
            FenError::KingCount {
                color: Color::White,
                count: 0,
            },
        ),
        (
            "4k3/pppppppp/p7/8/8/8/8/4K3 w - - 0 1",
            FenError::TooManyPawns {
                color: Color::Black,
                count: 9,
            },
        ),
        (
            "4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1",
            FenError::TooManyPawns {
                color: Color::White,
                count: 9,
            },
        ),
        (
            "k7/8/8/8/8/NNNNNNNN/PPPPPPPP/4K3 w - - 0 1",
            FenError::TooManyPieces {
                color: Color::White,
                count: 17,
            },
        ),
        (
            "rnbqkbnr/pppppppp/1n6/8/8/8/8/4K3 w - - 0 1",
            FenError::TooManyPieces {
                color: Color::Black,
                count: 17,
            },
        ),
        (
            "4k3/8/8/8/8/8/8/P3K3 w - - 0 1",
            FenError::PawnOnBackRank(sq("a1")),
        ),
        (
            "4k2p/8/8/8/8/8/8/4K3 w - - 0 1",
            FenError::PawnOnBackRank(sq("h8")),
        ),
        (
            "4kP2/8/8/8/8/8/8/4K3 b - - 0 1",
            FenError::PawnOnBackRank(sq("f8")),
        ),
        ("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1", FenError::OpponentInCheck),
        (
            "rnbqkbnr/ppppp1pp/8/5p1Q/4P3/8/PPPP1PPP/RNB1KBNR w KQkq - 1 3",
            FenError::OpponentInCheck,
        ),
        (
            "4k3/8/8/8/8/3n4/8/r3K2r w - - 0 1",
            FenError::TooManyCheckers(3),
        ),
        (
            "4k3/8/8/8/1b6/3n4/8/r3K2r w - - 0 1",
            FenError::TooManyCheckers(4),
        ),
    ];
    for (fen, expected) in cases {
        let e = reject(fen);
        assert_eq!(e, expected, "{fen:?}");
        assert_eq!(e.field(), Some(FenField::Placement), "{fen:?}");
    }
}

#[test]
fn field_errors() {
    let bad_castling = |text: &str, reason| FenError::BadCastling {
        text: text.to_string(),
        reason,
    };
    let letters = "only '-', 'KQkq' or rook file letters are allowed";
    let repeated = "a letter is repeated";
    let too_many = "a side cannot have more than two castling rights";
    let counter = |field, text: &str| FenError::BadCounter {
        field,
        text: text.to_string(),
    };
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
    let cases = [
        ("x KQkq - 0 1", FenError::BadSide("x".to_string())),
        ("W KQkq - 0 1", FenError::BadSide("W".to_string())),
        ("white KQkq - 0 1", FenError::BadSide("white".to_string())),
        ("w KQX - 0 1", bad_castling("KQX", letters)),
        ("w KQkq1 - 0 1", bad_castling("KQkq1", letters)),
        ("w -K - 0 1", bad_castling("-K", letters)),
        ("w KK - 0 1", bad_castling("KK", repeated)),
        ("w KQkk - 0 1", bad_castling("KQkk", repeated)),
        ("w KQA - 0 1", bad_castling("KQA", too_many)),
        ("w Kqah - 0 1", bad_castling("Kqah", too_many)),
        ("w KQkq e9 0 1", FenError::BadEnPassant("e9".to_string())),
        ("w KQkq E3 0 1", FenError::BadEnPassant("E3".to_string())),
        ("w KQkq 33 0 1", FenError::BadEnPassant("33".to_string())),
        ("w KQkq i6 0 1", FenError::BadEnPassant("i6".to_string())),
        ("w KQkq e33 0 1", FenError::BadEnPassant("e33".to_string())),
        ("w KQkq - -1 1", counter(FenField::Halfmove, "-1")),
        ("w KQkq - x 1", counter(FenField::Halfmove, "x")),
        ("w KQkq - 1.5 1", counter(FenField::Halfmove, "1.5")),
        ("w KQkq - +3 1", counter(FenField::Halfmove, "+3")),
        (
            "w KQkq - 99999999999 1",
            counter(FenField::Halfmove, "99999999999"),
        ),
        ("w KQkq - 0 abc", counter(FenField::Fullmove, "abc")),
        ("w KQkq - 0 -2", counter(FenField::Fullmove, "-2")),
        ("w KQkq - 0 1 extra", FenError::FieldCount(7)),
        ("w KQkq", FenError::FieldCount(3)),
        ("w", FenError::FieldCount(2)),
    ];
    for (rest, expected) in cases {
        let fen = format!("{start} {rest}");
        assert_eq!(reject(&fen), expected, "{fen:?}");
    }
    assert_eq!(reject(""), FenError::FieldCount(0));
    assert_eq!(reject(" \t\r\n"), FenError::FieldCount(0));
    assert_eq!(reject("8/8/8/8"), FenError::FieldCount(1));
    // Syntax is checked before the position: a bad side beats a missing king.
    assert_eq!(
        reject("8/8/8/8/8/8/8/8 x - - 0 1"),
        FenError::BadSide("x".into())
    );
    // Field checks go from left to right.
    assert_eq!(
        reject("8/8/8/8/8/8/8/8 w KK e9 x y"),
        bad_castling("KK", repeated)
    );
}

#[test]
fn error_fields_and_messages() {
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
    let e = reject(&format!("{start} w KQX - 0 1"));
    assert_eq!(e.field(), Some(FenField::Castling));
    assert!(e.to_string().contains("castling"), "{e}");
    assert_eq!(
        e.to_string(),
        "FEN castling field: 'KQX': only '-', 'KQkq' or rook file letters are allowed"
    );
    let e = reject(&format!("{start} W KQkq - 0 1"));
    assert_eq!(e.field(), Some(FenField::Side));
    assert_eq!(
        e.to_string(),
        "FEN side to move field: 'W' is not 'w' or 'b'"
    );
    let e = reject(&format!("{start} w KQkq E3 0 1"));
    assert_eq!(e.field(), Some(FenField::EnPassant));
    assert!(e.to_string().contains("en passant"), "{e}");
    let e = reject(&format!("{start} w KQkq - 1.5 1"));
    assert_eq!(e.field(), Some(FenField::Halfmove));
    assert_eq!(
        e.to_string(),
        "FEN halfmove clock field: '1.5' is not a non-negative integer"
    );
    let e = reject(&format!("{start} w KQkq - 0 abc"));
    assert_eq!(e.field(), Some(FenField::Fullmove));
    assert!(e.to_string().contains("fullmove number"), "{e}");
    let e = reject("");
    assert_eq!(e.field(), None);
    assert_eq!(e.to_string(), "FEN needs 4 to 6 fields, found 0");
    let e = reject("k6k/8/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(
        e.to_string(),
        "FEN piece placement field: black has 2 kings instead of one"
    );
    let e = reject("4k3/8/8/8/8/8/8/P3K3 w - - 0 1");
    assert!(e.to_string().contains("a1"), "{e}");
}

// ----- Warnings -----

#[test]
fn castling_warnings_drop_the_right() {
    let dropped = |letter, reason| FenWarning::CastlingDropped { letter, reason };
    let cases = [
        (
            "4k3/8/8/8/8/8/8/R3K3 w KQ - 0 1",
            vec![dropped('K', "no rook on the king side of the king")],
            "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",
        ),
        (
            "r3k3/8/8/8/8/8/8/4K2R b Kkq - 0 1",
            vec![dropped('k', "no rook on the king side of the king")],
            "r3k3/8/8/8/8/8/8/4K2R b Kq - 0 1",
        ),
        (
            "4k3/8/8/8/8/8/8/4K2R w Q - 0 1",
            vec![dropped('Q', "no rook on the queen side of the king")],
            "4k3/8/8/8/8/8/8/4K2R w - - 0 1",
        ),
        // An enemy rook is no castling rook.
        (
            "4k3/8/8/8/8/8/8/4K1Nr w K - 0 1",
            vec![dropped('K', "no rook on the king side of the king")],
            "4k3/8/8/8/8/8/8/4K1Nr w - - 0 1",
        ),
        (
            "4k3/8/8/8/8/8/4K3/R6R w KQ - 0 1",
            vec![
                dropped('K', "the king is not on its first rank"),
                dropped('Q', "the king is not on its first rank"),
            ],
            "4k3/8/8/8/8/8/4K3/R6R w - - 0 1",
        ),
        (
            "r6r/4k3/8/8/8/8/8/R3K2R w KQkq - 0 1",
            vec![
                dropped('k', "the king is not on its first rank"),
                dropped('q', "the king is not on its first rank"),
            ],
            "r6r/4k3/8/8/8/8/8/R3K2R w KQ - 0 1",
        ),
        (
            "4k3/8/8/8/8/8/8/4K2R w HA - 0 1",
            vec![dropped('A', "no rook of that colour on that file")],
            "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
        ),
        (
            "r3k3/8/8/8/8/8/8/4K2R w Kh - 0 1",
            vec![dropped('h', "no rook of that colour on that file")],
            "r3k3/8/8/8/8/8/8/4K2R w K - 0 1",
        ),
        (
            "r3k2r/8/8/8/8/8/8/R3K2R w KH - 0 1",
            vec![dropped(
                'H',
                "that side already has a castling right on this wing",
            )],
            "r3k2r/8/8/8/8/8/8/R3K2R w K - 0 1",
        ),
    ];
    for (input, warnings, fen) in cases {
        let (pos, got) = Position::from_fen(input).unwrap();
        assert_eq!(got, warnings, "{input:?}");
        assert_eq!(pos.fen(), fen, "{input:?}");
        assert_eq!(pos.key(), read(fen).key(), "{input:?}");
    }
    let w = dropped('K', "no rook on the king side of the king");
    assert_eq!(
        w.to_string(),
        "castling right 'K' dropped: no rook on the king side of the king"
    );
}

#[test]
fn en_passant_warnings_drop_the_square() {
    let dropped = |square: &str, reason| FenWarning::EnPassantDropped {
        square: sq(square),
        reason,
    };
    let cases = [
        (
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e3 0 1",
            dropped("e3", "wrong rank for the side to move"),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1",
        ),
        (
            "4k3/8/8/3pP3/8/8/8/4K3 b - d6 0 1",
            dropped("d6", "wrong rank for the side to move"),
            "4k3/8/8/3pP3/8/8/8/4K3 b - - 0 1",
        ),
        (
            "4k3/8/8/3pP3/8/8/8/4K3 w - d5 0 1",
            dropped("d5", "wrong rank for the side to move"),
            "4k3/8/8/3pP3/8/8/8/4K3 w - - 0 1",
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 b - e3 0 1",
            dropped("e3", "no pawn in front of it"),
            "4k3/8/8/8/8/8/8/4K3 b - - 0 1",
        ),
        // A pawn of the wrong colour in front of the square.
        (
            "4k3/8/8/3PP3/8/8/8/4K3 w - d6 0 1",
            dropped("d6", "no pawn in front of it"),
            "4k3/8/8/3PP3/8/8/8/4K3 w - - 0 1",
        ),
        (
            "4k3/8/8/8/4P3/4N3/8/4K3 b - e3 0 1",
            dropped("e3", "the squares the pawn passed are not empty"),
            "4k3/8/8/8/4P3/4N3/8/4K3 b - - 0 1",
        ),
        (
            "4k3/8/8/8/4P3/8/4N3/4K3 b - e3 0 1",
            dropped("e3", "the squares the pawn passed are not empty"),
            "4k3/8/8/8/4P3/8/4N3/4K3 b - - 0 1",
        ),
        (
            "4k3/3n4/8/3pP3/8/8/8/4K3 w - d6 0 1",
            dropped("d6", "the squares the pawn passed are not empty"),
            "4k3/3n4/8/3pP3/8/8/8/4K3 w - - 0 1",
        ),
    ];
    for (input, warning, fen) in cases {
        let (pos, got) = Position::from_fen(input).unwrap();
        assert_eq!(got, vec![warning], "{input:?}");
        assert_eq!(pos.fen(), fen, "{input:?}");
        assert_eq!(pos.ep_square(), None);
        assert_eq!(pos.key(), read(fen).key(), "{input:?}");
    }
    assert_eq!(
        dropped("e3", "no pawn in front of it").to_string(),
        "en-passant square e3 dropped: no pawn in front of it"
    );
}

#[test]
fn castling_and_en_passant_warnings_together() {
    let (pos, warnings) = Position::from_fen("4k3/8/8/8/8/8/8/4K3 w KQkq e6 0 1").unwrap();
    assert_eq!(warnings.len(), 5);
    assert!(matches!(
        warnings[0],
        FenWarning::CastlingDropped { letter: 'K', .. }
    ));
    assert!(matches!(
        warnings[3],
        FenWarning::CastlingDropped { letter: 'q', .. }
    ));
    assert_eq!(
        warnings[4],
        FenWarning::EnPassantDropped {
            square: sq("e6"),
            reason: "no pawn in front of it"
        }
    );
    assert_eq!(pos.fen(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
}

// ----- En passant and the key -----

/// The key of `fen` and of the same FEN with `-` in the en-passant field.
fn keys_with_and_without_ep(fen: &str) -> (Position, u64, u64) {
    let mut fields: Vec<&str> = fen.split(' ').collect();
    fields[3] = "-";
    let with = read(fen);
    assert_eq!(with.fen(), fen, "the en-passant square is kept in the FEN");
    let without = read(&fields.join(" ")).key();
    let key = with.key();
    (with, key, without)
}

#[test]
fn en_passant_square_is_hashed_only_when_a_capture_is_legal() {
    // (FEN with an en-passant square, whether a capture is legal)
    let cases = [
        // After 1. e4: no black pawn near.
        (
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            false,
        ),
        // A black pawn on d4 can take.
        (
            "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3",
            true,
        ),
        // Both neighbours can take; one from each side of the board edge.
        ("4k3/8/8/8/Pp6/8/8/4K3 b - a3 0 1", true),
        ("4k3/8/8/6pP/8/8/8/4K3 w - g6 0 1", true),
        // White pawns on the wrong files: no capture.
        ("4k3/8/8/P2p3P/8/8/8/4K3 w - d6 0 1", false),
        // The capturer is pinned along the rank (both pawns leave it).
        ("8/8/8/KPp4r/8/8/8/7k w - c6 0 1", false),
        ("8/8/8/KPp3qr/8/8/8/7k w - c6 0 1", false),
        // A piece between the pawns and the rook: the capture is legal.
        ("8/8/8/KPp2N1r/8/8/8/7k w - c6 0 1", true),
        // Pinned on a diagonal across the capture: illegal.
        ("4k3/6b1/8/3pP3/8/2K5/8/8 w - d6 0 1", false),
        // Pinned on the diagonal the capture moves along: legal.
        ("1b2k3/8/8/3pP3/5K2/8/8/8 w - d6 0 1", true),
        // In check from a rook the capture does not stop: illegal.
        ("4k3/8/8/3pP3/8/8/8/r3K3 w - d6 0 1", false),
        // In check from the pawn that just moved: taking it is legal.
        ("4k3/8/8/3pP3/4K3/8/8/8 w - d6 0 1", true),
        // The capture blocks a check by a bishop or a rook: legal.
        ("4kb2/8/8/3pP3/8/K7/8/8 w - d6 0 1", true),
        ("4k3/8/K6r/3pP3/8/8/8/8 w - d6 0 1", true),
        // In check from a knight: the capture does not help.
        ("4k3/8/8/3pP3/8/5n2/8/4K3 w - d6 0 1", false),
        // Two pawns can take and one is pinned: still legal; then the other alone.
        ("6bk/8/8/1PpP4/8/1K6/8/8 w - c6 0 1", true),
        ("6bk/8/8/2pP4/8/1K6/8/8 w - c6 0 1", false),
        // A white pawn between the pawns and the rook keeps the capture legal.
        ("8/8/8/KPpP3r/8/8/8/7k w - c6 0 1", true),
    ];
    for (fen, capture) in cases {
        let (pos, with, without) = keys_with_and_without_ep(fen);
        assert_eq!(with != without, capture, "{fen:?}");
        assert_eq!(has_en_passant_move(&pos), capture, "{fen:?}");
        assert_eq!(pos.compute_keys().0, with, "{fen:?}");
    }
}

#[test]
fn pinned_capturer_is_the_only_one_not_taking() {
    let pos = read("6bk/8/8/1PpP4/8/1K6/8/8 w - c6 0 1");
    let ep: Vec<String> = pos
        .legal_moves()
        .iter()
        .filter(|m| m.kind() == crate::engine::chess::moves::MoveKind::EnPassant)
        .map(|m| m.uci(false).to_string())
        .collect();
    assert_eq!(ep, vec!["b5c6".to_string()]);
}

#[test]
fn double_step_in_play_matches_the_fen_rule() {
    // 1. e4 Nf6 2. e5 d5: the e5 pawn can take on d6, so the key differs
    // from the same placement reached by 1. e4 d5 2. e5 Nf6 (no ep square).
    let mut a = Position::startpos();
    for m in ["e2e4", "g8f6", "e4e5", "d7d5"] {
        play_uci(&mut a, m);
    }
    let mut b = Position::startpos();
    for m in ["e2e4", "d7d5", "e4e5", "g8f6"] {
        play_uci(&mut b, m);
    }
    assert_eq!(
        a.fen(),
        "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3"
    );
    assert_eq!(
        b.fen(),
        "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq - 1 3"
    );
    assert_ne!(a.key(), b.key());
    assert_eq!(a.pawn_key(), b.pawn_key());
    assert_eq!(a.key(), read(&a.fen()).key());
    // Once the chance is gone the two positions are the same again.
    for m in ["b1c3", "b8c6"] {
        play_uci(&mut a, m);
        play_uci(&mut b, m);
    }
    assert_eq!(a.key(), b.key());
}

/// Regression: the mask of squares beyond a rook on h8 (index 63) once
/// overflowed, panicking in debug builds for every position where Black may
/// castle king side with the h8 rook.
#[test]
fn castling_rook_on_h8_writes_k() {
    let pos = read("4k2r/8/8/8/8/8/8/4K3 b k - 0 1");
    assert_eq!(pos.fen(), "4k2r/8/8/8/8/8/8/4K3 b k - 0 1");
    assert_eq!(pos.fen_shredder(), "4k2r/8/8/8/8/8/8/4K3 b h - 0 1");
    // An inner rook with another on h8 beyond it.
    let pos = read("4k1rr/8/8/8/8/8/8/4K3 w g - 0 1");
    assert_eq!(pos.fen(), "4k1rr/8/8/8/8/8/8/4K3 w g - 0 1");
    assert_eq!(Position::startpos().fen(), STARTPOS);
}
