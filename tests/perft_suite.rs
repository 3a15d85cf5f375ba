//! Perft on the suites of `tests/data/perft/`: every position, at every listed depth whose
//! count is small enough for CI (`make perft-suite` runs all depths).

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
