//! Small helpers with no better home: wall-clock formatting, randomness,
//! and values that may have to be waited for.

pub mod duration;
pub mod file_watch;
pub mod maybe_async;
pub mod random;
pub mod time;
pub mod url;

/// This machine's host name, when the kernel tells it.
#[must_use]
pub fn host_name() -> Option<String> {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").ok()?;
    let name = name.trim();
    (!name.is_empty()).then(|| name.to_string())
}
