//! The PGN reader's tests: first the stream of games the book builder
//! reads ([`games`]), then the whole games of `annotate` ([`read_games`]).

use super::*;

fn uci(game: &Game) -> Vec<String> {
    game.moves().map(|m| m.uci(false).to_string()).collect()
}

fn read(text: &str) -> Vec<Result<Game, PgnError>> {
    games(text.as_bytes()).collect()
}

fn only(text: &str) -> Game {
    let all = read(text);
    assert_eq!(all.len(), 1, "{all:?}");
    all.into_iter().next().unwrap().unwrap()
}

#[test]
fn tags_moves_and_result() {
    let g = only(
        "[Event \"Test \\\"quoted\\\"\"]\n[White \"A\"]\n[Result \"1-0\"]\n\n\
         1. e4 e5 2. Nf3 Nc6 3. Bb5 1-0\n",
    );
    assert_eq!(g.tag("Event"), Some("Test \"quoted\""));
    assert_eq!(uci(&g), ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]);
    assert_eq!(g.outcome(), GameResult::WhiteWins);
    assert_eq!(g.number, 1);
    // The tag when the movetext ends without a result, or with `*`.
    let g = only("[Result \"0-1\"]\n\n1. d4 d5 *\n");
    assert_eq!(g.outcome(), GameResult::BlackWins);
}

#[test]
fn comments_variations_nags_and_numbers() {
    let g = only(
        "1.e4 {best by test (says who?)} e5 ; a comment to the end of the line )\n\
         2. Nf3!? $1 Nc6?! (2... d6 (2... Nf6 {Petrov}) 3. d4) 3.Bb5 !? 3...a6\n\
         % an escaped line 1. d4\n\
         4. Ba4 $14 Nf6 5. O-O 1/2-1/2",
    );
    assert_eq!(
        uci(&g),
        [
            "e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1"
        ]
    );
    assert_eq!(g.outcome(), GameResult::Draw);
}

#[test]
fn setup_and_fen() {
    let g = only("[SetUp \"1\"]\n[FEN \"4k3/P7/8/8/8/8/8/4K3 w - - 0 40\"]\n\n40. a8=Q+ Kd7 0-1");
    assert_eq!(uci(&g), ["a7a8q", "e8d7"]);
    assert_eq!(g.start.fullmove_number(), 40);
    assert_eq!(g.outcome(), GameResult::BlackWins);
}

