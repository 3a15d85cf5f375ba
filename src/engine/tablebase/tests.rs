//! Probes against the small tables in `tests/data/syzygy/` (up to four
//! pieces) and the known results of `endgame.epd`.

use super::*;
use std::sync::OnceLock;

const TABLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy");

fn tables() -> &'static Tablebases {
    static TB: OnceLock<Tablebases> = OnceLock::new();
    TB.get_or_init(|| {
        let (tb, errors) = Tablebases::load(TABLES);
        assert!(errors.is_empty(), "{errors:?}");
        tb
    })
}

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).expect("a valid FEN").0
}

fn moves(p: &Position) -> Vec<Move> {
    p.legal_moves().into_iter().collect()
}

fn uci(m: Move) -> String {
    m.uci(false).to_string()
}

/// One line of `endgame.epd`: `<4 FEN fields> wdl_table W; wdl W; dtz D;`.
fn parse_epd_line(line: &str) -> (String, i32, i32) {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let fen = fields[..4].join(" ");
    let rest = fields[4..].join(" ");
    let op = |name: &str| -> i32 {
        rest.split(';')
            .map(str::trim)
            .find_map(|o| o.strip_prefix(name)?.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {name} in {line}"))
    };
    (fen, op("wdl "), op("dtz "))
}

#[test]
fn loads_every_table_of_the_folder() {
    let tb = tables();
    // 35 material signatures, each with a WDL and a DTZ file.
    assert_eq!(tb.files(), 70);
    assert_eq!(tb.max_pieces(), 4);
}

#[test]
fn endgame_epd_results_are_probed_exactly() {
    let text = std::fs::read_to_string(format!("{TABLES}/endgame.epd")).unwrap();
    let tb = tables();
    let mut seen = [0; 5];
    let mut count = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (fen, wdl, dtz) = parse_epd_line(line);
        let p = pos(&fen);
        let want = Wdl::from_i32(wdl).unwrap();
        assert_eq!(tb.probe_wdl(&p), Some(want), "WDL of {fen}");
        assert_eq!(tb.probe_dtz(&p), Some(dtz), "DTZ of {fen}");
        // DTZ and WDL agree in sign.
        assert_eq!(dtz.signum(), wdl.signum(), "{fen}");
        seen[(wdl + 2) as usize] += 1;
        count += 1;
    }
    assert_eq!(count, 200);
    // The file has wins, draws and losses (cursed wins and blessed losses
    // are covered by the clock tests below: no table here has them).
    assert!(seen[0] > 0 && seen[2] > 0 && seen[4] > 0, "{seen:?}");
}

#[test]
fn positions_outside_the_tables_are_not_probed() {
    let tb = tables();
    // Castling rights are never in the tables.
    assert_eq!(tb.probe_wdl(&pos("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1")), None);
    // Too many pieces.
    assert_eq!(tb.probe_wdl(&Position::startpos()), None);
    assert_eq!(
        tb.probe_dtz(&pos("4k3/8/8/8/8/8/1P6/RN2K3 w - - 0 1")),
        None
    );
    // The en-passant capture counts: the position is worth the better of
    // taking en passant and the same position without the right.
    let ep = pos("8/8/8/8/2pP4/8/8/k1K5 b - d3 0 1");
    let no_ep = pos("8/8/8/8/2pP4/8/8/k1K5 b - - 0 1");
    let mut taken = ep.clone();
    taken.play(ep.parse_uci_move("c4d3").unwrap());
    let by_capture = tb.probe_wdl(&taken).unwrap().negate();
    let without = tb.probe_wdl(&no_ep).unwrap();
    assert_eq!(tb.probe_wdl(&ep), Some(by_capture.max(without)));
}

