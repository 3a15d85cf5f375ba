//! Progress of the long commands (`datagen`, `epd`, `train`,
//! `book build`, `annotate`)
//! on stderr: an `indicatif` bar when stderr is a terminal, and nothing of
//! it otherwise, where each command keeps writing the plain lines that logs
//! and scripts read.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// The bars of the commands (indicatif templates).
pub mod templates {
    /// `forsyth epd`: the message is the plain progress line.
    pub const EPD: &str = "{msg}  [{wide_bar}] {elapsed_precise}";
    /// `forsyth datagen`: games; the message has positions and speed.
    pub const DATAGEN: &str =
        "games {pos}/{len} [{wide_bar}] {msg}  elapsed {elapsed_precise}  left {eta_precise}";
    /// `forsyth train`: batches of all epochs; the message has the epoch,
    /// speed and loss.
    pub const TRAIN: &str =
        "train: {msg} [{wide_bar}] {percent}%  {elapsed_precise}, about {eta} left";
    /// `forsyth book build`: bytes of PGN read; the message counts games.
    pub const BOOK: &str = "[{wide_bar}] {bytes}/{total_bytes}  {msg}";
    /// `forsyth annotate`: positions searched; the message is the plain
    /// progress line (game, ply, time left).
    pub const ANNOTATE: &str = "{msg}  [{wide_bar}] {elapsed_precise}";
}

/// A bar on a terminal, or [`Meter::Lines`] when stderr is a file or pipe.
pub enum Meter {
    Bar(ProgressBar),
    Lines,
}

impl Meter {
    /// A bar of `len` steps drawn with the indicatif `template`, redrawn
    /// each second even without progress (its clock keeps moving), if
    /// stderr is a terminal.
    pub fn new(len: u64, template: &str) -> Meter {
        if !std::io::stderr().is_terminal() {
            return Meter::Lines;
        }
        let style = ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        let bar = ProgressBar::new(len).with_style(style);
        bar.enable_steady_tick(Duration::from_secs(1));
        Meter::Bar(bar)
    }

    pub fn is_bar(&self) -> bool {
        matches!(self, Meter::Bar(_))
    }

    pub fn set_position(&self, pos: u64) {
        if let Meter::Bar(bar) = self {
            bar.set_position(pos);
        }
    }

    pub fn set_message(&self, message: impl Into<std::borrow::Cow<'static, str>>) {
        if let Meter::Bar(bar) = self {
            bar.set_message(message);
        }
    }

    /// A line on stderr that stays: above the bar, or as it is.
    pub fn line(&self, text: &str) {
        match self {
            Meter::Bar(bar) => bar.println(text),
            Meter::Lines => eprintln!("{text}"),
        }
    }

    /// Runs `f` (which prints to stdout, say) with the bar out of the way.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match self {
            Meter::Bar(bar) => bar.suspend(f),
            Meter::Lines => f(),
        }
    }

    /// Takes the bar off the screen.
    pub fn finish(&self) {
        if let Meter::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Meter {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_template_is_valid() {
        // Tests run with stderr captured, so only the template is checked.
        for template in [
            crate::tools::progress::templates::EPD,
            crate::tools::progress::templates::DATAGEN,
            crate::tools::progress::templates::TRAIN,
            crate::tools::progress::templates::BOOK,
            crate::tools::progress::templates::ANNOTATE,
        ] {
            assert!(ProgressStyle::with_template(template).is_ok(), "{template}");
        }
    }
}
