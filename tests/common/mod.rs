//! Helpers for integration tests that run the `forsyth` binary.
//!
//! [`Engine`] spawns the binary with piped stdin/stdout; a reader thread
//! timestamps each stdout line and hands it over a channel, so that every
//! wait has a timeout and a test fails instead of hanging. The child is
//! killed when the `Engine` is dropped, even when a test panics.
//! [`Background`] does the same for a one-shot command (`forsyth epd`,
//! `forsyth annotate`) that a test reads as it runs and interrupts.

#![allow(dead_code)] // Each test binary uses its own subset.

pub mod json;

use forsyth::engine::chess::{Move, Position};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The path of the binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_forsyth");

/// A generous wait for anything that should take well under a second on an
/// idle machine: CI machines are slow and shared.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// One line of engine output and when the reader thread received it.
#[derive(Clone, Debug)]
pub struct Line {
    pub at: Instant,
    pub text: String,
}

pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Line>,
    /// Every line read so far, for failure messages.
    pub transcript: Vec<String>,
    /// `bestmove` lines read so far.
    pub bestmoves: usize,
    /// When the last command was written.
    pub sent_at: Instant,
    /// How [`Engine::go`] expects castling to be written (set it along
    /// with the engine's `UCI_Chess960`).
    pub chess960: bool,
}

impl Engine {
    /// Starts `forsyth` in UCI mode.
    pub fn start() -> Engine {
        Engine::start_with_args(&[])
    }

    /// Starts `forsyth`, past `uci`/`uciok` and an `isready` round trip.
    pub fn started() -> Engine {
        let mut e = Engine::start();
        e.handshake();
        e.sync();
        e
    }

    pub fn start_with_args(args: &[&str]) -> Engine {
        let mut child = Command::new(BIN)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {BIN}: {e}"));
        let stdout = child.stdout.take().expect("piped stdout");
        let stdin = child.stdin.take();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let at = Instant::now();
                        let text = String::from_utf8_lossy(&buf)
                            .trim_end_matches(['\n', '\r'])
                            .to_owned();
                        if tx.send(Line { at, text }).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        Engine {
            child,
            stdin,
            rx,
            transcript: Vec::new(),
            bestmoves: 0,
            sent_at: Instant::now(),
            chess960: false,
        }
    }

    /// The engine's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// A `VmRSS`/`VmHWM`-style field of the engine's `/proc/PID/status`,
    /// in kB (Linux only: `None` elsewhere).
    pub fn proc_status_kb(&self, field: &str) -> Option<u64> {
        proc_status_kb(self.pid(), field)
    }

    /// Writes one command line (a newline is added).
    pub fn send(&mut self, line: &str) {
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        self.send_bytes(&bytes);
    }

