//! Lists with label and field selectors against the real binary: over a
//! seeded random history of ConfigMaps (two namespaces) and Events, a list
//! with a selector at an Exact revision — whole or in pages — is exactly
//! the client-side filter of the unfiltered list at that revision (same
//! objects, same order), at its snapshot revision and without
//! `remainingItemCount`; current lists and pages likewise, also when the
//! kind's list index was built before the history and while writers run
//! (`indexed`). Bad selectors are 400 BadRequest with Kubernetes' messages,
//! for lists and watches.

mod check;
mod history;
mod indexed;

use cairn_tests::Server;
use cairn_tests::selection::{Rng, rv};
use check::{check_current, check_exact, get_ok, items};
use history::{EVENTS, NAMESPACES, cms, random_selector, random_write};
use serde_json::json;

#[test]
fn selected_lists_equal_the_filtered_list_at_every_revision() {
    let s = Server::start(&[]);
    for ns in NAMESPACES {
        let body = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}});
        assert_eq!(s.post("/api/v1/namespaces", &body).status, 201);
    }
    let mut rng = Rng::new(0x115_7ed);
    let mut live = Vec::new();
    let mut revisions = Vec::new();
    for round in 0..6 {
        for _ in 0..25 {
            random_write(&s, &mut rng, &mut live);
        }
        revisions.push(rv(&get_ok(&s, EVENTS)));
        assert!(round < 1 || revisions[round] > revisions[round - 1]);
    }
    let collections = [
        (cms("ns-a"), false),
        ("/api/v1/configmaps".to_string(), false),
        (EVENTS.to_string(), true),
        ("/api/v1/events".to_string(), true),
    ];
    let mut matched = 0;
    for &at in &revisions {
        for (collection, events) in &collections {
            for _ in 0..6 {
                let sel = random_selector(&mut rng, *events);
                check_exact(&s, collection, at, &sel);
                matched += usize::from(
                    items(&get_ok(
                        &s,
                        &format!(
                            "{collection}?resourceVersion={at}&resourceVersionMatch=Exact{}",
                            sel.query()
                        ),
                    ))
                    .len()
                        > 1,
                );
            }
        }
    }
    assert!(
        matched > 40,
        "the selectors select something ({matched} lists of more than one)"
    );
    for (collection, events) in &collections {
        for _ in 0..6 {
            check_current(&s, collection, &random_selector(&mut rng, *events));
        }
    }
    // Without a selector, pages count what remains.
    let first = get_ok(&s, "/api/v1/configmaps?limit=3");
    let total = items(&get_ok(
        &s,
        &format!(
            "/api/v1/configmaps?resourceVersion={}&resourceVersionMatch=Exact",
            rv(&first)
        ),
    ))
    .len();
    assert_eq!(first["metadata"]["remainingItemCount"], json!(total - 3));
}

#[test]
fn bad_selectors_are_bad_requests() {
    let s = Server::start(&[]);
    let cases = [
        (
            "/api/v1/namespaces/default/events",
            "fieldSelector=foo%3D1",
            "field label not supported: foo",
        ),
        (
            "/api/v1/events",
            "fieldSelector=reason",
            "invalid selector: 'reason'; can't understand 'reason'",
        ),
        (
            "/api/v1/namespaces/default/pods",
            "fieldSelector=spec.priority%3D1",
            "field label not supported: spec.priority",
        ),
        (
            "/api/v1/namespaces/default/configmaps",
            "labelSelector=app%20in%20b",
            "unable to parse requirement: found 'b' expected: '('",
        ),
        (
            "/api/v1/configmaps",
            "labelSelector=%2Capp",
            "found ',', expected: !, identifier, or 'end of string'",
        ),
        (
            "/api/v1/namespaces/default/events",
            "labelSelector=app%3Da%3D",
            "found '=', expected: ',' or 'end of string'",
        ),
        // A kind without fields of its own: the metadata-only wording.
        (
            "/api/v1/namespaces/default/configmaps",
            "fieldSelector=data.x%3D1",
            "\"data.x\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"",
        ),
    ];
    for (collection, query, message) in cases {
        for path in [
            format!("{collection}?{query}"),
            format!("{collection}?watch=true&{query}"),
        ] {
            let r = s.get(&path);
            let v = r.json();
            assert_eq!(
                (
                    r.status,
                    v["kind"].as_str(),
                    v["reason"].as_str(),
                    v["message"].as_str()
                ),
                (400, Some("Status"), Some("BadRequest"), Some(message)),
                "{path}"
            );
        }
    }
}
