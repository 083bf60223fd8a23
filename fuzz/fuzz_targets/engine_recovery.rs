//! libFuzzer entry for the engine's recovery target: one damaged copy of a
//! small data directory (or its snapshot) opened per input.
#![no_main]

use std::sync::OnceLock;

use cairn_engine::fuzz_targets::Recovery;

libfuzzer_sys::fuzz_target!(|data: &[u8]| recovery().check(data));

fn recovery() -> &'static Recovery {
    static RECOVERY: OnceLock<Recovery> = OnceLock::new();
    RECOVERY.get_or_init(|| Recovery::new().expect("template data directory"))
}
