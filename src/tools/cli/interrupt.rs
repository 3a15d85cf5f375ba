//! Ctrl-C for long commands (`forsyth epd`): the first SIGINT raises a
//! flag that the command polls, so it can stop the search and still print
//! what it has; a second one ends the process as usual.
//!
//! The standard library has no signal API. Rather than add a crate for
//! one call, we declare the C library's `signal`, which every Rust program
//! on these platforms already links (POSIX and the Windows CRT both have
//! it, with SIGINT = 2). The handler only stores to an atomic and calls
//! `signal` again, both async-signal-safe.

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

#[cfg(any(unix, windows))]
mod sys {
    use std::ffi::c_int;

    pub const SIGINT: c_int = 2;
    /// `SIG_DFL`: the default action (for SIGINT, ending the process).
    pub const SIG_DFL: usize = 0;

    unsafe extern "C" {
        /// `sighandler_t signal(int, sighandler_t)`; handlers pass as addresses.
        pub fn signal(signum: c_int, handler: usize) -> usize;
    }

    pub extern "C" fn on_sigint(_: c_int) {
        super::INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
        // SAFETY: `signal` is async-signal-safe; restoring the default
        // lets a second Ctrl-C end a run that does not stop.
        unsafe {
            signal(SIGINT, SIG_DFL);
        }
    }

    /// Unix: SIGPIPE, raised by writing to a pipe whose reader is gone.
    #[cfg(unix)]
    pub const SIGPIPE: c_int = 13;

    pub fn install() {
        let handler: extern "C" fn(c_int) = on_sigint;
        // SAFETY: the handler has the signature `signal` expects and only
        // touches an atomic.
        unsafe {
            signal(SIGINT, handler as usize);
        }
    }
}

/// Catches Ctrl-C from now on; returns the flag it raises.
pub fn install() -> &'static AtomicBool {
    #[cfg(any(unix, windows))]
    sys::install();
    &INTERRUPTED
}

/// Lets a closed pipe end the process quietly, as it ends other command
/// line tools (`forsyth analyse ... | head -3`). Rust ignores SIGPIPE, so
/// `println!` would panic on the failed write instead.
pub fn quiet_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: restoring a signal's default action has no preconditions.
    unsafe {
        sys::signal(sys::SIGPIPE, sys::SIG_DFL);
    }
}

/// Whether Ctrl-C was pressed since [`install`].
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}
