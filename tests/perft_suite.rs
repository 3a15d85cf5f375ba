//! Perft on the suites of `tests/data/perft/`: every position, at every listed depth whose
//! count is small enough for CI (`make perft-suite` runs all depths). And
//! the `forsyth perft-suite` command that `make perft-suite` runs, on a
//! suite small enough for CI.

mod common;

use common::{TempFile, run_cli};
use forsyth::engine::chess::epd::Epd;
use forsyth::engine::chess::perft::perft;

/// Depths with more leaves than this are left to `make perft-suite`.
const MAX_LEAVES: u64 = 5_000_000;

const SUITES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/perft");

fn run_suite(path: &str) -> (usize, u64) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut positions = 0;
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let epd = Epd::parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert!(epd.warnings.is_empty(), "{line}: {:?}", epd.warnings);
        let counts = epd.perft_counts();
        assert!(!counts.is_empty(), "{line}: no perft counts");
        positions += 1;
        for &(depth, expected) in counts.iter().filter(|(_, n)| *n <= MAX_LEAVES) {
            assert_eq!(
                perft(&epd.position, depth),
                expected,
                "{line} depth {depth}"
            );
            checked += expected;
        }
    }
    (positions, checked)
}

#[test]
fn standard_suite() {
    let (positions, leaves) = run_suite(&format!("{SUITES}/standard.epd"));
    assert_eq!(positions, 128);
    assert!(leaves > 1_000_000);
}

#[test]
fn chess960_suite() {
    let (positions, leaves) = run_suite(&format!("{SUITES}/chess960.epd"));
    assert_eq!(positions, 960);
    assert!(leaves > 10_000_000);
}

/// `forsyth perft-suite` end to end on small suites in the format of
/// `standard.epd` (a comment and a blank line are skipped): the start
/// position and Kiwipete right pass with status 0. A rook ending with a
/// wrong count at depth 2 (66 is right) gets a FAIL line naming the file,
/// the line and the depth, a record without kings one with the reason,
/// the summary counts both, and the exit status is 2, as
/// docs/command-line.md says.
#[test]
fn the_command_checks_a_suite_and_fails_on_a_wrong_count() {
    let right = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400 ;D3 8902\n\
                 r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1 ;D1 48 ;D2 2039\n";
    let wrong = "4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15 ;D2 67\n\
                 8/8/8/8/8/8/8/8 w - - 0 1 ;D1 1\n";
    let good = TempFile::new("good.epd", right);
    let bad = TempFile::new("bad.epd", format!("# four records\n{right}\n{wrong}"));

    let r = run_cli(&["perft-suite", good.path()]);
    assert_eq!((r.status, r.stderr.as_str()), (Some(0), ""), "{r:?}");
    // 20 + 400 + 8902 + 48 + 2039 leaves; the time varies.
    let summary = r
        .stdout
        .strip_prefix("2 positions passed, 0 failed (11409 nodes in ");
    assert!(summary.is_some_and(|s| s.ends_with(" Mnps)\n")), "{r:?}");

    let r = run_cli(&["perft-suite", good.path(), bad.path()]);
    assert_eq!(r.status, Some(2), "{r:?}");
    assert_eq!(r.stderr, "forsyth: 2 perft positions failed\n");
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{r:?}");
    let bad = bad.path();
    assert_eq!(
        lines[..2],
        [
            format!("FAIL {bad}:5 depth 2: 66 instead of 67: 4k3/8/8/8/8/8/8/4K2R w K - 0 1"),
            format!("FAIL {bad}:6: FEN piece placement field: white has 0 kings instead of one"),
        ]
    );
    // Both files: 2 * 11409 leaves, and 15 + 66 for the rook ending.
    assert!(
        lines[2].starts_with("4 positions passed, 2 failed (22899 nodes in "),
        "{r:?}"
    );

    // A file that cannot be read: exit status 2 before any count.
    let r = run_cli(&["perft-suite", "/nonexistent/suite.epd"]);
    assert_eq!((r.status, r.stdout.as_str()), (Some(2), ""), "{r:?}");
    assert_eq!(
        r.stderr,
        "forsyth: /nonexistent/suite.epd: No such file or directory (os error 2)\n"
    );
}
