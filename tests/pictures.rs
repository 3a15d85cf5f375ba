//! Pictures (issue 40): `forsyth fen svg` and `forsyth annotate --html`,
//! read back as XML. The pieces come back from the SVG's own classes and
//! `data-square` attributes, and from where each is drawn; the graph's
//! points come back with the PGN output's evaluations. Bad input: exit
//! status 2 and no file, not even a temporary one.

mod common;

use common::{Run, TempFile, run_cli};
use forsyth::engine::chess::Position;
use roxmltree::{Document, Node};
use std::collections::BTreeMap;
use std::path::PathBuf;

const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
/// From the seeds' examples: a bishop and rook ending, move 175.
const SEED: &str = "8/8/8/1r1B3R/3K1k2/8/8/8 b - - 0 175";
/// A Chess960 start position (king c1, rooks b1 and f1), as in
/// tests/annotate.rs.
const CHESS960: &str = "nrkbqrbn/pppppppp/8/8/8/8/PPPPPPPP/NRKBQRBN w FBfb - 0 1";

/// A queen left hanging (6. Qh5?? Nxh5, and 6... d6?? missing it), and a
/// Chess960 game that castles long.
const BLUNDERS: &str = "\
[Event \"Hanging queen\"]
[White \"A\"]
[Black \"B\"]
[Result \"*\"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. d3 Be7 5. Ng5 O-O 6. Qh5 d6 7. Qf3 *

[Event \"Chess960\"]
[Variant \"Chess960\"]
[SetUp \"1\"]
[FEN \"nrkbqrbn/pppppppp/8/8/8/8/PPPPPPPP/NRKBQRBN w FBfb - 0 1\"]
[Result \"*\"]

1. c4 c5 2. Bc2 Bc7 3. O-O-O O-O-O 4. Nb3 Nb6 *
";

/// A folder of its own for a test's output files, removed at the end.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let d =
            std::env::temp_dir().join(format!("forsyth-pictures-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }

    fn file(&self, name: &str) -> String {
        self.0.join(name).to_str().unwrap().to_string()
    }

    /// The names of the files in it.
    fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn ok(r: &Run) -> &str {
    assert_eq!(r.status, Some(0), "{r:?}");
    &r.stdout
}

/// The pieces a FEN's first field places: square name -> class (`wK`).
fn fen_pieces(fen: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let placement = fen.split(' ').next().unwrap();
    for (row, rank) in placement.split('/').enumerate() {
        let mut file = 0u8;
        for c in rank.chars() {
            if let Some(n) = c.to_digit(10) {
                file += n as u8;
                continue;
            }
            let square = format!("{}{}", (b'a' + file) as char, 8 - row);
            let colour = if c.is_ascii_uppercase() { 'w' } else { 'b' };
            out.insert(square, format!("{colour}{}", c.to_ascii_uppercase()));
            file += 1;
        }
    }
    out
}

fn class(n: &Node) -> Vec<String> {
    n.attribute("class")
        .unwrap_or("")
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

fn has_class(n: &Node, c: &str) -> bool {
    class(n).iter().any(|x| x == c)
}

/// The pieces of a board SVG, square -> class, each also checked to be
/// drawn on its square: from White's side a1 is at the bottom left.
fn board_pieces(svg: Node) -> BTreeMap<String, String> {
    let flip = match svg.attribute("data-orientation") {
        Some("white") => false,
        Some("black") => true,
        other => panic!("orientation {other:?}"),
    };
    let mut out = BTreeMap::new();
    for g in svg.descendants().filter(|n| has_class(n, "piece")) {
        let c = class(&g);
        assert_eq!(c.len(), 2, "{c:?}");
        let square = g.attribute("data-square").unwrap().to_string();
        let b = square.as_bytes();
        let (file, rank) = (f64::from(b[0] - b'a'), f64::from(b[1] - b'1'));
        let (col, row) = if flip {
            (7.0 - file, rank)
        } else {
            (file, 7.0 - rank)
        };
        let translate = format!("translate({} {})", 20.0 + 45.0 * col, 4.0 + 45.0 * row);
        assert_eq!(
            g.attribute("transform"),
            Some(translate.as_str()),
            "{square}"
        );
        assert!(out.insert(square, c[1].clone()).is_none());
    }
    out
}

/// The coordinates as drawn, left to right and top to bottom.
fn coordinates(svg: Node) -> (String, String) {
    let text = |kind: &str| -> String {
        svg.descendants()
            .filter(|n| has_class(n, "coord") && has_class(n, kind))
            .map(|n| n.text().unwrap_or(""))
            .collect()
    };
    (text("file"), text("rank"))
}

fn svg_of(args: &[&str]) -> String {
    let mut all = vec!["fen", "svg"];
    all.extend_from_slice(args);
    ok(&run_cli(&all)).to_string()
}

#[test]
fn diagrams_hold_exactly_the_pieces_of_the_fen() {
    for fen in [AFTER_E4, SEED, CHESS960, "4k3/8/8/8/8/8/8/4K3 w - - 0 1"] {
        for flip in [false, true] {
            let mut args = vec![fen];
            if flip {
                args.push("--flip");
            }
            let text = svg_of(&args);
            let doc = Document::parse(&text).unwrap_or_else(|e| panic!("{fen}: {e}\n{text}"));
            let svg = doc.root_element();
            assert_eq!(svg.tag_name().name(), "svg");
            assert_eq!(
                svg.tag_name().namespace(),
                Some("http://www.w3.org/2000/svg")
            );
            // The FEN as `fen check` writes it (X-FEN castling here).
            let check = run_cli(&["fen", "check", fen]);
            assert_eq!(svg.attribute("data-fen"), Some(ok(&check).trim_end()));
            assert_eq!(board_pieces(svg), fen_pieces(fen), "{fen} flip {flip}");
            let expected = if flip {
                ("hgfedcba", "12345678")
            } else {
                ("abcdefgh", "87654321")
            };
            let (files, ranks) = coordinates(svg);
            assert_eq!((files.as_str(), ranks.as_str()), expected);
            // 64 squares, nothing from elsewhere.
            let squares = svg
                .descendants()
                .filter(|n| n.tag_name().name() == "rect" && n.attribute("width") == Some("45"))
                .count();
            assert_eq!(squares, 64);
            assert!(!text.contains("href") && !text.contains("http://www.w3.org/1999"));
        }
    }
    // The seed position in words, to be sure of the reading itself.
    let seed = fen_pieces(SEED);
    let expected: BTreeMap<String, String> = [
        ("b5", "bR"),
        ("d5", "wB"),
        ("h5", "wR"),
        ("d4", "wK"),
        ("f4", "bK"),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(seed, expected);
    assert_eq!(
        fen_pieces(AFTER_E4).get("e4").map(String::as_str),
        Some("wP")
    );
    assert_eq!(fen_pieces(AFTER_E4).len(), 32);
    assert_eq!(
        fen_pieces(CHESS960).get("c1").map(String::as_str),
        Some("wK")
    );
}

#[test]
fn both_spellings_arrows_last_move_and_out() {
    let d = Dir::new("svg");
    let out = d.file("e4.svg");
    let args = [
        AFTER_E4, "--last", "e2e4", "--arrow", "g8f6", "--arrow", "d7d5", "--size", "300",
    ];
    let stdout = svg_of(&args);
    let mut flag = vec!["fen", "--svg"];
    flag.extend_from_slice(&args);
    assert_eq!(ok(&run_cli(&flag)), stdout);
    flag.extend_from_slice(&["--out", &out]);
    let r = run_cli(&flag);
    assert_eq!(ok(&r), "");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), stdout);
    assert_eq!(d.names(), ["e4.svg"]);
    let doc = Document::parse(&stdout).unwrap();
    let svg = doc.root_element();
    assert_eq!(
        (svg.attribute("width"), svg.attribute("height")),
        (Some("300"), Some("300"))
    );
    let arrows: Vec<(&str, &str)> = svg
        .descendants()
        .filter(|n| has_class(n, "arrow"))
        .map(|n| {
            (
                n.attribute("data-from").unwrap(),
                n.attribute("data-to").unwrap(),
            )
        })
        .collect();
    assert_eq!(arrows, [("g8", "f6"), ("d7", "d5")]);
    let last: Vec<&str> = svg
        .descendants()
        .filter(|n| has_class(n, "last"))
        .map(|n| n.attribute("data-square").unwrap())
        .collect();
    assert_eq!(last, ["e2", "e4"]);
}

#[test]
fn bad_fen_or_option_gives_status_2_and_no_file() {
    let d = Dir::new("bad-svg");
    let out = d.file("x.svg");
    for (args, message) in [
        (vec!["8/8/8 w - -"], "bad FEN"),
        (
            vec!["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1"],
            "bad FEN",
        ),
        (vec![AFTER_E4, "--arrow", "e2e9"], "bad --arrow"),
        (vec![AFTER_E4, "--last", "e4"], "bad --last"),
    ] {
        let mut all = vec!["fen", "svg"];
        all.extend_from_slice(&args);
        all.extend_from_slice(&["--out", &out]);
        let r = run_cli(&all);
        assert_eq!(r.status, Some(2), "{r:?}");
        assert!(r.stderr.contains(message), "{r:?}");
        assert_eq!(r.stdout, "");
        assert!(d.names().is_empty(), "{:?}", d.names());
    }
    // A folder that is not there.
    let r = run_cli(&["fen", "svg", AFTER_E4, "--out", &d.file("no/x.svg")]);
    assert_eq!(r.status, Some(2), "{r:?}");
    // `fen check` says the same of the same FEN.
    let check = run_cli(&["fen", "check", "8/8/8 w - -"]);
    let svg = run_cli(&["fen", "--svg", "8/8/8 w - -"]);
    assert_eq!((check.status, &check.stderr), (svg.status, &svg.stderr));
}

/// The `[%eval]` texts of the main line of each game of a PGN text:
/// variations (in parentheses outside comments) are left out.
fn main_line_evals(pgn: &str) -> Vec<Vec<String>> {
    let mut games = Vec::new();
    for game in pgn.split("\n[Event ").filter(|g| !g.trim().is_empty()) {
        let movetext = game.split("\n\n").nth(1).unwrap_or("");
        let (mut depth, mut comment, mut kept) = (0, false, String::new());
        for c in movetext.chars() {
            match c {
                '{' => comment = true,
                '}' => comment = false,
                '(' if !comment => depth += 1,
                ')' if !comment => depth -= 1,
                _ => {}
            }
            if depth == 0 && c != ')' {
                kept.push(c);
            }
        }
        let evals = kept
            .split("[%eval ")
            .skip(1)
            .map(|s| s.split(']').next().unwrap().to_string())
            .collect();
        games.push(evals);
    }
    games
}

/// White's and Black's (inaccuracies, mistakes, blunders, acpl) from the
/// summary comment of a PGN game.
fn pgn_summary(game_pgn: &str) -> Vec<[u32; 4]> {
    let flat = game_pgn.split_whitespace().collect::<Vec<_>>().join(" ");
    ["White:", "Black:"]
        .iter()
        .map(|side| {
            let rest = flat
                .split(&format!("{side} average centipawn loss "))
                .nth(1)
                .unwrap();
            let numbers: Vec<u32> = rest
                .split(|c: char| !c.is_ascii_digit())
                .filter(|s| !s.is_empty())
                .take(4)
                .map(|s| s.parse().unwrap())
                .collect();
            [numbers[1], numbers[2], numbers[3], numbers[0]]
        })
        .collect()
}

fn cell(row: Node, class_name: &str) -> u32 {
    row.children()
        .find(|n| has_class(n, class_name))
        .and_then(|n| n.text())
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn the_report_agrees_with_the_pgn_output() {
    let d = Dir::new("report");
    let pgn_in = TempFile::new("pictures-blunders.pgn", BLUNDERS);
    let (html, pgn_out) = (d.file("report.html"), d.file("games.pgn"));
    let base = ["annotate", pgn_in.path(), "--threads", "1", "--depth", "6"];
    let mut args = base.to_vec();
    args.extend_from_slice(&["--html", &html, "--out", &pgn_out]);
    let r = run_cli(&args);
    assert_eq!(ok(&r), "");
    assert_eq!(d.names(), ["games.pgn", "report.html"]);
    let pgn = std::fs::read_to_string(&pgn_out).unwrap();
    // The same analysis as a plain run's.
    assert_eq!(ok(&run_cli(&base)), pgn);
    // The page alone: nothing on stdout, the same page.
    let alone = d.file("alone.html");
    let mut args = base.to_vec();
    args.extend_from_slice(&["--html", &alone]);
    assert_eq!(ok(&run_cli(&args)), "");
    let text = std::fs::read_to_string(&html).unwrap();
    assert_eq!(std::fs::read_to_string(&alone).unwrap(), text);

    // Self-contained: nothing to fetch (the namespaces are names only).
    let rest = text
        .replace(r#"xmlns="http://www.w3.org/1999/xhtml""#, "")
        .replace(r#"xmlns="http://www.w3.org/2000/svg""#, "");
    for outside in [
        "<script", "<link", "src=", "href=", "url(", "@import", "http:", "https:",
    ] {
        assert!(!rest.contains(outside), "{outside}");
    }
    // `<!DOCTYPE html>` is a DTD to an XML parser.
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..roxmltree::ParsingOptions::default()
    };
    let doc = Document::parse_with_options(&text, options).unwrap_or_else(|e| panic!("{e}"));
    let games: Vec<Node> = doc.descendants().filter(|n| has_class(n, "game")).collect();
    assert_eq!(games.len(), 2);
    let evals = main_line_evals(&pgn);
    let pgn_games: Vec<&str> = pgn.split("\n[Event ").collect();
    assert_eq!(evals.len(), 2);
    for (g, (game, pgn_evals)) in games.iter().zip(&evals).enumerate() {
        let points: Vec<Node> = game
            .descendants()
            .filter(|n| has_class(n, "point"))
            .collect();
        let plies = points.len() - 1;
        assert_eq!(plies, if g == 0 { 13 } else { 8 });
        assert_eq!(pgn_evals.len(), plies);
        for (i, p) in points.iter().enumerate() {
            assert_eq!(p.attribute("data-ply"), Some(i.to_string().as_str()));
            let e = p.attribute("data-eval").unwrap();
            if i > 0 {
                // The PGN's evaluation after the same move.
                assert_eq!(e, pgn_evals[i - 1], "game {g} ply {i}");
            }
            // Drawn where the axis says: +5 at the top (10), -5 at the
            // bottom (194), mates on the edge.
            let v: f64 = match e.strip_prefix('#') {
                Some(m) if m.starts_with('-') => -5.0,
                Some(_) => 5.0,
                None => e.parse::<f64>().unwrap().clamp(-5.0, 5.0),
            };
            let x = 38.0 + 670.0 * i as f64 / plies as f64;
            let y = 10.0 + 184.0 * (5.0 - v) / 10.0;
            assert_eq!(p.attribute("cx"), Some(format!("{x:.1}").as_str()));
            assert_eq!(p.attribute("cy"), Some(format!("{y:.1}").as_str()));
        }
        // The axis from +5 down to -5.
        let labels: Vec<&str> = game
            .descendants()
            .filter(|n| has_class(n, "axis") && has_class(n, "y"))
            .map(|n| n.text().unwrap())
            .collect();
        assert_eq!(
            labels,
            [
                "-5", "-4", "-3", "-2", "-1", "0", "+1", "+2", "+3", "+4", "+5"
            ]
        );
        // Each side's figures, as in the PGN's summary, and as many dots
        // of each colour.
        let rows: Vec<Node> = game
            .descendants()
            .filter(|n| n.attribute("data-side").is_some())
            .collect();
        let table: Vec<[u32; 4]> = rows
            .iter()
            .map(|r| ["inaccuracies", "mistakes", "blunders", "acpl"].map(|c| cell(*r, c)))
            .collect();
        assert_eq!(table, pgn_summary(pgn_games[g]), "game {g}");
        for (k, mark) in ["inaccuracy", "mistake", "blunder"].iter().enumerate() {
            let dots = points.iter().filter(|p| has_class(p, mark)).count() as u32;
            assert_eq!(dots, table[0][k] + table[1][k], "{mark}");
        }
        // The moves in SAN, in order.
        let sans: Vec<String> = game
            .descendants()
            .filter(|n| has_class(n, "move"))
            .map(|n| {
                n.descendants()
                    .filter(|t| t.is_text())
                    .filter_map(|t| t.text())
                    .collect::<String>()
            })
            .collect();
        if g == 0 {
            assert_eq!(sans[10], "Qh5??");
            assert_eq!(sans[11], "d6??");
            assert_eq!(sans[0..3], ["e4", "e5", "Nf3"]);
        } else {
            assert_eq!(sans[4], "O-O-O");
        }
        // A diagram at every marked move, of the position before it, with
        // the move played (red) and the engine's move (green).
        let marked = points.iter().filter(|p| class(p).len() == 2).count();
        let diagrams: Vec<Node> = game
            .descendants()
            .filter(|n| has_class(n, "diagram"))
            .collect();
        assert_eq!(diagrams.len(), marked);
        for dia in &diagrams {
            let svg = dia.descendants().find(|n| has_class(n, "board")).unwrap();
            let fen = svg.attribute("data-fen").unwrap();
            assert_eq!(board_pieces(svg), fen_pieces(fen));
            let kinds: Vec<String> = svg
                .descendants()
                .filter(|n| has_class(n, "arrow"))
                .map(|n| class(&n)[1].clone())
                .collect();
            assert_eq!(kinds, ["good", "bad"]);
        }
    }
    // 6. Qh5??: the diagram is the position after 5... O-O, from White's
    // side, the queen's move in red.
    let mut pos = Position::startpos();
    for san in [
        "e4", "e5", "Nf3", "Nc6", "Bc4", "Nf6", "d3", "Be7", "Ng5", "O-O",
    ] {
        let m = pos.parse_san(san).unwrap();
        pos.play(m);
    }
    let qh5 = games[0]
        .descendants()
        .find(|n| has_class(n, "diagram") && n.attribute("data-ply") == Some("11"))
        .unwrap();
    let svg = qh5.descendants().find(|n| has_class(n, "board")).unwrap();
    assert_eq!(svg.attribute("data-fen"), Some(pos.fen().as_str()));
    assert_eq!(svg.attribute("data-orientation"), Some("white"));
    let bad = svg.descendants().find(|n| has_class(n, "bad")).unwrap();
    assert_eq!(
        (bad.attribute("data-from"), bad.attribute("data-to")),
        (Some("d1"), Some("h5"))
    );
    // 6... d6??: from Black's side, the engine's Nxh5 in green.
    let d6 = games[0]
        .descendants()
        .find(|n| has_class(n, "diagram") && n.attribute("data-ply") == Some("12"))
        .unwrap();
    let svg = d6.descendants().find(|n| has_class(n, "board")).unwrap();
    assert_eq!(svg.attribute("data-orientation"), Some("black"));
    let good = svg.descendants().find(|n| has_class(n, "good")).unwrap();
    assert_eq!(
        (good.attribute("data-from"), good.attribute("data-to")),
        (Some("f6"), Some("h5"))
    );
}

#[test]
fn a_broken_pgn_writes_no_page() {
    let d = Dir::new("broken");
    let html = d.file("report.html");
    let good = "[Event \"ok\"]\n\n1. e4 e5 *\n\n";
    let bad = "[Event \"bad\"]\n\n1. e4 e4 *\n\n";
    for (name, pgn, strict, message) in [
        (
            "strict.pgn",
            format!("{good}{bad}"),
            true,
            "(--strict); nothing written",
        ),
        (
            "bad-only.pgn",
            bad.to_string(),
            false,
            "no game could be read",
        ),
        (
            "not-pgn.pgn",
            "hello, world\n".to_string(),
            false,
            "not a PGN file",
        ),
    ] {
        let file = TempFile::new(name, pgn);
        let mut args = vec!["annotate", file.path(), "--depth", "2", "--html", &html];
        if strict {
            args.push("--strict");
        }
        let r = run_cli(&args);
        assert_eq!(r.status, Some(2), "{r:?}");
        assert!(r.stderr.contains(message), "{name}: {r:?}");
        assert!(d.names().is_empty(), "{name}: {:?}", d.names());
    }
    // An output folder that is not there fails before any analysis.
    let file = TempFile::new("pictures-good.pgn", good);
    let r = run_cli(&["annotate", file.path(), "--html", &d.file("no/r.html")]);
    assert_eq!(r.status, Some(2), "{r:?}");
    assert!(r.stderr.contains("no/r.html"), "{r:?}");
    let r = run_cli(&["annotate", file.path(), "--html", d.0.to_str().unwrap()]);
    assert_eq!(r.status, Some(2), "{r:?}");
    assert!(r.stderr.contains("is a folder"), "{r:?}");
    // --html and --json do not go together.
    let r = run_cli(&["annotate", file.path(), "--json", "--html", &html]);
    assert_eq!(r.status, Some(2), "{r:?}");
    assert!(d.names().is_empty());
}

/// Ctrl-C keeps the games finished, as the PGN output does: the page holds
/// the first game whole and nothing of the second; stopped during the
/// first game, there is no page at all.
#[cfg(unix)]
#[test]
fn ctrl_c_writes_the_games_finished() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    let long = format!(
        "[Event \"long\"]\n\n{}*\n",
        "1. Nf3 Nf6 2. Ng1 Ng8 ".repeat(15)
    );
    let short = "[Event \"short\"]\n\n1. e4 e5 *\n\n";
    for first_done in [true, false] {
        let pgn = if first_done {
            format!("{short}{long}")
        } else {
            long.clone()
        };
        let file = TempFile::new("pictures-interrupted.pgn", pgn);
        let d = Dir::new(if first_done { "ctrl-c" } else { "ctrl-c-early" });
        let (html, out) = (d.file("r.html"), d.file("g.pgn"));
        let mut child = Command::new(common::BIN)
            .args([
                "annotate",
                file.path(),
                "--movetime",
                "100",
                "--html",
                &html,
                "--out",
                &out,
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("forsyth starts");
        let stderr = child.stderr.take().expect("piped stderr");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut lines = Vec::new();
        if first_done {
            // The PGN of the first game is flushed when it is done.
            let start = Instant::now();
            while !std::fs::read_to_string(&out).is_ok_and(|t| t.contains(" *"))
                && start.elapsed() < common::TIMEOUT
            {
                std::thread::sleep(Duration::from_millis(20));
            }
        } else {
            // The first progress line: the analysis (and Ctrl-C's handler)
            // has started.
            while let Ok(line) = rx.recv_timeout(common::TIMEOUT) {
                let started = line.contains("game 1 of 1");
                lines.push(line);
                if started {
                    break;
                }
            }
        }
        let kill = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(kill.success());
        let status = child.wait().expect("forsyth exits");
        while let Ok(line) = rx.recv_timeout(common::TIMEOUT) {
            lines.push(line);
        }
        let stderr = lines.join("\n");
        assert_eq!(status.code(), Some(130), "{stderr}");
        if first_done {
            assert_eq!(d.names(), ["g.pgn", "r.html"], "{stderr}");
            let text = std::fs::read_to_string(&html).unwrap();
            assert!(text.ends_with("</html>\n"));
            assert_eq!(text.matches(r#"<section class="game""#).count(), 1);
            assert!(text.contains(r#"data-game="1""#));
        } else {
            assert_eq!(d.names(), ["g.pgn"], "{stderr}");
            assert!(stderr.contains("no game was finished"), "{stderr}");
        }
    }
}
