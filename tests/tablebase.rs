//! Syzygy tablebases over UCI: the options, the scores and moves they
//! give, and a bad `SyzygyPath`. Uses the small tables (up to four pieces)
//! in `tests/data/syzygy/`.

mod common;

use common::{Engine, Search, field, num_field, position, score};
use forsyth::engine::chess::{Move, Position};
use forsyth::engine::tablebase::{Tablebases, Wdl};

const TABLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy");

/// An engine with the tables loaded (and the load confirmed).
fn with_tables() -> Engine {
    let mut e = Engine::started();
    e.send(&format!("setoption name SyzygyPath value {TABLES}"));
    let lines = e.sync();
    assert_eq!(
        lines,
        ["info string SyzygyPath: 70 table files, up to 4 pieces"]
    );
    e
}

fn search(e: &mut Engine, fen: &str, go: &str) -> Search {
    e.send(&format!("position fen {fen}"));
    let s = e.go(&position(Some(fen), &[]), go);
    assert!(s.error_lines().is_empty(), "{:?}", s.lines);
    s
}

fn tables() -> Tablebases {
    let (tb, errors) = Tablebases::load(TABLES);
    assert!(errors.is_empty(), "{errors:?}");
    tb
}

/// The tables' result for `mv` (UCI text) played in `fen`.
fn result_of(tb: &Tablebases, fen: &str, mv: &str) -> Wdl {
    let pos = position(Some(fen), &[]);
    let moves: Vec<Move> = pos.legal_moves().into_iter().collect();
    let ranking = tb.rank_root(&pos, &moves, true).expect("in the tables");
    let m = pos.parse_uci_move(mv).expect("a legal move");
    ranking.get(m).expect("ranked").wdl
}

#[test]
fn a_won_ending_scores_the_win_and_counts_tbhits() {
    let mut e = with_tables();
    e.send("setoption name UCI_ShowWDL value true");
    let fen = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1";
    let s = search(&mut e, fen, "go nodes 5000");
    let last = s.last_pv_line();
    // A TB win: a large score below the mate scores, as Stockfish gives.
    let (kind, value) = score(last).unwrap();
    assert_eq!(kind, "cp", "{last}");
    assert!(value > 10_000, "{last}");
    assert_eq!(field(last, "wdl"), Some("1000"), "{last}");
    assert!(last.contains(" wdl 1000 0 0 "), "{last}");
    assert!(num_field(last, "tbhits").unwrap() > 0, "{last}");
    assert_eq!(result_of(&tables(), fen, &s.best), Wdl::Win);
    e.finish();
}

#[test]
fn a_drawn_ending_is_scored_a_draw_without_tables_it_is_not() {
    // KBPvK with the wrong bishop for the rook pawn: a dead draw that the
    // evaluation takes for a win.
    let fen = "k7/8/8/8/8/8/P7/2B1K3 w - - 0 1";
    let tb = tables();
    assert_eq!(tb.probe_wdl(&position(Some(fen), &[])), Some(Wdl::Draw));

    let mut plain = Engine::started();
    let s = search(&mut plain, fen, "go depth 8");
    let (_, value) = score(s.last_pv_line()).unwrap();
    assert!(
        value >= 100,
        "the evaluation sees no win: {}",
        s.last_pv_line()
    );
    plain.finish();

    let mut e = with_tables();
    e.send("setoption name UCI_ShowWDL value true");
    let s = search(&mut e, fen, "go depth 8");
    let last = s.last_pv_line();
    assert_eq!(score(last), Some(("cp".to_owned(), 0)), "{last}");
    assert!(last.contains(" wdl 0 1000 0 "), "{last}");
    assert_eq!(result_of(&tb, fen, &s.best), Wdl::Draw);
    e.finish();
}

#[test]
fn only_drawing_moves_are_played_in_a_drawn_rook_ending() {
    // KRvKR: Rh2?? and Rd1?? lose the rook; the tables keep the draw.
    let fen = "8/8/3k4/8/8/3K4/3R4/7r w - - 0 1";
    let mut e = with_tables();
    let s = search(&mut e, fen, "go depth 6");
    assert_eq!(score(s.last_pv_line()), Some(("cp".to_owned(), 0)));
    assert_eq!(result_of(&tables(), fen, &s.best), Wdl::Draw);
    e.finish();
}

#[test]
fn the_fifty_move_rule_option_decides_a_late_win() {
    // KBNvK, DTZ 48, with 60 plies gone: drawn under the fifty-move rule,
    // won without it.
    let fen = "8/8/5k2/8/2K5/3N4/2B5/8 w - - 60 1";
    let mut e = with_tables();
    let s = search(&mut e, fen, "go nodes 3000");
    assert_eq!(score(s.last_pv_line()), Some(("cp".to_owned(), 0)));
    e.send("setoption name Syzygy50MoveRule value false");
    let s = search(&mut e, fen, "go nodes 3000");
    let (kind, value) = score(s.last_pv_line()).unwrap();
    assert!(kind == "mate" || value > 10_000, "{}", s.last_pv_line());
    e.finish();
}

#[test]
fn probe_limit_zero_and_an_empty_path_turn_the_tables_off() {
    let fen = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1";
    let mut e = with_tables();
    e.send("setoption name SyzygyProbeLimit value 0");
    let s = search(&mut e, fen, "go depth 4");
    assert_eq!(num_field(s.last_pv_line(), "tbhits"), Some(0));
    e.send("setoption name SyzygyProbeLimit value 7");
    let s = search(&mut e, fen, "go depth 4");
    assert!(num_field(s.last_pv_line(), "tbhits").unwrap() > 0);
    e.send("setoption name SyzygyPath value <empty>");
    assert!(e.sync().is_empty());
    let s = search(&mut e, fen, "go depth 4");
    assert_eq!(num_field(s.last_pv_line(), "tbhits"), Some(0));
    e.finish();
}

#[test]
fn a_wrong_path_is_one_error_and_searches_go_on() {
    let mut e = Engine::started();
    e.send("setoption name SyzygyPath value /no/such/folder");
    let lines = e.sync();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("info string error: SyzygyPath: cannot read folder '/no/such/folder'"),
        "{lines:?}"
    );
    let s = search(&mut e, "8/8/8/4k3/8/8/8/R3K3 w - - 0 1", "go depth 5");
    assert_eq!(num_field(s.last_pv_line(), "tbhits"), Some(0));
    let start = Position::startpos();
    e.send("position startpos");
    let s = e.go(&start, "go depth 5");
    assert!(s.error_lines().is_empty());

    // A bad folder next to the good one: one error, and the good tables work.
    let sep = if cfg!(windows) { ";" } else { ":" };
    e.send(&format!(
        "setoption name SyzygyPath value /no/such/folder{sep}{TABLES}"
    ));
    let lines = e.sync();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].ends_with("using the 70 table files found"),
        "{lines:?}"
    );
    let s = search(&mut e, "8/8/8/4k3/8/8/8/R3K3 w - - 0 1", "go depth 5");
    assert!(num_field(s.last_pv_line(), "tbhits").unwrap() > 0);
    e.finish();
}