    /// Writes raw bytes, newline included if wanted.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin already closed");
        stdin
            .write_all(bytes)
            .and_then(|_| stdin.flush())
            .unwrap_or_else(|e| panic!("cannot write to the engine: {e}"));
        self.sent_at = Instant::now();
        let shown: String = String::from_utf8_lossy(bytes).chars().take(120).collect();
        self.transcript.push(format!(">> {}", shown.trim_end()));
    }

    /// Closes the engine's stdin (end of input).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    fn context(&self) -> String {
        let start = self.transcript.len().saturating_sub(40);
        self.transcript[start..].join("\n")
    }

    /// The next line, or `None` if none comes within `timeout`. Panics if
    /// the engine closed its output.
    pub fn next_line(&mut self, timeout: Duration) -> Option<Line> {
        match self.rx.recv_timeout(timeout) {
            Ok(line) => {
                if line.text.starts_with("bestmove") {
                    self.bestmoves += 1;
                }
                self.transcript.push(line.text.clone());
                Some(line)
            }
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => panic!(
                "the engine closed its output; last lines:\n{}",
                self.context()
            ),
        }
    }

    /// Reads lines until one satisfies `pred`; returns every line read, the
    /// matching one last. Panics after `timeout`.
    pub fn expect_line_timed(
        &mut self,
        pred: impl Fn(&str) -> bool,
        timeout: Duration,
        what: &str,
    ) -> Vec<Line> {
        let deadline = Instant::now() + timeout;
        let mut lines = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line(left) {
                Some(line) => {
                    let done = pred(&line.text);
                    lines.push(line);
                    if done {
                        return lines;
                    }
                }
                None => panic!(
                    "no {what} within {timeout:?}; last lines:\n{}",
                    self.context()
                ),
            }
        }
    }

    pub fn expect_line(&mut self, pred: impl Fn(&str) -> bool, timeout: Duration) -> Vec<String> {
        texts(self.expect_line_timed(pred, timeout, "expected line"))
    }

    /// Reads lines up to and including the first starting with `prefix`.
    pub fn read_until(&mut self, prefix: &str, timeout: Duration) -> Vec<String> {
        let what = format!("line starting with '{prefix}'");
        texts(self.expect_line_timed(|l| l.starts_with(prefix), timeout, &what))
    }

    /// Reads for `duration` and fails if a line satisfying `pred` comes.
    /// Returns the lines read.
    pub fn expect_none(
        &mut self,
        pred: impl Fn(&str) -> bool,
        duration: Duration,
        what: &str,
    ) -> Vec<String> {
        let deadline = Instant::now() + duration;
        let mut lines = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return lines;
            }
            if let Some(line) = self.next_line(left) {
                assert!(
                    !pred(&line.text),
                    "{what}: got '{}'; last lines:\n{}",
                    line.text,
                    self.context()
                );
                lines.push(line.text);
            }
        }
    }

    /// `uci` handshake; returns the lines up to and including `uciok`.
    pub fn handshake(&mut self) -> Vec<String> {
        self.send("uci");
        self.read_until("uciok", TIMEOUT)
    }

    /// `isready` → `readyok`, failing on any `bestmove` in between (the
    /// lines before `readyok` are returned). Used after a search to check
    /// that no second `bestmove` follows the first.
    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let mut lines = self.read_until("readyok", TIMEOUT);
        lines.pop();
        for l in &lines {
            assert!(
                !l.starts_with("bestmove"),
                "unexpected '{l}'; last lines:\n{}",
                self.context()
            );
        }
        lines
    }

    /// The lines before `readyok` after sending `lines`.
    pub fn replies(&mut self, lines: &[&str]) -> Vec<String> {
        for l in lines {
            self.send(l);
        }
        self.sync()
    }

    /// Sends a `go` command and reads up to its `bestmove`; checks that the
    /// best move, the ponder move and every PV are legal in `pos`, and that
    /// no second `bestmove` follows (by an `isready` round trip).
    pub fn go(&mut self, pos: &Position, go: &str) -> Search {
        let search = self.go_raw(go);
        search.check_legal(pos, self.chess960);
        search
    }

    /// [`Engine::go`] without the legality checks (for refused positions).
    pub fn go_raw(&mut self, go: &str) -> Search {
        self.send(go);
        let sent = self.sent_at;
        let lines = self.expect_line_timed(|l| l.starts_with("bestmove"), TIMEOUT, "bestmove");
        let end = lines.last().expect("at least the bestmove").at;
        let search = Search::new(texts(lines), end - sent);
        self.sync();
        search
    }

    /// Reads up to the `bestmove` of the running search, timed from
    /// `since`, and checks it: no error line, and the best move, the
    /// ponder move and every PV legal in `pos`.
    pub fn answer(&mut self, pos: &Position, since: Instant) -> Search {
        let lines = self.expect_line_timed(|l| l.starts_with("bestmove"), TIMEOUT, "bestmove");
        let at = lines.last().expect("the bestmove").at;
        let search = Search::new(texts(lines), at.saturating_duration_since(since));
        assert!(
            search.error_lines().is_empty(),
            "error lines; last lines:\n{}",
            self.context()
        );
        search.check_legal(pos, self.chess960);
        search
    }

    /// Sends `quit` and checks that the process ends within `limit`.
    pub fn quit(&mut self, limit: Duration) -> Duration {
        self.send("quit");
        let sent = self.sent_at;
        self.wait_exit(sent, limit)
    }

    /// Waits for the process to end, polling; returns the time since `since`.
    pub fn wait_exit(&mut self, since: Instant, limit: Duration) -> Duration {
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    assert!(status.success(), "the engine exited with {status}");
                    return since.elapsed();
                }
                Ok(None) => {}
                Err(e) => panic!("try_wait: {e}"),
            }
            assert!(
                since.elapsed() < limit,
                "the engine did not exit within {limit:?}; last lines:\n{}",
                self.context()
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Quits and reads whatever output is left; fails on any `bestmove`
    /// among it (every search must already have been answered once).
    pub fn finish(mut self) {
        self.send("quit");
        let sent = self.sent_at;
        loop {
            match self.rx.recv_timeout(TIMEOUT) {
                Ok(line) => assert!(
                    !line.text.starts_with("bestmove"),
                    "a bestmove after all searches were answered: '{}'; last lines:\n{}",
                    line.text,
                    self.context()
                ),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {
                    panic!("output still open {TIMEOUT:?} after quit")
                }
            }
        }
        self.wait_exit(sent, TIMEOUT);
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A one-shot command run in the background: its stdout lines come over a
/// channel as they are written, its stderr is gathered on a thread, and
/// it can be interrupted as Ctrl-C would. Killed if dropped while running.
pub struct Background {
    child: Child,
    rx: Receiver<String>,
    stderr: Option<JoinHandle<String>>,
}

impl Background {
    /// Starts the binary with `args` (stdin empty).
    pub fn start(args: &[&str]) -> Background {
        let mut child = Command::new(BIN)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {BIN}: {e}"));
        let stdout = child.stdout.take().expect("piped stdout");
        let mut stderr = child.stderr.take().expect("piped stderr");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Background {
            child,
            rx,
            stderr: Some(stderr),
        }
    }

    /// The next stdout line, or `None` if none comes within `timeout` or
    /// the output has ended.
    pub fn next_line(&self, timeout: Duration) -> Option<String> {
        self.rx.recv_timeout(timeout).ok()
    }

    /// Sends SIGINT, as Ctrl-C in a terminal does.
    #[cfg(unix)]
    pub fn interrupt(&self) {
        let kill = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(kill.success(), "kill -INT: {kill}");
    }

    /// Waits for the process to end: its exit code, the stdout lines not
    /// read yet, and everything it wrote to stderr.
    pub fn wait(mut self) -> (Option<i32>, Vec<String>, String) {
        let status = self.child.wait().expect("the process ends");
        // The reader ends when the pipe closes, after the last line.
        let mut rest = Vec::new();
        while let Some(line) = self.next_line(TIMEOUT) {
            rest.push(line);
        }
        let stderr = self.stderr.take().expect("stderr not yet read");
        let stderr = stderr.join().expect("the stderr reader");
        (status.code(), rest, stderr)
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A number from the environment variable `name`, or `default` when it is
/// not set (a count or a seed for a longer run).
pub fn env_or(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v}: not a number")),
        Err(_) => default,
    }
}

pub fn sleep_ms(ms: usize) {
    if ms > 0 {
        std::thread::sleep(Duration::from_millis(ms as u64));
    }
}

pub fn texts(lines: Vec<Line>) -> Vec<String> {
    lines.into_iter().map(|l| l.text).collect()
}

/// The value after `key` in a whitespace-separated line.
pub fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let mut tokens = line.split_whitespace();
    while let Some(t) = tokens.next() {
        if t == key {
            return tokens.next();
        }
    }
    None
}

pub fn num_field(line: &str, key: &str) -> Option<u64> {
    field(line, key).map(|v| {
        v.parse()
            .unwrap_or_else(|_| panic!("'{key}' is not a number in '{line}'"))
    })
}

/// `("cp", 35)` or `("mate", -2)` from an info line.
pub fn score(line: &str) -> Option<(String, i32)> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let at = tokens.iter().position(|&t| t == "score")?;
    let kind = tokens.get(at + 1)?.to_string();
    let value = tokens.get(at + 2)?.parse().ok()?;
    Some((kind, value))
}

