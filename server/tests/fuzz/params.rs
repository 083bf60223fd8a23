//! Query parameters: label, field and shard selectors, the query string as
//! a whole (list and delete options), and resourceVersion values.

use cairn_apiserver::api::selectors::{FieldSelector, LabelSelector, ShardSelector};
use cairn_apiserver::api::store::parse_rv;
use cairn_apiserver::config::FeatureGates;
use cairn_apiserver::http::params::Query;
use serde_json::Value;

use crate::bodies::builtin_kinds;
use crate::mutate::{corpus, run};

fn objects() -> Vec<Value> {
    corpus("patch_target")
        .iter()
        .map(|seed| serde_json::from_slice(seed).expect("objects are JSON"))
        .collect()
}

fn text(input: &[u8]) -> String {
    String::from_utf8_lossy(input).into_owned()
}

#[test]
fn label_selectors_parse_or_fail_cleanly() {
    let objects = objects();
    run("label_selector", |input| {
        let Ok(selector) = LabelSelector::parse(&text(input)) else {
            return;
        };
        for obj in &objects {
            let _ = selector.matches_object(obj);
        }
        // A parsed selector prints as text that parses to the same meaning.
        let printed = selector.to_string();
        let again = LabelSelector::parse(&printed)
            .unwrap_or_else(|e| panic!("printed selector {printed:?} does not parse: {e}"));
        for obj in &objects {
            assert_eq!(again.matches_object(obj), selector.matches_object(obj));
        }
    });
}

#[test]
fn field_selectors_parse_or_fail_cleanly() {
    let objects = objects();
    run("field_selector", |input| {
        let Ok(selector) = FieldSelector::parse(&text(input)) else {
            return;
        };
        for obj in &objects {
            let _ = selector.matches(|path| {
                path.split('.')
                    .try_fold(obj, |v, step| v.get(step))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            });
        }
        let printed = selector.to_string();
        FieldSelector::parse(&printed)
            .unwrap_or_else(|e| panic!("printed selector {printed:?} does not parse: {e}"));
    });
}

#[test]
fn shard_selectors_parse_or_fail_cleanly() {
    let objects = objects();
    run("shard_selector", |input| {
        if let Ok(selector) = ShardSelector::parse(&text(input)) {
            for obj in &objects {
                let _ = selector.matches(obj);
            }
        }
    });
}

#[test]
fn query_strings_parse_or_fail_cleanly() {
    let kinds = builtin_kinds();
    let gates = FeatureGates::parse("ShardedListAndWatch=true").expect("gate");
    let mut turn = 0;
    run("query", |input| {
        let query = Query::parse(Some(&text(input)));
        turn += 1;
        let kind = &kinds[turn % kinds.len()];
        let _ = query.list_options(kind, &gates);
        let _ = query.delete_options();
        let _ = query.dry_run();
        let _ = parse_rv(query.get("resourceVersion"));
    });
}

#[test]
fn resource_versions_parse_or_fail_cleanly() {
    run("resource_version", |input| {
        let value = text(input);
        if let Ok(Some(rv)) = parse_rv(Some(&value)) {
            assert_eq!(rv.to_string().parse::<u64>().ok(), Some(rv));
        }
    });
}
