//! What the targets check inputs against, built once: the built-in kinds,
//! the live objects of the `patch_target` corpus, CEL variables.

use std::sync::{Arc, OnceLock};

use clap::Parser;
use serde_json::{Value, json};

use crate::api::kind::KindSpec;
use crate::api::kinds;
use crate::api::protobuf;
use crate::config::{Config, FeatureGates, Flags};

pub struct Fixtures {
    /// Every built-in kind, as a server started with no flags serves them.
    pub kinds: Vec<Arc<KindSpec>>,
    /// The kinds offered as protobuf.
    pub protobuf_kinds: Vec<Arc<KindSpec>>,
    /// Live objects patches are applied to and selectors matched against.
    pub objects: Vec<Value>,
    pub gates: FeatureGates,
    pub claims: Value,
    pub user: Value,
}

/// The fixtures, built on first use.
pub fn fixtures() -> &'static Fixtures {
    static FIXTURES: OnceLock<Fixtures> = OnceLock::new();
    FIXTURES.get_or_init(build)
}

fn build() -> Fixtures {
    let config = Config::from(Flags::parse_from(["cairn-apiserver"]));
    let kinds: Vec<Arc<KindSpec>> = kinds::builtin(&config).snapshot().iter().cloned().collect();
    let protobuf_kinds = kinds
        .iter()
        .filter(|kind| protobuf::offered(&kind.schema))
        .cloned()
        .collect();
    let objects = super::corpus("patch_target")
        .iter()
        .map(|seed| serde_json::from_slice(seed).expect("patch targets are JSON"))
        .collect();
    Fixtures {
        kinds,
        protobuf_kinds,
        objects,
        gates: FeatureGates::parse("ShardedListAndWatch=true").expect("gate"),
        claims: json!({
            "sub": "alice", "iss": "https://issuer.example", "aud": ["cairn", "other"],
            "groups": ["dev", "ops", "dev"], "email": "alice@example.com", "email_verified": true,
            "exp": 1_900_000_000_i64, "nested": {"a": {"b": [1, 2.5, "three", null]}},
            "big": 18_446_744_073_709_551_615_u64, "neg": -9_223_372_036_854_775_808_i64,
        }),
        user: json!({"username": "alice", "uid": "1", "groups": ["a"], "extra": {"k": ["v"]}}),
    }
}
