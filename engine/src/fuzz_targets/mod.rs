//! Fuzz targets shared by the stable bounded random-input tests and the
//! coverage-guided `fuzz/` crate (cargo-fuzz): each takes arbitrary bytes
//! and panics only when the engine breaks a promise. Not an API.

mod decoders;
mod recovery;

pub use decoders::decoders;
pub use recovery::Recovery;
