//! PATCH bodies: JSON patch, merge patch, strategic merge patch under the
//! schema of a built-in kind, and apply configurations (YAML, merged into
//! the live object, with their managedFields read back).

use super::{choose, fixtures};
use crate::api::decode::parse_yaml;
use crate::api::managed::{self, Managed};
use crate::api::patch;

pub fn json_patch(input: &[u8]) {
    for target in &fixtures().objects {
        let _ = patch::json(target, input);
    }
}

pub fn merge_patch(input: &[u8]) {
    for target in &fixtures().objects {
        if let Ok((merged, _duplicates)) = patch::merge(target, input) {
            assert!(merged.is_object(), "a merge into an object stays one");
        }
    }
}

/// Under one kind's schema, chosen by the input: every kind is reached,
/// and an input costs one kind's merges rather than all of them.
pub fn strategic_patch(input: &[u8]) {
    let fx = fixtures();
    let kind = &fx.kinds[choose(input, fx.kinds.len())];
    for target in &fx.objects {
        let _ = patch::strategic(&kind.schema, target, input);
    }
}

pub fn apply_patch(input: &[u8]) {
    let Ok(config) = parse_yaml(input) else {
        return;
    };
    let fields = config.value.pointer("/metadata/managedFields");
    if let Ok(entries) = Managed::decode(fields) {
        let again = Managed::decode(Some(&entries.encode())).expect("own encoding reads");
        assert_eq!(again.entries.len(), entries.entries.len());
    }
    let fx = fixtures();
    let kind = &fx.kinds[choose(input, fx.kinds.len())];
    for target in &fx.objects {
        let merged = managed::merge::merge(Some(&kind.schema), target.clone(), &config.value);
        serde_json::to_vec(&merged).expect("serializable");
    }
}
