//! `forsyth book build` and `forsyth book probe`: a Polyglot book built
//! from PGN games ([`crate::tools::book_build`]), and the moves a book
//! holds for a position (the engine's [`crate::engine::book`]).

use super::args::{BookBuildArgs, BookProbeArgs};
use crate::engine::book::{Book, polyglot};
use crate::engine::chess::Position;
use crate::tools::book_build::{self, BuildOptions, Builder};
use crate::tools::pgn;
use crate::tools::progress::{Meter, templates};
use std::time::{Duration, Instant};

/// `book build`: the games of the PGN files into a book file.
pub fn build(args: &BookBuildArgs) -> Result<(), String> {
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
    std::fs::write(out, book_build::to_bytes(&entries)).map_err(|e| format!("{out}: {e}"))?;
    eprintln!(
        "{} games read, {skipped} skipped; {} entries written to {out}",
        builder.games() + skipped,
        entries.len()
    );
    Ok(())
}

/// `book probe`: the book's moves in a position, with their weights.
pub fn probe(args: &BookProbeArgs) -> Result<(), String> {
    let book = match &args.book {
        Some(file) => Book::open(std::path::Path::new(file)),
        None => Book::default_book(),
    }
    .map_err(|e| e.to_string())?;
    let pos = if args.fen.is_empty() {
        Position::startpos()
    } else {
        super::read_fen(&args.fen)?
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
