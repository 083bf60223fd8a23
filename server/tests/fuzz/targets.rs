//! One bounded run per shared target of `cairn_apiserver::fuzz_targets`
//! (the functions the coverage-guided `fuzz/` crate drives too), seeded from
//! its corpus and mutated for `CAIRN_FUZZ_ROUNDS` rounds.

use cairn_apiserver::fuzz_targets::{seeds, target};

use crate::mutate::{rounds, run_rounds};

/// Runs the target `name` for `rounds` mutants of its seeds.
fn fuzz(name: &str, rounds: u64) {
    let target = target(name).unwrap_or_else(|| panic!("no fuzz target {name}"));
    run_rounds(name, &seeds(target), rounds, target.check);
}

macro_rules! targets {
    ($($test:ident: $name:literal $(/ $share:literal)?;)*) => {
        $(
            #[test]
            fn $test() {
                fuzz($name, rounds()$(.div_ceil($share))?);
            }
        )*

        /// Every target of the crate has its test here.
        #[test]
        fn every_target_runs_in_ci() {
            let covered = [$($name),*];
            for target in cairn_apiserver::fuzz_targets::TARGETS {
                assert!(covered.contains(&target.name), "{} has no test", target.name);
            }
        }
    };
}

targets! {
    json_bodies_decode_or_fail_cleanly: "json";
    yaml_bodies_decode_or_fail_cleanly: "yaml";
    cbor_bodies_decode_or_fail_cleanly: "cbor";
    protobuf_envelopes_decode_or_fail_cleanly: "protobuf";
    json_patches_apply_or_fail_cleanly: "json_patch";
    merge_patches_apply_or_fail_cleanly: "merge_patch";
    strategic_merge_patches_apply_or_fail_cleanly: "strategic_patch";
    apply_configurations_merge_or_fail_cleanly: "apply_patch";
    label_selectors_parse_or_fail_cleanly: "label_selector";
    field_selectors_parse_or_fail_cleanly: "field_selector";
    shard_selectors_parse_or_fail_cleanly: "shard_selector";
    query_strings_parse_or_fail_cleanly: "query";
    resource_versions_parse_or_fail_cleanly: "resource_version";
    // A compile parses on a fresh thread with a large stack: tens of
    // milliseconds in a debug build, so this target takes a tenth of the rounds.
    cel_expressions_compile_and_evaluate_within_budget: "cel" / 10;
    crd_schemas_and_their_rules_load_and_run_or_fail_cleanly: "crd_schema";
    authentication_configurations_load_or_fail_cleanly: "authn_config";
    authorization_configurations_load_or_fail_cleanly: "authz_config";
    audit_policies_load_or_fail_cleanly: "audit_policy";
    token_files_load_or_fail_cleanly: "token_file";
    flag_values_parse_or_fail_cleanly: "flag_values";
    webhook_kubeconfigs_load_or_fail_cleanly: "kubeconfig";
    encryption_configurations_load_or_fail_cleanly: "encryption_config";
}

/// The encryption target checks round trips only for configurations that
/// load: its corpus must hold some, or the check would never run.
#[test]
fn the_encryption_corpus_holds_configurations_that_load() {
    let seeds = cairn_apiserver::fuzz_targets::corpus("encryption_config");
    let loading = seeds
        .iter()
        .filter(|seed| cairn_transform::config::parse(seed, "k8s.io").is_ok())
        .count();
    assert!(loading >= 2, "{loading} of {} seeds load", seeds.len());
}