/// The moves after `pv` in an info line (empty without one).
pub fn pv(line: &str) -> Vec<String> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    match tokens.iter().position(|&t| t == "pv") {
        Some(at) => tokens[at + 1..].iter().map(|s| s.to_string()).collect(),
        None => Vec::new(),
    }
}

/// What one `go` produced.
#[derive(Debug, Clone)]
pub struct Search {
    /// Every line up to the bestmove, the bestmove last.
    pub lines: Vec<String>,
    pub best: String,
    pub ponder: Option<String>,
    /// From the `go` line written to the `bestmove` line read.
    pub elapsed: Duration,
}

impl Search {
    pub fn new(lines: Vec<String>, elapsed: Duration) -> Search {
        let last = lines.last().expect("a bestmove line");
        let tokens: Vec<&str> = last.split_whitespace().collect();
        assert!(
            tokens.len() == 2 || (tokens.len() == 4 && tokens[2] == "ponder"),
            "malformed bestmove line '{last}'"
        );
        Search {
            best: tokens[1].to_owned(),
            ponder: tokens.get(3).map(|s| s.to_string()),
            lines,
            elapsed,
        }
    }

    /// The `info` lines that carry a score and a PV.
    pub fn pv_lines(&self) -> Vec<&str> {
        self.lines
            .iter()
            .map(String::as_str)
            .filter(|l| l.starts_with("info ") && l.contains(" pv "))
            .collect()
    }

