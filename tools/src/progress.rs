//! Progress bars on stderr for work that can take more than a second, drawn
//! only when stdout is a terminal (scripts and pipes see nothing).

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

fn target() -> ProgressDrawTarget {
    if std::io::stdout().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    }
}

/// A bar counting `total` bytes.
pub fn bytes(total: u64, what: &'static str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total), target());
    bar.set_style(
        ProgressStyle::with_template(
            "{msg} [{bar:30}] {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} eta {eta}",
        )
        .expect("a constant template")
        .progress_chars("=> "),
    );
    bar.set_message(what);
    bar
}

/// A spinner for work of unknown length.
pub fn spinner(what: &'static str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, target());
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} {elapsed}").expect("a constant template"),
    );
    bar.set_message(what);
    if !bar.is_hidden() {
        bar.enable_steady_tick(Duration::from_millis(100));
    }
    bar
}
