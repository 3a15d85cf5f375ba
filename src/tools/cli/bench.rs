//! `forsyth bench`, `forsyth perft` and `forsyth perft-suite`: the
//! engine's node-count benchmark and its move generator's counts, from the
//! command line.

use super::args::PerftArgs;
use crate::engine::chess::epd::Epd;
use crate::engine::chess::{Position, perft};
use crate::engine::search::{self, bench};
use std::time::Instant;

/// `bench`: the fixed positions searched to `depth`; the last line,
/// `N nodes M nps`, is what commits and OpenBench quote.
pub fn bench(depth: u32) -> Result<(), String> {
    let (nodes, time) = bench::run(depth)?;
    let ms = time.as_millis().max(1) as u64;
    println!("Positions:  {}", bench::POSITIONS.len());
    println!("Depth:      {depth}");
    println!("Time (ms):  {ms}");
    println!("{nodes} nodes {} nps", search::nps(nodes, ms));
    Ok(())
}

/// `perft`: the divide of one position at one depth.
pub fn perft(args: &PerftArgs) -> Result<(), String> {
    let pos = if args.fen.is_empty() {
        Position::startpos()
    } else {
        super::read_fen(&args.fen)?
    };
    let start = Instant::now();
    println!("{}", perft::report(&pos, args.depth, false));
    eprintln!("time: {} ms", start.elapsed().as_millis());
    Ok(())
}

/// `perft-suite`: every depth of every position of EPD perft suites.
pub fn perft_suite(files: &[String]) -> Result<(), String> {
    if files.is_empty() {
        return Err("perft-suite needs at least one file".into());
    }
    let (mut passed, mut failed, mut nodes) = (0, 0, 0u64);
    let start = Instant::now();
    for file in files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() || line.trim_start().starts_with('#') {
                continue;
            }
            let epd = match Epd::parse(line) {
                Ok(epd) => epd,
                Err(e) => {
                    println!("FAIL {file}:{}: {e}", n + 1);
                    failed += 1;
                    continue;
                }
            };
            let counts = epd.perft_counts();
            if counts.is_empty() {
                continue;
            }
            let mut ok = true;
            for &(depth, expected) in &counts {
                let got = perft::perft(&epd.position, depth);
                nodes += got;
                if got != expected {
                    println!(
                        "FAIL {file}:{} depth {depth}: {got} instead of {expected}: {}",
                        n + 1,
                        epd.position.fen()
                    );
                    ok = false;
                }
            }
            if ok {
                passed += 1;
            } else {
                failed += 1;
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{passed} positions passed, {failed} failed ({nodes} nodes in {secs:.1} s, {:.0} Mnps)",
        nodes as f64 / secs.max(1e-9) / 1e6
    );
    if failed > 0 {
        Err(format!("{failed} perft positions failed"))
    } else {
        Ok(())
    }
}
