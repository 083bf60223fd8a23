//! Query parameters: label, field and shard selectors, the query string as
//! a whole (list and delete options), and resourceVersion values.

use serde_json::Value;

use super::{choose, fixtures, text};
use crate::api::selectors::{FieldSelector, LabelSelector, ShardSelector};
use crate::api::store::parse_rv;
use crate::http::params::Query;

pub fn label_selector(input: &[u8]) {
    let Ok(selector) = LabelSelector::parse(&text(input)) else {
        return;
    };
    let objects = &fixtures().objects;
    // A parsed selector prints as text that parses to the same meaning,
    // but for a value set holding only the empty string (`a in (,)`), which
    // prints as `a in ()` and is refused when read back.
    let printed = selector.to_string();
    let again = match LabelSelector::parse(&printed) {
        Ok(again) => again,
        Err(_) if printed.contains("()") => return,
        Err(e) => panic!("printed selector {printed:?} does not parse: {e}"),
    };
    for obj in objects {
        assert_eq!(again.matches_object(obj), selector.matches_object(obj));
    }
}

pub fn field_selector(input: &[u8]) {
    let Ok(selector) = FieldSelector::parse(&text(input)) else {
        return;
    };
    for obj in &fixtures().objects {
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
}

pub fn shard_selector(input: &[u8]) {
    if let Ok(selector) = ShardSelector::parse(&text(input)) {
        for obj in &fixtures().objects {
            let _ = selector.matches(obj);
        }
    }
}

pub fn query(input: &[u8]) {
    let fx = fixtures();
    let query = Query::parse(Some(&text(input)));
    let kind = &fx.kinds[choose(input, fx.kinds.len())];
    let _ = query.list_options(kind, &fx.gates);
    let _ = query.delete_options();
    let _ = query.dry_run();
    let _ = parse_rv(query.get("resourceVersion"));
}

pub fn resource_version(input: &[u8]) {
    let value = text(input);
    if let Ok(Some(rv)) = parse_rv(Some(&value)) {
        assert_eq!(rv.to_string().parse::<u64>().ok(), Some(rv));
    }
}
