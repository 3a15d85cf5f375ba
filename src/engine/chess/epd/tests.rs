use super::*;

fn epd(line: &str) -> Epd {
    Epd::parse(line).unwrap_or_else(|e| panic!("{line}: {e}"))
}

fn uci(moves: &[Move]) -> Vec<String> {
    moves.iter().map(|m| m.uci(false).to_string()).collect()
}

#[test]
fn reads_a_test_suite_record() {
    let e = epd(r#"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";"#);
    assert_eq!(uci(&e.moves("bm")), ["g3g6"]);
    assert_eq!(e.id().as_deref(), Some("WAC.001"));
    assert_eq!(e.position.halfmove_clock(), 0);
    assert_eq!(e.position.fullmove_number(), 1);
    assert!(e.moves("am").is_empty());
    assert_eq!(e.int("dm"), None);
}

#[test]
fn reads_every_kind_of_operand() {
    let e = epd(concat!(
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - ",
        r#"bm O-O e1c1; am Kf1 Ra1b1; c0 "a comment; with a semicolon"; c9 bare words; "#,
        "ce -35; acd 12; acn 123456789012; dm 3; pv O-O O-O-O Kg2 ; ",
        r#"hmvc 7; fmvn 42; xyz a "b c" 4; id "K.1""#,
    ));
    let pos = &e.position;
    let sans = |ms: Vec<Move>| ms.iter().map(|&m| pos.san(m)).collect::<Vec<_>>();
    assert_eq!(sans(e.moves("bm")), ["O-O", "O-O-O"]);
    assert_eq!(sans(e.moves("am")), ["Kf1", "Rb1"]);
    assert_eq!(e.text("c0").as_deref(), Some("a comment; with a semicolon"));
    assert_eq!(e.text("c9").as_deref(), Some("bare words"));
    assert_eq!(e.int("ce"), Some(-35));
    assert_eq!(e.int("acd"), Some(12));
    assert_eq!(e.int("acn"), Some(123_456_789_012));
    assert_eq!(e.int("dm"), Some(3));
    // A pv is a line: Black's O-O-O is read after White's O-O.
    assert_eq!(Epd::san_line(pos, &e.moves("pv")), ["O-O", "O-O-O", "Kg2"]);
    // hmvc and fmvn set the position's counters.
    assert_eq!(pos.halfmove_clock(), 7);
    assert_eq!(pos.fullmove_number(), 42);
    assert_eq!(
        e.get("xyz").map(|op| op.operands.clone()),
        Some(vec![
            Operand::Word("a".into()),
            Operand::Str("b c".into()),
            Operand::Word("4".into())
        ])
    );
    // The last operation may lack its semicolon.
    assert_eq!(e.id().as_deref(), Some("K.1"));
}

#[test]
fn reads_full_fens_and_perft_lines() {
    let e = epd("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 5 9 bm e4;");
    assert_eq!(e.position.halfmove_clock(), 5);
    assert_eq!(e.position.fullmove_number(), 9);
    assert_eq!(uci(&e.moves("bm")), ["e2e4"]);
    let p = epd("4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15 ;D2 66 ;D6 764643");
    assert_eq!(p.perft_counts(), [(1, 15), (2, 66), (6, 764_643)]);
    // Operations win over the FEN's counters.
    let h = epd("4k3/8/8/8/8/8/8/4K2R w K - 3 4 hmvc 10;");
    assert_eq!(h.position.halfmove_clock(), 10);
    assert_eq!(h.position.fullmove_number(), 4);
}

#[test]
fn refuses_malformed_lines_with_a_reason() {
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
    let err = |ops: &str| Epd::parse(&format!("{start} {ops}")).unwrap_err();
    assert_eq!(
        Epd::parse("8/8/8/8 w").unwrap_err(),
        EpdError::MissingFields(2)
    );
    assert!(matches!(
        Epd::parse("8/8/8 w - - bm e4;").unwrap_err(),
        EpdError::Fen(_)
    ));
    assert_eq!(err(r#"id "open"#), EpdError::UnterminatedString);
    assert_eq!(err("1bm e4;"), EpdError::BadOpcode("1bm".into()));
    assert_eq!(err(r#""x" e4;"#), EpdError::BadOpcode("\"x\"".into()));
    assert!(matches!(err("bm e5;"), EpdError::BadMove { opcode, .. } if opcode == "bm"));
    assert!(matches!(err("pv e4 e4;"), EpdError::BadMove { .. }));
    assert!(matches!(err("dm three;"), EpdError::BadInteger { .. }));
    assert!(matches!(
        err("acd 1 2;"),
        EpdError::OperandCount { found: 2, .. }
    ));
    assert!(matches!(err("hmvc -1;"), EpdError::BadInteger { .. }));
    // The reasons are readable.
    assert_eq!(
        err("bm Qd4;").to_string(),
        "bm: move 'Qd4': 'Qd4' is not a legal move here"
    );
}

#[test]
fn writes_exactly_and_round_trips() {
    let line = concat!(
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - ",
        r#"bm O-O O-O-O; am Kf1; id "K.1"; c0 "two words"; ce 35; acd 9; dm 2; pv O-O O-O-O Kg2; zz word "str";"#
    );
    let e = epd(line);
    assert_eq!(e.to_string(), line);
    // Liberal input comes out exact: UCI moves become SAN, check marks are
    // added, text is quoted, spacing is normalised.
    let loose = epd("6k1/5ppp/8/8/8/8/8/R5K1 w - -   bm  a1a8 ;id WAC.X ;ce +7");
    assert_eq!(
        loose.to_string(),
        r#"6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8#; id "WAC.X"; ce 7;"#
    );
    let again = epd(&loose.to_string());
    assert_eq!(again.ops, loose.ops);
    assert_eq!(again.position.fen(), loose.position.fen());
    // A quote inside a string cannot be written: it becomes an apostrophe.
    let mut q = Epd::from_position(Position::startpos());
    q.set(Operation {
        opcode: "c0".into(),
        operands: vec![Operand::Str("say \"hi\"".into())],
    });
    assert_eq!(epd(&q.to_string()).text("c0").as_deref(), Some("say 'hi'"));
}

#[test]
fn writes_the_position_with_its_counters() {
    let (pos, _) = Position::from_fen("8/8/8/8/8/8/8/K6k b - - 12 60").unwrap();
    assert_eq!(
        position_epd(&pos),
        "8/8/8/8/8/8/8/K6k b - - hmvc 12; fmvn 60;"
    );
    let back = epd(&position_epd(&pos));
    assert_eq!(back.position.fen(), pos.fen());
}