    /// The last PV line for the first MultiPV line.
    pub fn last_pv_line(&self) -> &str {
        self.pv_lines()
            .into_iter()
            .rfind(|l| field(l, "multipv").is_none_or(|m| m == "1"))
            .unwrap_or_else(|| panic!("no info line with a pv in {:?}", self.lines))
    }

    pub fn error_lines(&self) -> Vec<&str> {
        self.lines
            .iter()
            .map(String::as_str)
            .filter(|l| l.starts_with("info string error"))
            .collect()
    }

    /// Checks that the best move, the ponder move and each PV are legal in
    /// `pos`; with `chess960`, castling must be printed king-takes-rook, and
    /// without it as the king's step.
    pub fn check_legal(&self, pos: &Position, chess960: bool) {
        if self.best == "0000" {
            assert_eq!(pos.count_legal(), 0, "bestmove 0000 in {}", pos.fen());
            assert!(self.ponder.is_none(), "{:?}", self.lines);
            assert!(self.pv_lines().is_empty(), "{:?}", self.lines);
            return;
        }
        let best = legal(pos, &self.best, chess960);
        if let Some(p) = &self.ponder {
            let mut after = pos.clone();
            after.play(best);
            legal(&after, p, chess960);
        }
        for line in self.pv_lines() {
            let mut p = pos.clone();
            for m in pv(line) {
                let mv = legal(&p, &m, chess960);
                p.play(mv);
            }
        }
    }
}

/// Parses `text` as a legal move in `pos` (panics otherwise) and checks that
/// it is written as the engine should write it.
pub fn legal(pos: &Position, text: &str, chess960: bool) -> Move {
    let mv = pos
        .parse_uci_move(text)
        .unwrap_or_else(|e| panic!("{e} in {}", pos.fen()));
    assert_eq!(
        mv.uci(chess960).to_string(),
        text,
        "move written in the wrong notation in {}",
        pos.fen()
    );
    mv
}

/// The position after `moves` (UCI text) from `fen` (`None`: start position).
pub fn position(fen: Option<&str>, moves: &[&str]) -> Position {
    let mut pos = match fen {
        None => Position::startpos(),
        Some(f) => Position::from_fen(f).expect("a valid FEN").0,
    };
    for m in moves {
        let mv = pos
            .parse_uci_move(m)
            .unwrap_or_else(|e| panic!("{e} in {}", pos.fen()));
        pos.play(mv);
    }
    pos
}

/// What a one-shot command (`forsyth analyse ...`) printed and returned.
#[derive(Debug)]
pub struct Run {
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Runs the binary with `args` to completion (stdin empty).
pub fn run_cli(args: &[&str]) -> Run {
    let out = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {BIN}: {e}"));
    Run {
        status: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A file in the temporary folder, unique to this test process, removed
/// when dropped.
pub struct TempFile(pub std::path::PathBuf);

impl TempFile {
    pub fn new(name: &str, contents: impl AsRef<[u8]>) -> TempFile {
        let path = std::env::temp_dir().join(format!("forsyth-{}-{name}", std::process::id()));
        std::fs::write(&path, contents).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        TempFile(path)
    }

    pub fn path(&self) -> &str {
        self.0.to_str().expect("a UTF-8 temporary path")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A field of `/proc/PID/status` (`VmRSS`, `VmHWM`...) in kB; `None` off
/// Linux or when the process is gone.
pub fn proc_status_kb(pid: u32, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let value = text
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))?;
    value.trim().strip_suffix("kB")?.trim().parse().ok()
}
