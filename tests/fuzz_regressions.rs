//! Replays the inputs the fuzz targets keep through the same entry points
//! (`forsyth::tools::fuzz`), on stable, in every `cargo test`: the seeds
//! (`fuzz/seeds/<target>/`) and every crash input found and fixed
//! (`fuzz/regressions/<target>/`). `make fuzz` runs the fuzzers themselves.

use std::path::Path;

fn replay(target: &str, check: fn(&[u8])) -> usize {
    let mut count = 0;
    for dir in ["fuzz/seeds", "fuzz/regressions"] {
        let dir = Path::new(dir).join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            // Name the input in the failure, whatever the check panics with.
            if std::panic::catch_unwind(|| check(&data)).is_err() {
                panic!("{} fails (see the message above)", path.display());
            }
            count += 1;
        }
    }
    count
}

#[test]
fn fen_inputs() {
    assert!(replay("fen", forsyth::tools::fuzz::fen) > 0);
}

#[test]
fn move_inputs() {
    assert!(replay("moves", forsyth::tools::fuzz::moves) > 0);
}

#[test]
fn uci_inputs() {
    assert!(replay("uci", forsyth::tools::fuzz::uci_session) > 0);
}

#[test]
fn epd_inputs() {
    assert!(replay("epd", forsyth::tools::fuzz::epd) > 0);
}

#[test]
fn polyglot_inputs() {
    assert!(replay("polyglot", forsyth::tools::fuzz::polyglot) > 0);
}

#[test]
fn pgn_inputs() {
    assert!(replay("pgn", forsyth::tools::fuzz::pgn) > 0);
}

#[test]
fn games_inputs() {
    assert!(replay("games", forsyth::tools::fuzz::games) > 0);
}
