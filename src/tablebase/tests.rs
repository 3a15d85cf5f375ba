//! Probes against the small tables in `../shared/data/syzygy/` (up to four
//! pieces) and the known results of `endgame.epd`.

use super::*;
use std::sync::OnceLock;

const TABLES: &str = "../shared/data/syzygy";

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
