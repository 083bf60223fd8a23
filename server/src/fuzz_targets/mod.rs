//! Fuzz targets, one function per target taking arbitrary bytes, shared by
//! the stable bounded random-input tests (`tests/fuzz/`) and the
//! coverage-guided `fuzz/` crate (cargo-fuzz): each panics only when the
//! code under test breaks a promise (a panic of its own, a round trip that
//! does not hold). Seeds live in `tests/fuzz_corpus/<corpus>/`. Not an API.

mod bodies;
mod cel;
mod config;
mod fixtures;
mod params;
mod patches;

use std::path::PathBuf;

pub use fixtures::{Fixtures, fixtures};

/// A target: its name, the corpus directory its seeds come from, and the
/// function that checks one input.
pub struct Target {
    pub name: &'static str,
    pub corpus: &'static str,
    pub check: fn(&[u8]),
}

/// Every target of this crate (the storage engine keeps its own targets).
pub const TARGETS: &[Target] = &[
    t("json", "json", bodies::json),
    t("yaml", "yaml", bodies::yaml),
    t("cbor", "json", bodies::cbor),
    t("protobuf", "protobuf", bodies::protobuf),
    t("json_patch", "json_patch", patches::json_patch),
    t("merge_patch", "merge_patch", patches::merge_patch),
    t(
        "strategic_patch",
        "strategic_patch",
        patches::strategic_patch,
    ),
    t("apply_patch", "apply_patch", patches::apply_patch),
    t("label_selector", "label_selector", params::label_selector),
    t("field_selector", "field_selector", params::field_selector),
    t("shard_selector", "shard_selector", params::shard_selector),
    t("query", "query", params::query),
    t(
        "resource_version",
        "resource_version",
        params::resource_version,
    ),
    t("cel", "cel", cel::expression),
    t("crd_schema", "crd_schema", cel::crd_schema),
    t("authn_config", "authn_config", config::authn_config),
    t("authz_config", "authz_config", config::authz_config),
    t("audit_policy", "audit_policy", config::audit_policy),
    t("token_file", "token_file", config::token_file),
    t("flag_values", "flag_values", config::flag_values),
    t("kubeconfig", "kubeconfig", config::kubeconfig),
    t(
        "encryption_config",
        "encryption_config",
        config::encryption_config,
    ),
];

const fn t(name: &'static str, corpus: &'static str, check: fn(&[u8])) -> Target {
    Target {
        name,
        corpus,
        check,
    }
}

/// The target called `name`.
#[must_use]
pub fn target(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// Where the seeds of `corpus` live.
#[must_use]
pub fn corpus_dir(corpus: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz_corpus")
        .join(corpus)
}

/// The seed files of `corpus`, sorted by name so runs are reproducible.
#[must_use]
pub fn corpus(corpus: &str) -> Vec<Vec<u8>> {
    let dir = corpus_dir(corpus);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("corpus {}: {e}", dir.display()))
        .map(|entry| entry.expect("corpus entry").path())
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| std::fs::read(p).expect("corpus file"))
        .collect()
}

/// The seeds of a target: its corpus, or for the binary encodings the JSON
/// corpus encoded (CBOR) or the protobuf corpus encoded under each kind.
#[must_use]
pub fn seeds(target: &Target) -> Vec<Vec<u8>> {
    match target.name {
        "cbor" => bodies::cbor_seeds(),
        "protobuf" => bodies::protobuf_seeds(),
        _ => corpus(target.corpus),
    }
}

/// A choice among `n` made by the input itself, so a target that rotates
/// through kinds reads the same input the same way every time.
fn choose(input: &[u8], n: usize) -> usize {
    let hash = input.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    });
    usize::try_from(hash % n.max(1) as u64).unwrap_or(0)
}

fn text(input: &[u8]) -> String {
    String::from_utf8_lossy(input).into_owned()
}
