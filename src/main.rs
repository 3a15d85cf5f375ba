//! The `forsyth` command: UCI by default, plus tools for scripts.

use clap::{CommandFactory, Parser};
use forsyth::book::build::{self, BuildOptions, Builder};
use forsyth::book::{Book, polyglot};
use forsyth::chess::Position;
use forsyth::chess::perft;
use forsyth::cli::args::{
    BookAction, BookBuildArgs, BookProbeArgs, Cli, Command, DatagenAction, DatagenArgs, PerftArgs,
};
use forsyth::cli::{self, epd::Finish};
use forsyth::datagen;
use forsyth::epd::Epd;
use forsyth::pgn;
use forsyth::progress::{Meter, templates};
use forsyth::search::bench;
use forsyth::train;
use forsyth::uci::engine;
use std::process::ExitCode;
use std::time::{Duration, Instant};

fn main() -> ExitCode {
    if std::env::args_os().len() > 1 {
        // The commands for scripts and shells; the UCI loop keeps going.
        cli::interrupt::quiet_on_closed_pipe();
    }
    // Help, the version and bad invocations end here (clap's exit status 2
    // for an error, as for every other error of the command line).
    let args = Cli::try_parse().unwrap_or_else(|e| e.exit());
    let result = match args.command {
        None => engine::run(),
        Some(Command::Version) => {
            print!("{}", Cli::command().render_version());
            Ok(())
        }
        #[cfg(feature = "tune")]
        Some(Command::SpsaParams) => {
            println!("{}", forsyth::search::params::table_json());
            Ok(())
        }
        Some(Command::Bench(a)) => cmd_bench(a.depth),
        Some(Command::Perft(a)) => cmd_perft(&a),
        Some(Command::PerftSuite(a)) => cmd_perft_suite(&a.files),
        Some(Command::Train(a)) => train::run(&a.options())
            .map(|_| ())
            .map_err(|e| e.to_string()),
        Some(Command::Datagen(a)) => cmd_datagen(&a).map_err(|e| e.to_string()),
        Some(Command::Book(a)) => match a.action {
            BookAction::Build(b) => cmd_book_build(&b),
            BookAction::Probe(p) => cmd_book_probe(&p),
        },
        Some(Command::Analyse(a)) => cli::analyse::run(&a),
        Some(Command::Fen(a)) => cli::fen::run(&a.action),
        Some(Command::Epd(a)) => match cli::epd::run(&a) {
            Ok(Finish::Done) => Ok(()),
            Ok(Finish::Interrupted) => return ExitCode::from(cli::epd::INTERRUPTED_STATUS),
            Err(e) => Err(e),
        },
        Some(Command::Annotate(a)) => match forsyth::annotate::run(&a) {
            Ok(Finish::Done) => Ok(()),
            Ok(Finish::Interrupted) => return ExitCode::from(cli::epd::INTERRUPTED_STATUS),
            Err(e) => Err(e),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("forsyth: {e}");
            ExitCode::from(2)
        }
    }
}

fn cmd_bench(depth: u32) -> Result<(), String> {
    let (nodes, time) = bench::run(depth)?;
    let ms = time.as_millis().max(1) as u64;
    println!("Positions:  {}", bench::POSITIONS.len());
    println!("Depth:      {depth}");
    println!("Time (ms):  {ms}");
    println!("{nodes} nodes {} nps", forsyth::search::nps(nodes, ms));
    Ok(())
}

fn cmd_perft(args: &PerftArgs) -> Result<(), String> {
    let pos = if args.fen.is_empty() {
        Position::startpos()
    } else {
        cli::read_fen(&args.fen)?
    };
    let start = Instant::now();
    println!("{}", perft::report(&pos, args.depth, false));
    eprintln!("time: {} ms", start.elapsed().as_millis());
    Ok(())
}

fn cmd_datagen(args: &DatagenArgs) -> Result<(), datagen::DatagenError> {
    match (&args.action, args.options()) {
        (Some(DatagenAction::Text { file }), _) => datagen::print_text(file),
        (Some(DatagenAction::Convert { games, records }), _) => {
            let n = datagen::convert(games, records)?;
            eprintln!(
                "datagen convert: {n} records written to {}",
                records.display()
            );
            Ok(())
        }
        (None, Some(options)) => datagen::run(&options).map(|_| ()),
        // clap asks for --out without `text`.
        (None, None) => Err(datagen::DatagenError::Usage(
            "--out PATH is required".into(),
        )),
    }
}

fn cmd_book_build(args: &BookBuildArgs) -> Result<(), String> {
    let options = BuildOptions {
        max_ply: args.max_ply,
        min_games: args.min_games,
    };
    let (pgns, out, strict) = (&args.pgns, &args.out, args.strict);
    let mut builder = Builder::new(options);
    let mut skipped = 0;
    // The bar counts bytes of PGN over all the files.
    let total: u64 = pgns
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    let meter = Meter::new(total, templates::BOOK);
    let (mut done, mut shown) = (0, Instant::now());
    for file in pgns {
        let bytes = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
        let mut games = pgn::games(&bytes);
        while let Some(game) = games.next() {
            match game {
                Ok(g) => builder.add_game(&g),
                Err(e) => {
                    meter.line(&format!("{file}: {e}; game skipped"));
                    skipped += 1;
                }
            }
            // A few redraws a second, not one per game.
            if meter.is_bar() && shown.elapsed() >= Duration::from_millis(100) {
                shown = Instant::now();
                meter.set_position(done + games.bytes_read());
                meter.set_message(format!("{} games, {skipped} skipped", builder.games()));
            }
        }
        done += bytes.len() as u64;
    }
    meter.finish();
    if strict && skipped > 0 {
        return Err(format!(
            "{skipped} games skipped (--strict); {out} not written"
        ));
    }
    let entries = builder.entries();
    std::fs::write(out, build::to_bytes(&entries)).map_err(|e| format!("{out}: {e}"))?;
    eprintln!(
        "{} games read, {skipped} skipped; {} entries written to {out}",
        builder.games() + skipped,
        entries.len()
    );
    Ok(())
}

fn cmd_book_probe(args: &BookProbeArgs) -> Result<(), String> {
    let book = match &args.book {
        Some(file) => Book::open(std::path::Path::new(file)),
        None => Book::default_book(),
    }
    .map_err(|e| e.to_string())?;
    let pos = if args.fen.is_empty() {
        Position::startpos()
    } else {
        cli::read_fen(&args.fen)?
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
