//! PATCH bodies: JSON patch, merge patch, strategic merge patch under the
//! schema of every built-in kind, and apply configurations (YAML, merged
//! into the live object, with their managedFields read back).

use cairn_apiserver::api::decode::parse_yaml;
use cairn_apiserver::api::managed::{self, Managed};
use cairn_apiserver::api::patch;
use serde_json::Value;

use crate::bodies::builtin_kinds;
use crate::mutate::{corpus, run};

/// The live objects patches are applied to.
fn targets() -> Vec<Value> {
    corpus("patch_target")
        .iter()
        .map(|seed| serde_json::from_slice(seed).expect("patch targets are JSON"))
        .collect()
}

#[test]
fn json_patches_apply_or_fail_cleanly() {
    let targets = targets();
    run("json_patch", |input| {
        for target in &targets {
            let _ = patch::json(target, input);
        }
    });
}

#[test]
fn merge_patches_apply_or_fail_cleanly() {
    let targets = targets();
    run("merge_patch", |input| {
        for target in &targets {
            if let Ok((merged, _duplicates)) = patch::merge(target, input) {
                assert!(merged.is_object(), "a merge into an object stays one");
            }
        }
    });
}

#[test]
fn strategic_merge_patches_apply_or_fail_cleanly() {
    let targets = targets();
    let kinds = builtin_kinds();
    // Each round takes the next kind in turn: every kind is reached, and a
    // round costs one kind's merges rather than all of them.
    let mut turn = 0;
    run("strategic_patch", |input| {
        turn += 1;
        let kind = &kinds[turn % kinds.len()];
        for target in &targets {
            let _ = patch::strategic(&kind.schema, target, input);
        }
    });
}

#[test]
fn apply_configurations_merge_or_fail_cleanly() {
    let targets = targets();
    let kinds = builtin_kinds();
    let mut turn = 0;
    run("apply_patch", |input| {
        let Ok(config) = parse_yaml(input) else {
            return;
        };
        let fields = config.value.pointer("/metadata/managedFields");
        if let Ok(entries) = Managed::decode(fields) {
            let again = Managed::decode(Some(&entries.encode())).expect("own encoding reads");
            assert_eq!(again.entries.len(), entries.entries.len());
        }
        turn += 1;
        let kind = &kinds[turn % kinds.len()];
        for target in &targets {
            let merged = managed::merge::merge(Some(&kind.schema), target.clone(), &config.value);
            serde_json::to_vec(&merged).expect("serializable");
        }
    });
}
