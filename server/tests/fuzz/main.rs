//! Bounded random-input tests ("fuzzing" on stable Rust) of the server's
//! pure decoders and parsers: each must answer a value or an error for any
//! input, never panic, overflow its stack or allocate without bound. Seeds
//! live in `tests/fuzz_corpus/<target>/`; `CAIRN_FUZZ_ROUNDS` and
//! `CAIRN_FUZZ_SEED` set the length and stream of a run (see README.md).

mod bodies;
mod cel;
mod config;
mod mutate;
mod params;
mod patches;
mod regressions;
