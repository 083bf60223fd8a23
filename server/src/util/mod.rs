//! Small helpers with no better home: wall-clock formatting and randomness.

pub mod duration;
pub mod random;
pub mod time;