#[test]
fn missing_folders_and_bad_files_are_errors_and_the_rest_loads() {
    let (tb, errors) = Tablebases::load("/no/such/folder");
    assert_eq!(tb.files(), 0);
    assert_eq!(errors.len(), 1);
    assert!(matches!(errors[0], LoadError::Folder { .. }));
    assert!(errors[0].to_string().contains("/no/such/folder"));

    // A good folder next to a bad one still loads.
    let sep = if cfg!(windows) { ";" } else { ":" };
    let (tb, errors) = Tablebases::load(&format!("/no/such/folder{sep}{TABLES}"));
    assert_eq!(errors.len(), 1);
    assert_eq!(tb.files(), 70);

    // A table whose size cannot be right is refused by name.
    let dir = std::env::temp_dir().join(format!("forsyth-tb-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("KQvK.rtbw"), b"not a table").unwrap();
    std::fs::write(dir.join("README.txt"), b"not a table either").unwrap();
    let (tb, errors) = Tablebases::load(dir.to_str().unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(tb.files(), 0);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].to_string().contains("KQvK.rtbw"), "{}", errors[0]);
}

#[test]
fn root_ranking_keeps_the_win() {
    let tb = tables();
    // KQvK: every queen move that stays safe wins; Qd5+?? Kxd5 draws.
    let p = pos("8/8/8/4k3/8/8/8/3QK3 w - - 0 1");
    let r = tb.rank_root(&p, &moves(&p), true).unwrap();
    assert!(r.by_dtz);
    let best: Vec<&RankedMove> = r.best_moves().collect();
    assert!(best.len() > 5, "{best:?}");
    assert!(best.iter().all(|m| m.wdl == Wdl::Win));
    let hang = r.get(p.parse_uci_move("d1d5").unwrap()).unwrap();
    assert_eq!(hang.wdl, Wdl::Draw);
    assert!(best.iter().all(|m| m.mv != hang.mv));
}

#[test]
fn root_ranking_keeps_the_draw() {
    let tb = tables();
    // KRvKR: moves that leave the rook to be taken lose; the rest draw.
    let p = pos("8/8/3k4/8/8/3K4/3R4/7r w - - 0 1");
    let r = tb.rank_root(&p, &moves(&p), true).unwrap();
    let best: Vec<&RankedMove> = r.best_moves().collect();
    assert!(!best.is_empty());
    assert!(best.iter().all(|m| m.wdl == Wdl::Draw && m.rank == 0));
    let hang = r.get(p.parse_uci_move("d2h2").unwrap()).unwrap();
    assert_eq!(hang.wdl, Wdl::Loss);
    assert!(r.moves.len() > best.len());
}

#[test]
fn the_clock_makes_cursed_wins_and_blessed_losses() {
    let tb = tables();
    // KBNvK, DTZ 48 for White: a win from a fresh clock...
    let fresh = pos("8/8/5k2/8/2K5/3N4/2B5/8 w - - 0 1");
    let r = tb.rank_root(&fresh, &moves(&fresh), true).unwrap();
    assert_eq!(r.moves[0].wdl, Wdl::Win);
    // ...a cursed win with 60 plies already gone (48 + 60 > 100): the
    // fastest way to zero is kept, in case the defence goes wrong...
    let late = pos("8/8/5k2/8/2K5/3N4/2B5/8 w - - 60 1");
    let r = tb.rank_root(&late, &moves(&late), true).unwrap();
    assert_eq!(r.moves[0].wdl, Wdl::CursedWin);
    assert!(r.best_moves().all(|m| m.wdl == Wdl::CursedWin));
    let shortest = r.moves[0].mv;
    let mut child = late.clone();
    child.play(shortest);
    assert_eq!(tb.probe_dtz(&child), Some(-47));
    // ...and still a win without the fifty-move rule.
    let r = tb.rank_root(&late, &moves(&late), false).unwrap();
    assert_eq!(r.moves[0].wdl, Wdl::Win);

    // The defender's side: DTZ -53, saved by the clock at 60.
    let lost = pos("3B4/K7/8/k3N3/8/8/8/8 b - - 0 1");
    let r = tb.rank_root(&lost, &moves(&lost), true).unwrap();
    assert!(r.moves.iter().all(|m| m.wdl == Wdl::Loss));
    let blessed = pos("3B4/K7/8/k3N3/8/8/8/8 b - - 60 1");
    let r = tb.rank_root(&blessed, &moves(&blessed), true).unwrap();
    assert_eq!(r.moves[0].wdl, Wdl::BlessedLoss);
    // The longest defence is the one kept.
    let mut child = blessed.clone();
    child.play(r.moves[0].mv);
    assert_eq!(tb.probe_dtz(&child), Some(52));
    assert_eq!(Wdl::BlessedLoss.under_rule50(true), Wdl::Draw);
    assert_eq!(Wdl::BlessedLoss.under_rule50(false), Wdl::Loss);
}

#[test]
fn a_win_on_the_last_ply_must_zero_at_once() {
    let tb = tables();
    // KQvKR, Qxe5+ wins the rook: with 99 plies gone, only a capture or a
    // mate now beats the fifty-move rule.
    let p = pos("8/8/8/4r3/8/1k6/8/K3Q3 w - - 99 1");
    let r = tb.rank_root(&p, &moves(&p), true).unwrap();
    for m in r.best_moves() {
        let mut child = p.clone();
        child.play(m.mv);
        assert!(
            child.halfmove_clock() == 0 || child.count_legal() == 0,
            "{} does not zero",
            uci(m.mv)
        );
    }
}

#[test]
fn without_dtz_tables_the_root_is_ranked_by_wdl() {
    // Only the WDL files of KQvK and KvK-reachable tables: no DTZ at all.
    let dir = std::env::temp_dir().join(format!("forsyth-tb-wdl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(format!("{TABLES}/KQvK.rtbw"), dir.join("KQvK.rtbw")).unwrap();
    let (tb, errors) = Tablebases::load(dir.to_str().unwrap());
    assert!(errors.is_empty(), "{errors:?}");
    let p = pos("8/8/8/4k3/8/8/8/3QK3 w - - 0 1");
    assert_eq!(tb.probe_dtz(&p), None);
    let r = tb.rank_root(&p, &moves(&p), true).unwrap();
    assert!(!r.by_dtz);
    assert!(r.best_moves().all(|m| m.wdl == Wdl::Win));
    assert_eq!(
        r.get(p.parse_uci_move("d1d5").unwrap()).map(|m| m.wdl),
        Some(Wdl::Draw)
    );
    // Tables are opened when first probed, so the files stay until now.
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Search tests: the tables in the shared search state.
mod search {
    use super::*;
    use crate::engine::search::{
        Job, Limits, MATE_BOUND, SearchOptions, SearchPool, SearchResult, TB_WIN,
    };
    use std::sync::Arc;

    fn shared_tables() -> Arc<Tablebases> {
        let (tb, errors) = Tablebases::load(TABLES);
        assert!(errors.is_empty(), "{errors:?}");
        Arc::new(tb)
    }

    fn search(
        pool: &mut SearchPool,
        p: &Position,
        history: &[u64],
        nodes: u64,
        searchmoves: Vec<Move>,
    ) -> SearchResult {
        pool.search(Job {
            root: p.clone(),
            history: history.to_vec(),
            limits: Limits {
                nodes: Some(nodes),
                searchmoves,
                ..Limits::default()
            },
            options: SearchOptions::default(),
        })
    }

    /// Plays the engine against itself from `fen` at `nodes` per move
    /// until the game ends; returns the final position and the plies.
    fn self_play(fen: &str, nodes: u64) -> (Position, usize) {
        let mut pool = SearchPool::new(16, 1).unwrap();
        pool.set_tablebases(Some(shared_tables()));
        let mut p = pos(fen);
        let mut history = Vec::new();
        for ply in 0..200 {
            if p.count_legal() == 0 || p.halfmove_clock() >= 100 {
                return (p, ply);
            }
            let r = search(&mut pool, &p, &history, nodes, Vec::new());
            let m = r.best.expect("a move");
            history.push(p.key());
            p.play(m);
        }
        (p, 200)
    }

    fn converts_to_mate(fen: &str) {
        let nodes = 20_000;
        // Without the tables the mate is beyond the search at this budget.
        let mut plain = SearchPool::new(16, 1).unwrap();
        let r = search(&mut plain, &pos(fen), &[], nodes, Vec::new());
        assert!(
            r.score < MATE_BOUND,
            "the search alone sees mate: {}",
            r.score
        );

        let (end, plies) = self_play(fen, nodes);
        assert!(
            end.in_check() && end.count_legal() == 0,
            "no mate: {}",
            end.fen()
        );
        // White mated Black, before the fifty-move rule could end the game.
        assert_eq!(end.side_to_move(), Color::Black, "{}", end.fen());
        assert!(plies < 100, "{plies} plies");
    }

    #[test]
    fn kqvk_is_converted_to_mate() {
        converts_to_mate("8/8/8/3k4/8/8/8/4K1Q1 w - - 0 1");
    }

    #[test]
    fn krvk_is_converted_to_mate() {
        converts_to_mate("8/8/8/4k3/8/8/8/R3K3 w - - 0 1");
    }

    #[test]
    fn the_root_of_a_tablebase_win_scores_a_tb_win() {
        let mut pool = SearchPool::new(16, 1).unwrap();
        pool.set_tablebases(Some(shared_tables()));
        let p = pos("8/8/8/4k3/8/8/8/R3K3 w - - 0 1");
        let r = search(&mut pool, &p, &[], 5_000, Vec::new());
        assert_eq!(r.score, TB_WIN);
        // The defender sees the loss.
        let p = pos("8/8/8/4k3/8/8/8/R3K3 b - - 0 1");
        let r = search(&mut pool, &p, &[], 5_000, Vec::new());
        assert_eq!(r.score, -TB_WIN);
    }

    #[test]
    fn a_drawn_ending_is_kept_drawn() {
        // KRvKR: several moves drop the rook (Rh2, Rd1...); the tables
        // leave only the drawing ones, and the score says draw.
        let p = pos("8/8/3k4/8/8/3K4/3R4/7r w - - 0 1");
        let tb = shared_tables();
        let ranking = tb.rank_root(&p, &moves(&p), true).unwrap();
        let mut pool = SearchPool::new(16, 1).unwrap();
        pool.set_tablebases(Some(tb));
        let r = search(&mut pool, &p, &[], 20_000, Vec::new());
        assert_eq!(r.score, 0);
        let best = r.best.unwrap();
        assert_eq!(
            ranking.get(best).map(|m| m.wdl),
            Some(Wdl::Draw),
            "{}",
            uci(best)
        );

        // Asked to choose among losing moves only, it still plays one of them.
        let losing: Vec<Move> = ranking
            .moves
            .iter()
            .filter(|m| m.wdl == Wdl::Loss)
            .map(|m| m.mv)
            .collect();
        assert!(!losing.is_empty());
        let r = search(&mut pool, &p, &[], 5_000, losing.clone());
        assert!(losing.contains(&r.best.unwrap()));
        assert!(r.score == -TB_WIN || r.score <= -MATE_BOUND, "{}", r.score);
    }

    #[test]
    fn the_search_probes_after_captures() {
        // Five pieces, beyond the tables: the root is not probed, but Rxe5
        // leaves KRNvK, which is, and the score says the win.
        let p = pos("8/8/8/4r3/8/2k5/4R3/4K2N w - - 0 1");
        let mut pool = SearchPool::new(16, 1).unwrap();
        pool.set_tablebases(Some(shared_tables()));
        let collector = Arc::new(Hits::default());
        pool.start(
            Job {
                root: p,
                history: Vec::new(),
                limits: Limits {
                    depth: Some(6),
                    ..Limits::default()
                },
                options: SearchOptions::default(),
            },
            collector.clone(),
        );
        pool.wait();
        let last = collector.last.lock().unwrap().clone();
        assert!(last.0 > 0, "no tablebase hits");
        assert_eq!(last.1, "e2e5");
        assert!(last.2.unwrap() >= TB_WIN - MAX_PLY_I32, "{:?}", last.2);
    }

    const MAX_PLY_I32: i32 = crate::engine::search::MAX_PLY as i32;

    /// Keeps the tbhits, first move and score of the last iteration.
    #[derive(Default)]
    struct Hits {
        last: std::sync::Mutex<(u64, String, Option<i32>)>,
    }

    impl crate::engine::search::Reporter for Hits {
        fn iteration(&self, it: &crate::engine::search::Iteration) {
            let first = it.pv.first().map(|m| uci(*m)).unwrap_or_default();
            *self.last.lock().unwrap() = (it.tbhits, first, it.score);
        }
        fn best_move(&self, _best: Option<Move>, _ponder: Option<Move>) {}
    }
}
