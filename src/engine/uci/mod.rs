//! The UCI front end.
//!
//! - [`command`]: one line into a [`command::Command`]. Lines are parsed
//!   with vampirc-uci 0.11.1 through a thin layer of our own for the inputs
//!   the crate gets wrong; each is listed, with its test, in that module.
//! - [`output`]: the lines sent to the GUI.
//! - [`engine`]: the loop. The main thread owns stdin and never blocks on a
//!   search (`isready` is answered at once, also during one); searches run
//!   on the search pool's threads; a writer thread owns stdout and writes
//!   whole lines, flushed one by one.
//!
//! # The protocol
//!
//! All of UCI: `uci`, `debug`, `isready`, `setoption`, `register` (ignored),
//! `ucinewgame` (clears the table and the histories), `position
//! startpos|fen ... [moves ...]` (FENs of 4 to 6 fields, X-FEN and
//! Shredder-FEN castling; moves in either castling notation whatever
//! `UCI_Chess960` says), `go` with any combination of `wtime btime winc
//! binc movestogo depth nodes mate movetime infinite ponder searchmoves`,
//! `stop`, `ponderhit`, `quit`. After `go infinite` or `go ponder` no
//! `bestmove` is printed before `stop` or `ponderhit`; `bestmove` carries
//! `ponder <move>` when a reply is known. `info` lines carry `depth seldepth
//! multipv score cp|mate [lowerbound|upperbound] [wdl] nodes nps hashfull
//! tbhits time pv`, and `currmove`/`currmovenumber` after 3 seconds. The
//! last `info` line with a `pv` before `bestmove` (the `multipv 1` line)
//! begins with the move played and has the `ponder` move second: when the
//! move comes from an iteration cut short, from a helper thread, or its
//! reply from the table, that line is printed again just before `bestmove`
//! (with MultiPV followed by that thread's other lines, best first; see
//! [`crate::engine::search::Reporter::final_line`]), with no score when the search
//! stopped before any move was scored. With `UCI_LimitStrength`, every
//! `go` but `go infinite` plays at `UCI_Elo` ([`crate::engine::search::strength`]),
//! and the line of the move drawn is that last line, with its own score.
//! A position with no legal move answers `info depth 0 score mate 0` (or `cp 0` for stalemate) and
//! `bestmove 0000`.
//!
//! Commands of our own: `d` (the board, `Fen:`, `Key:`, `Epd:`, then
//! `Checkers:`), `eval` (the evaluation by term), `go perft N` and `perft
//! N`, `bench [depth]`, `flip` (the position mirrored, colours swapped).
//!
//! # Bad input
//!
//! Bad input never stops the engine. A malformed FEN, an illegal or
//! unparsable move in `position ... moves` (the whole command is refused),
//! `go` with a negative or non-numeric value, an unknown option or a value
//! out of range, garbage, 100 kB lines, invalid UTF-8 and stray `\r` each
//! get one `info string error: ...` line naming the problem; options and
//! the table are kept. After a refused `position`, `go` answers `bestmove
//! 0000` rather than search some other position. A FEN that GUIs commonly
//! send with an impossible castling right or en-passant square is accepted
//! with `info string warning: ...` and that part dropped. Numbers are
//! checked where they enter: `go depth 4294967295` searches to the deepest
//! iteration, `go mate` and clock values near 2^64 neither overflow nor
//! panic.
//!
//! # Reliability
//!
//! `tests/uci.rs` drives the binary over pipes; `tests/stress.rs` runs
//! seeded random `go`/`stop`/`ponderhit`/`setoption`/`ucinewgame` cycles
//! with two threads (1,000 in `make test`, 10,000 in `make stress`), each
//! `go` to be answered by exactly one legal `bestmove`;
//! `tests/bestmove_pv.rs` stops 2,000 searches at random moments in every
//! way a search ends (Threads 1 and 2, MultiPV 1 and 3) and checks each
//! `bestmove` and `ponder` against the last PV line; `make long-search`
//! runs `go infinite` for an hour with resident memory flat (within 1 MB
//! after the first minute) and the `info` counters never going down. On
//! the 2-core development machine `stop` is answered in 0.3 to 8 ms,
//! `quit` during `go infinite` in about 5 ms, and `go movetime 300` takes
//! 280 to 292 ms. Nodes are `u64`, `nps` is computed in `u128` and
//! saturates.

pub mod command;
pub mod engine;
pub mod output;
