//! Small helpers with no better home: wall-clock formatting, randomness,
//! and values that may have to be waited for.

pub mod duration;
pub mod file_watch;
pub mod maybe_async;
pub mod random;
pub mod time;
pub mod url;
