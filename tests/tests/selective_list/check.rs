//! What a selected list must equal: the client-side filter of the
//! unfiltered list at the same revision, whole and in pages, each page of
//! the first page's snapshot and without `remainingItemCount`.

use cairn_tests::Server;
use cairn_tests::selection::{Selector, key, rv};
use serde_json::Value;

pub fn get_ok(s: &Server, path: &str) -> Value {
    let r = s.get(path);
    assert_eq!(r.status, 200, "{path}: {}", r.text());
    r.json()
}

pub fn items(list: &Value) -> Vec<Value> {
    list["items"].as_array().expect("items").clone()
}

/// (namespace/name, revision) of each item, in order.
pub fn listed(objs: &[Value]) -> Vec<(String, u64)> {
    objs.iter().map(|o| (key(o), rv(o))).collect()
}

/// Reads a list in pages of `limit` from `first` (a query with `?`); every
/// page must be of the same snapshot, with no `remainingItemCount` when
/// `selective`. Returns the items and the snapshot revision.
pub fn paged(s: &Server, first: &str, limit: usize, selective: bool) -> (Vec<Value>, u64) {
    let mut page = get_ok(s, &format!("{first}&limit={limit}"));
    let snapshot = rv(&page);
    let base = first.split('?').next().expect("path");
    let query: Vec<&str> = first
        .split_once('?')
        .map(|(_, q)| {
            q.split('&')
                .filter(|p| p.starts_with("labelSelector=") || p.starts_with("fieldSelector="))
                .collect()
        })
        .unwrap_or_default();
    let mut out = Vec::new();
    loop {
        assert_eq!(
            rv(&page),
            snapshot,
            "{first}: every page of the first page's snapshot"
        );
        let got = items(&page);
        assert!(got.len() <= limit, "{first}: at most limit items");
        out.extend(got);
        let token = page["metadata"]["continue"]
            .as_str()
            .filter(|t| !t.is_empty())
            .map(str::to_string);
        if selective || token.is_none() {
            assert!(
                page["metadata"].get("remainingItemCount").is_none(),
                "{first}: {}",
                page["metadata"]
            );
        }
        let Some(token) = token else { break };
        let mut next = format!("{base}?limit={limit}&continue={token}");
        for q in &query {
            next.push('&');
            next.push_str(q);
        }
        page = get_ok(s, &next);
    }
    (out, snapshot)
}

/// Checks the selected list of `collection` at Exact revision `at`, whole
/// and in pages, against the filter of the unfiltered list at `at`.
pub fn check_exact(s: &Server, collection: &str, at: u64, sel: &Selector) {
    let exact = format!("{collection}?resourceVersion={at}&resourceVersionMatch=Exact");
    let full = get_ok(s, &exact);
    assert_eq!(rv(&full), at, "{exact}");
    let want: Vec<Value> = items(&full)
        .into_iter()
        .filter(|o| sel.matches(o))
        .collect();
    let what = format!("{exact}{}", sel.query());
    let whole = get_ok(s, &what);
    assert_eq!(rv(&whole), at, "{what}: the list's revision");
    assert_eq!(listed(&items(&whole)), listed(&want), "{what}");
    assert_eq!(items(&whole), want, "{what}: the objects");
    assert!(
        whole["metadata"].get("remainingItemCount").is_none(),
        "{what}"
    );
    assert!(
        whole["metadata"]["continue"]
            .as_str()
            .is_none_or(str::is_empty),
        "{what}"
    );
    for limit in [1, 3] {
        let (pages, snapshot) = paged(s, &what, limit, true);
        assert_eq!(snapshot, at);
        assert_eq!(listed(&pages), listed(&want), "{what} in pages of {limit}");
    }
}

/// The current selected list, whole and in pages, against the unfiltered
/// list at the revision it reports.
pub fn check_current(s: &Server, collection: &str, sel: &Selector) {
    let what = format!("{collection}?{}", &sel.query()[1..]);
    let whole = get_ok(s, &what);
    let at = rv(&whole);
    let full = get_ok(
        s,
        &format!("{collection}?resourceVersion={at}&resourceVersionMatch=Exact"),
    );
    let want: Vec<Value> = items(&full)
        .into_iter()
        .filter(|o| sel.matches(o))
        .collect();
    assert_eq!(listed(&items(&whole)), listed(&want), "{what}");
    let (pages, snapshot) = paged(s, &what, 2, true);
    let full = get_ok(
        s,
        &format!("{collection}?resourceVersion={snapshot}&resourceVersionMatch=Exact"),
    );
    let want: Vec<Value> = items(&full)
        .into_iter()
        .filter(|o| sel.matches(o))
        .collect();
    assert_eq!(listed(&pages), listed(&want), "{what} in pages");
}
