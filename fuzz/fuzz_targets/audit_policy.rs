//! libFuzzer entry for the shared target `audit_policy` (see cairn_apiserver::fuzz_targets).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| cairn_fuzz_entry(data));

fn cairn_fuzz_entry(data: &[u8]) {
    let target = cairn_apiserver::fuzz_targets::target("audit_policy").expect("a shared target");
    (target.check)(data);
}
