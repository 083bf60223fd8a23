//! libFuzzer entry for the engine's raw record, sidecar, manifest and
//! header decoders.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| cairn_engine::fuzz_targets::decoders(data));
