//! Bounded random-input tests ("fuzzing" on stable Rust) of the server's
//! pure decoders and parsers: each must answer a value or an error for any
//! input, never panic, overflow its stack or allocate without bound. The
//! targets are `cairn_apiserver::fuzz_targets` (shared with the
//! coverage-guided `fuzz/` crate); seeds live in `tests/fuzz_corpus/<corpus>/`;
//! `CAIRN_FUZZ_ROUNDS` and `CAIRN_FUZZ_SEED` set the length and stream of a
//! run (see README.md).

mod mutate;
mod regressions;
mod targets;
