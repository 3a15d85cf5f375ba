use forsyth::chess::Position;
use forsyth::chess::perft::{self, PerftCase};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("perft-suite") => {
            let mut passed = 0;
            let mut failed = 0;
            let start = Instant::now();
            for file in &args[1..] {
                let text = std::fs::read_to_string(file).unwrap();
                for line in text.lines() {
                    let Some(case) = PerftCase::parse(line) else {
                        continue;
                    };
                    let pos = Position::from_fen(&case.fen).unwrap().0;
                    let mut ok = true;
                    for &(d, n) in &case.counts {
                        let got = perft::perft(&pos, d);
                        if got != n {
                            println!("FAIL {} depth {d}: {got} != {n}", case.fen);
                            ok = false;
                        }
                    }
                    if ok { passed += 1 } else { failed += 1 }
                }
            }
            println!("passed {passed} failed {failed} in {:?}", start.elapsed());
        }
        Some("perft") => {
            let depth: u32 = args[1].parse().unwrap();
            let pos = if args.len() > 2 {
                Position::from_fen(&args[2..].join(" ")).unwrap().0
            } else {
                Position::startpos()
            };
            let start = Instant::now();
            println!("{}", perft::report(&pos, depth, false));
            eprintln!("{:?}", start.elapsed());
        }
        _ => {}
    }
}
