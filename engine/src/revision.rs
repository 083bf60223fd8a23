//! `Revision`: the engine's logical clock, one value per committed transaction.

use std::fmt;

/// A strictly increasing 64-bit transaction number. Every op of one transaction
/// carries the same revision; `Revision(0)` means "before anything was written".
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct Revision(pub u64);

impl Revision {
    /// The revision of an empty store.
    pub const ZERO: Revision = Revision(0);

    /// The raw number, as written on disk and on the wire.
    #[must_use]
    pub fn get(self) -> u64 {
        self.0
    }

    /// The revision that follows this one.
    #[must_use]
    pub fn next(self) -> Revision {
        Revision(self.0 + 1)
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl From<u64> for Revision {
    fn from(v: u64) -> Self {
        Revision(v)
    }
}
