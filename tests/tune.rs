//! A tuning build (`cargo test --features tune`): the constants set by UCI
//! options reach the search. (That each one is an option with its range is
//! checked in `src/engine/uci/engine.rs`; the normal build's option list, without
//! them, in `uci.rs`.)

#![cfg(feature = "tune")]

mod common;

use common::{Engine, num_field, position};
use forsyth::engine::search::params::spec;

/// The nodes of a fixed-depth search from the start position, after a
/// fresh game (no table, no histories), so that only the constants differ.
fn nodes(e: &mut Engine) -> u64 {
    e.send("ucinewgame");
    e.send("position startpos");
    let s = e.go(&position(None, &[]), "go depth 9");
    assert!(s.error_lines().is_empty(), "{:?}", s.lines);
    s.pv_lines()
        .iter()
        .filter_map(|l| num_field(l, "nodes"))
        .max()
        .expect("a PV line with nodes")
}

/// The default of the spin option `name`, as the engine's `uci` answer
/// lists it: the table's, whatever the last tune landed, so that setting
/// an option "back" means back to what the engine started with.
fn listed_default(handshake: &[String], name: &str) -> i32 {
    let prefix = format!("option name {name} type spin default ");
    let line = handshake
        .iter()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no spin option {name} in {handshake:?}"));
    line[prefix.len()..]
        .split_whitespace()
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no default in '{line}'"))
}

/// The late-move reductions are rebuilt from their constants: another
/// base searches another tree, and the default again searches the first.
/// A margin that no table is built from (futility) reaches the search too.
#[test]
fn options_change_the_search_and_back() {
    let mut e = Engine::start();
    let handshake = e.handshake();
    e.sync();
    let default = nodes(&mut e);
    for (name, value) in [("lmr_base", 200), ("fp_margin", 20)] {
        let back = listed_default(&handshake, name);
        // The engine lists the table's default, and the value tried is
        // another one.
        assert_eq!(Some(back), spec(name).map(|p| p.default), "{name}");
        assert_ne!(back, value, "{name}");
        e.send(&format!("setoption name {name} value {value}"));
        assert_ne!(nodes(&mut e), default, "{name} {value}");
        e.send(&format!("setoption name {name} value {back}"));
        assert_eq!(nodes(&mut e), default, "{name} back to {back}");
    }
    e.finish();
}
