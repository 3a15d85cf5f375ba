//! The `forsyth` command: UCI by default, plus tools for scripts. Only
//! dispatches: the engine is `forsyth::engine`, each command is in
//! `forsyth::tools`.

use clap::{CommandFactory, Parser};
use forsyth::engine::uci::engine;
use forsyth::tools::cli::args::{BookAction, Cli, Command};
use forsyth::tools::cli::{self, epd::Finish};
use forsyth::tools::{annotate, train};
use std::process::ExitCode;

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
            println!("{}", forsyth::engine::search::params::table_json());
            Ok(())
        }
        Some(Command::Bench(a)) => cli::bench::bench(a.depth),
        Some(Command::Perft(a)) => cli::bench::perft(&a),
        Some(Command::PerftSuite(a)) => cli::bench::perft_suite(&a.files),
        Some(Command::Train(a)) => train::run(&a.options())
            .map(|_| ())
            .map_err(|e| e.to_string()),
        Some(Command::Datagen(a)) => cli::datagen::run(&a).map_err(|e| e.to_string()),
        Some(Command::Book(a)) => match a.action {
            BookAction::Build(b) => cli::book::build(&b),
            BookAction::Probe(p) => cli::book::probe(&p),
        },
        Some(Command::Analyse(a)) => cli::analyse::run(&a),
        Some(Command::Fen(a)) => cli::fen::run(&a.action),
        Some(Command::Epd(a)) => match cli::epd::run(&a) {
            Ok(Finish::Done) => Ok(()),
            Ok(Finish::Interrupted) => return ExitCode::from(cli::epd::INTERRUPTED_STATUS),
            Err(e) => Err(e),
        },
        Some(Command::Annotate(a)) => match annotate::run(&a) {
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