#[test]
fn bad_games_are_reported_and_skipped() {
    let text = "1. e4 e5 *\n\
                [Event \"two\"]\n1. e4 e5 2. Ke3 *\n\
                [FEN \"not a fen\"]\n1. e4 *\n\
                [Event \"four\"]\n1. d4 *\n\
                1. d4 d5 2. c4 *\n\
                1. e4 -- *\n";
    let all = read(text);
    assert_eq!(all.len(), 6, "{all:?}");
    assert!(all[0].is_ok());
    match &all[1] {
        Err(PgnError::BadMove { game, at, text, .. }) => {
            assert_eq!((*game, at.as_str(), text.as_str()), (2, "2.", "Ke3"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        all[1].as_ref().unwrap_err().to_string(),
        "game 2: move 2. 'Ke3': 'Ke3' is not a legal move here"
    );
    assert!(matches!(all[2], Err(PgnError::BadFen { game: 3, .. })));
    assert_eq!(uci(all[3].as_ref().unwrap()), ["d2d4"]);
    assert_eq!(all[3].as_ref().unwrap().tag("Event"), Some("four"));
    // The next line is a game of its own, without the tags before it.
    let fifth = all[4].as_ref().unwrap();
    assert_eq!(uci(fifth), ["d2d4", "d7d5", "c2c4"]);
    assert_eq!((fifth.number, fifth.tags.len()), (5, 0));
    // A null move is no move of a game.
    let sixth = all[5].as_ref().unwrap_err();
    assert_eq!(sixth.game(), 6);
    assert!(
        sixth.to_string().starts_with("game 6: move 1... '--'"),
        "{sixth}"
    );
    // Black to move, and a king taking its own pieces.
    let err = read("[FEN \"r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 12\"]\n12... Ke7 13. Kxe8 *")
        .remove(0)
        .unwrap_err();
    assert!(err.to_string().contains("move 13. 'Kxe8'"), "{err}");
}

#[test]
fn unterminated_text_is_a_syntax_error() {
    let all = read("1. e4 e5 *\n\n1. d4 {never closed\n");
    assert_eq!(all.len(), 2, "{all:?}");
    assert!(all[0].is_ok());
    assert_eq!(
        all[1].as_ref().unwrap_err().to_string(),
        "game 2: unterminated comment"
    );
}

#[test]
fn games_without_results_end_at_the_next_tags() {
    let text = "[Event \"a\"]\n1. e4 e5\n[Event \"b\"]\n1. d4 d5\n";
    let all: Vec<Game> = read(text).into_iter().map(Result::unwrap).collect();
    assert_eq!(all.len(), 2);
    assert_eq!(uci(&all[0]), ["e2e4", "e7e5"]);
    assert_eq!(all[1].tag("Event"), Some("b"));
    assert_eq!(uci(&all[1]), ["d2d4", "d7d5"]);
    assert_eq!(all[1].outcome(), GameResult::Unknown);
    // A game of tags alone keeps its tags to itself.
    let text = "[Event \"empty\"]\n[FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]\n\n\
                [Event \"real\"]\n1. e4 *\n";
    let all: Vec<Game> = read(text).into_iter().map(Result::unwrap).collect();
    assert_eq!(all.len(), 2);
    assert!(all[0].main.nodes.is_empty());
    assert_eq!(all[0].start.fen(), "8/8/8/8/8/8/8/K6k w - - 0 1");
    assert_eq!(all[1].tag("Event"), Some("real"));
    assert_eq!(uci(&all[1]), ["e2e4"]);
    assert_eq!(all[1].number, 2);
    // CRLF line ends, a trailing comment, nothing after it.
    let all: Vec<Game> = read("1. c4 c5 *\r\n{the end}\r\n")
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(all.len(), 1);
    assert!(read("").is_empty());
    assert!(read("  \n{only a comment}\n").is_empty());
}

#[test]
fn lines_of_moves_are_games_and_castling_reads_both_ways() {
    let all = read("1. e4 e5 *\n1. d4 d5 1-0\n1. c4 *\n");
    let moves: Vec<Vec<String>> = all.iter().map(|g| uci(g.as_ref().unwrap())).collect();
    assert_eq!(
        moves,
        [vec!["e2e4", "e7e5"], vec!["d2d4", "d7d5"], vec!["c2c4"]]
    );
    let numbers: Vec<usize> = all.iter().map(|g| g.as_ref().unwrap().number).collect();
    assert_eq!(numbers, [1, 2, 3]);
    let g = only("[FEN \"r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 12\"]\n12... O-O-O 13. 0-0 Rd2 *");
    assert_eq!(uci(&g), ["e8c8", "e1g1", "d8d2"]);
}

// Whole games, for annotate.

fn whole(text: &str) -> Vec<Result<Game, BadGame>> {
    read_games(text.as_bytes()).unwrap()
}

#[test]
fn reads_the_whole_tree() {
    let text = "[Event \"Test \\\"quoted\\\"\"]\n[White \"A\"]\n\n\
                { before } 1. e4 $1 { good } (1. d4 d5 (1... Nf6 2. c4) 2. c4) 1... e5 \
                2. Nf3!? Nc6 1-0\n";
    let g = whole(text);
    assert_eq!(g.len(), 1);
    let g = g[0].as_ref().unwrap();
    assert_eq!((g.number, g.line), (1, 1));
    assert_eq!(g.tags[0], ("Event".into(), "Test \"quoted\"".into()));
    assert_eq!(g.main.comments, ["before"]);
    let sans: Vec<&str> = g.main.nodes.iter().map(|n| n.san.as_str()).collect();
    assert_eq!(sans, ["e4", "e5", "Nf3", "Nc6"]);
    let e4 = &g.main.nodes[0];
    assert_eq!(
        (e4.nags.as_slice(), e4.comments.as_slice()),
        (&[1][..], &["good".to_string()][..])
    );
    assert_eq!(e4.variations.len(), 1);
    let v = &e4.variations[0];
    let vs: Vec<&str> = v.nodes.iter().map(|n| n.san.as_str()).collect();
    assert_eq!(vs, ["d4", "d5", "c4"]);
    let inner: Vec<&str> = v.nodes[1].variations[0]
        .nodes
        .iter()
        .map(|n| n.san.as_str())
        .collect();
    assert_eq!(inner, ["Nf6", "c4"]);
    assert_eq!(g.main.nodes[2].nags, [5]);
    assert_eq!(g.result.as_deref(), Some("1-0"));
    assert!(!g.chess960);
}

#[test]
fn bad_games_are_reported_and_the_others_kept() {
    let text = "[Event \"one\"]\n\n1. e4 e5 *\n\n\
                [Event \"two\"]\n\n1. e4 e5 2. Ke3 *\n\n\
                [Event \"three\"]\n[FEN \"8/8/8 w - -\"]\n\n1. e4 *\n\n\
                [Event \"four\"]\n[White \"Smith]\n\n1. d4 *\n\n\
                [Event \"five\"]\n[Variant \"Atomic\"]\n\n1. d4 *\n\n\
                [Event \"six\"]\n\n1. e4 (2. e5) *\n\n\
                [Event \"seven\"]\n\n1. c4 *\n";
    let g = whole(text);
    assert_eq!(g.len(), 7);
    assert!(g[0].is_ok() && g[6].is_ok());
    assert_eq!(g[6].as_ref().unwrap().tag("Event"), Some("seven"));
    let err = |i: usize| g[i].as_ref().unwrap_err().to_string();
    assert_eq!(
        err(1),
        "game 2 (line 5): move 2.: 'Ke3' is not a legal move here"
    );
    assert!(
        err(2).starts_with("game 3 (line 9): bad FEN tag '8/8/8 w - -': "),
        "{}",
        err(2)
    );
    assert_eq!(
        err(3),
        "game 4 (line 14): broken tag on line 15: a tag value without its closing quote: [White \"Smith]"
    );
    assert_eq!(
        err(4),
        "game 5 (line 19): variant 'Atomic' is not supported (standard chess and Chess960 only)"
    );
    assert_eq!(
        err(5),
        "game 6 (line 24): move 1., in a variation: 'e5' is not a legal move here"
    );
}

#[test]
fn chess960_castling() {
    // King f1, rooks b1 and h1: castling short is `f1h1` in Chess960's
    // UCI, and the position alone says it is Chess960.
    let fen = "1r3k1r/pppppppp/8/8/8/8/PPPPPPPP/1R3K1R w HBhb - 0 1";
    for tags in [
        format!("[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]"),
        format!("[FEN \"{fen}\"]"),
    ] {
        let g = whole(&format!("{tags}\n\n1. O-O O-O-O *\n"));
        let g = g[0].as_ref().unwrap();
        assert!(g.chess960);
        let sans: Vec<&str> = g.main.nodes.iter().map(|n| n.san.as_str()).collect();
        assert_eq!(sans, ["O-O", "O-O-O"]);
        assert_eq!(g.main.nodes[0].mv.uci(true).to_string(), "f1h1");
        assert_eq!(g.main.nodes[1].mv.uci(true).to_string(), "f8b8");
    }
}

#[test]
fn long_comments_come_whole() {
    // Longer than the reader's buffer for a token (255 bytes).
    let long = "word ".repeat(400);
    let g = whole(&format!("1. e4 {{ {long} }} e5 *"));
    let g = g[0].as_ref().unwrap();
    assert_eq!(g.main.nodes[0].comments, [long.trim()]);
}

#[test]
fn files_that_are_not_pgn() {
    assert_eq!(read_games(b"").unwrap_err(), NotPgn::Empty);
    assert_eq!(read_games(b" \n\n").unwrap_err(), NotPgn::Empty);
    assert_eq!(
        read_games(b"\x7fELF\x02\x01\x00\x00").unwrap_err(),
        NotPgn::Binary
    );
    assert_eq!(
        read_games(b"This is a README, not a game.\n").unwrap_err(),
        NotPgn::NoGame
    );
    // Moves without tags are a game.
    assert!(read_games(b"1. e4 e5 *").unwrap()[0].is_ok());
}

#[test]
fn tag_lines() {
    assert!(check_tag_line(r#"[Event "a \"b\" \\ c"]"#).is_ok());
    assert!(check_tag_line(r#"[A "1"] [B "2"]"#).is_ok());
    assert!(check_tag_line(r#"[Event "Cup [final]"]"#).is_ok());
    assert_eq!(
        check_tag_line(r#"[White Smith]"#),
        Err("a tag without a quoted value")
    );
    assert_eq!(check_tag_line(r#"["x"]"#), Err("a tag without a name"));
    assert_eq!(
        check_tag_line(r#"[White "x""#),
        Err("a tag without its closing bracket")
    );
    assert_eq!(
        check_tag_line(r#"[White "x"] y"#),
        Err("text after the tag pair")
    );
}
