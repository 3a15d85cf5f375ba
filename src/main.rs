//! The `forsyth` command: UCI by default, plus tools for scripts.

use forsyth::book::build::{self, BuildOptions, Builder};
use forsyth::book::{Book, polyglot};
use forsyth::chess::Position;
use forsyth::chess::perft;
use forsyth::cli::{self, epd::Finish};
use forsyth::datagen;
use forsyth::epd::Epd;
use forsyth::search::bench;
use forsyth::uci::engine::{self, ENGINE_NAME};
use std::process::ExitCode;
use std::time::Instant;

const HELP: &str = "\
Forsyth, a UCI chess engine.

Usage:
  forsyth                     speak UCI on stdin/stdout (what GUIs run)
  forsyth bench [DEPTH]       search the bench positions; last line: <nodes> nodes <nps> nps
  forsyth perft N [FEN]       count leaf nodes N plies deep (start position if no FEN)
  forsyth perft-suite FILE... check every position of perft suites (EPD with ;D<n> <count>)
  forsyth datagen --out PATH [--games N] [--nodes N] [--threads N] [--hash MB]
                  [--openings FILE] [--random-plies N] [--seed S] [--text]
                              self-play training data (forsyth datagen --help)
  forsyth datagen text FILE.bin
                              print a datagen record file as `FEN | score | result`
  forsyth book build --pgn FILE... --out FILE.bin [--max-ply N] [--min-games N] [--strict]
                              write a Polyglot book from PGN games (--strict: fail on a bad game)
  forsyth book probe [--book FILE.bin] [FEN]
                              list the book moves of a position (default book, start position)
  forsyth tune --data FILE.bin [options]
                              fit the evaluation to datagen positions (forsyth tune --help)
  forsyth analyse [--fen FEN] [--moves M...] [--depth N | --movetime MS | --nodes N]
                  [--multipv K] [--threads N] [--hash MB] [--json]
                              search one position; best move, score, WDL, PV (UCI and SAN)
  forsyth epd FILE [--depth N | --movetime MS | --nodes N] [--threads N] [--hash MB]
                  [--json OUT]
                              run an EPD test suite (bm/am/dm); Ctrl-C prints the summary
  forsyth epd --write [--fen FEN] [--depth N | --movetime MS | --nodes N]
                              search and print the position as EPD (bm, ce, acd, pv...)
  forsyth fen check FEN       validate a FEN and print it normalised
  forsyth fen show FEN [--ascii]
                              draw the board
  forsyth --version           print the version
  forsyth --help              print this help
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !args.is_empty() {
        // The commands for scripts and shells; the UCI loop keeps going.
        cli::interrupt::quiet_on_closed_pipe();
    }
    let result = match args.first().map(String::as_str) {
        None => engine::run(),
        Some("--help" | "-h" | "help") => {
            print!("{HELP}");
            Ok(())
        }
        Some("--version" | "-V" | "version") => {
            println!("{ENGINE_NAME} {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        Some("bench") => cmd_bench(&args[1..]),
        Some("perft") => cmd_perft(&args[1..]),
        Some("perft-suite") => cmd_perft_suite(&args[1..]),
        Some("tune") => cmd_tune(&args[1..]),
        Some("datagen") => datagen::cli(&args[1..]).map_err(|e| e.to_string()),
        Some("book") => cmd_book(&args[1..]),
        Some("analyse" | "analyze") => cli::analyse::run(&args[1..]),
        Some("fen") => cli::fen::run(&args[1..]),
        Some("epd") => match cli::epd::run(&args[1..]) {
            Ok(Finish::Done) => Ok(()),
            Ok(Finish::Interrupted) => return ExitCode::from(cli::epd::INTERRUPTED_STATUS),
            Err(e) => Err(e),
        },
        Some(other) => Err(format!("unknown command '{other}' (see forsyth --help)")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("forsyth: {e}");
            ExitCode::from(2)
        }
    }
}

fn parse_depth(arg: Option<&String>, default: u32) -> Result<u32, String> {
    match arg {
        None => Ok(default),
        Some(s) => s.parse().map_err(|_| format!("'{s}' is not a depth")),
    }
}

fn cmd_bench(args: &[String]) -> Result<(), String> {
    let depth = parse_depth(args.first(), bench::DEFAULT_DEPTH)?;
    let (nodes, time) = bench::run(depth)?;
    let ms = time.as_millis().max(1) as u64;
    println!("Positions:  {}", bench::POSITIONS.len());
    println!("Depth:      {depth}");
    println!("Time (ms):  {ms}");
    println!("{nodes} nodes {} nps", forsyth::search::nps(nodes, ms));
    Ok(())
}

fn cmd_perft(args: &[String]) -> Result<(), String> {
    let Some(d) = args.first() else {
        return Err("perft needs a depth".into());
    };
    let depth = parse_depth(Some(d), 1)?;
    let pos = if args.len() > 1 {
        let fen = args[1..].join(" ");
        let (pos, warnings) = Position::from_fen(&fen).map_err(|e| e.to_string())?;
        for w in warnings {
            eprintln!("warning: {w}");
        }
        pos
    } else {
        Position::startpos()
    };
    let start = Instant::now();
    println!("{}", perft::report(&pos, depth, false));
    eprintln!("time: {} ms", start.elapsed().as_millis());
    Ok(())
}

fn cmd_book(args: &[String]) -> Result<(), String> {
    match args.first().map(String::as_str) {
        Some("build") => cmd_book_build(&args[1..]),
        Some("probe") => cmd_book_probe(&args[1..]),
        _ => Err("book needs 'build' or 'probe' (see forsyth --help)".into()),
    }
}

fn cmd_book_build(args: &[String]) -> Result<(), String> {
    let mut pgns = Vec::new();
    let mut out = None;
    let mut options = BuildOptions::default();
    let mut strict = false;
    let mut i = 0;
    // `--pgn` takes every following argument up to the next option.
    let mut in_pgns = false;
    while i < args.len() {
        let arg = args[i].as_str();
        let number = |i: usize| -> Result<u32, String> {
            let v = args.get(i).ok_or(format!("{arg} needs a number"))?;
            v.parse()
                .map_err(|_| format!("{arg}: '{v}' is not a number"))
        };
        match arg {
            "--pgn" => in_pgns = true,
            "--out" => {
                out = Some(args.get(i + 1).ok_or("--out needs a file")?.clone());
                in_pgns = false;
                i += 1;
            }
            "--max-ply" => {
                options.max_ply = number(i + 1)?;
                in_pgns = false;
                i += 1;
            }
            "--min-games" => {
                options.min_games = number(i + 1)?;
                in_pgns = false;
                i += 1;
            }
            "--strict" => {
                strict = true;
                in_pgns = false;
            }
            _ if in_pgns && !arg.starts_with("--") => pgns.push(arg.to_string()),
            _ => return Err(format!("book build: unexpected argument '{arg}'")),
        }
        i += 1;
    }
    let Some(out) = out else {
        return Err("book build needs --out FILE.bin".into());
    };
    if pgns.is_empty() {
        return Err("book build needs --pgn FILE...".into());
    }
    let mut builder = Builder::new(options);
    let mut skipped = 0;
    for file in &pgns {
        let bytes = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
        for e in builder.add_pgn(&String::from_utf8_lossy(&bytes)) {
            eprintln!("{file}: {e}; game skipped");
            skipped += 1;
        }
    }
    if strict && skipped > 0 {
        return Err(format!(
            "{skipped} games skipped (--strict); {out} not written"
        ));
    }
    let entries = builder.entries();
    std::fs::write(&out, build::to_bytes(&entries)).map_err(|e| format!("{out}: {e}"))?;
    eprintln!(
        "{} games read, {skipped} skipped; {} entries written to {out}",
        builder.games() + skipped,
        entries.len()
    );
    Ok(())
}

fn cmd_book_probe(args: &[String]) -> Result<(), String> {
    let (book, rest) = match args.first().map(String::as_str) {
        Some("--book") => {
            let file = args.get(1).ok_or("--book needs a file")?;
            (
                Book::open(std::path::Path::new(file)).map_err(|e| e.to_string())?,
                &args[2..],
            )
        }
        _ => (Book::default_book().map_err(|e| e.to_string())?, args),
    };
    let pos = if rest.is_empty() {
        Position::startpos()
    } else {
        let (pos, warnings) = Position::from_fen(&rest.join(" ")).map_err(|e| e.to_string())?;
        for w in warnings {
            eprintln!("warning: {w}");
        }
        pos
    };
    let moves = book.probe(&pos).map_err(|e| e.to_string())?;
    println!("book {} key {:016x}", book.name(), polyglot::key(&pos));
    if moves.is_empty() {
        println!("no book moves");
        return Ok(());
    }
    let total: u64 = moves.iter().map(|b| u64::from(b.weight)).sum();
    for b in &moves {
        let pct = if total == 0 {
            0.0
        } else {
            100.0 * f64::from(b.weight) / total as f64
        };
        println!(
            "{:<6} {:<8} weight {:>5} {:>5.1}%",
            b.mv.uci(false).to_string(),
            pos.san(b.mv),
            b.weight,
            pct
        );
    }
    Ok(())
}

fn cmd_perft_suite(files: &[String]) -> Result<(), String> {
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

fn cmd_tune(args: &[String]) -> Result<(), String> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{}", forsyth::tune::USAGE);
        return Ok(());
    }
    let options = forsyth::tune::Options::parse(args)?;
    let report = forsyth::tune::run(&options)?;
    println!(
        "{} positions, K {:.4}, validation error {:.6} -> {:.6}, written to {}",
        report.positions,
        report.k,
        report.validation_before,
        report.validation_after,
        options.out.display()
    );
    Ok(())
}
