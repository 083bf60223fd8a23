//! The hub on a real embedded store: watchers found by their index terms
//! get exactly their transitions, late joiners catch up from recent
//! batches, and a start before the hub's history is refused (the watcher
//! then uses its own storage watch).

use std::sync::Arc;

use super::hub::{HubFeed, Hubs};
use super::selection::Selection;
use super::terms::{TermIndex, index_term};
use super::translate::EventType;
use crate::api::index::{Attributes, Family};
use crate::api::kind::KindSpec;
use crate::api::kinds;
use crate::api::selectors::{FieldSelector, LabelSelector};
use crate::config::{Config, Flags};
use crate::storage::embedded::Embedded;
use crate::storage::{KeyRange, Revision, Storage, Txn};

fn configmaps() -> Arc<KindSpec> {
    let config = Config::from(<Flags as clap::Parser>::parse_from(["cairn-apiserver"]));
    kinds::builtin(&config)
        .lookup("", "v1", "configmaps")
        .expect("kind")
}

fn object(name: &str, app: &str) -> Vec<u8> {
    format!(
        r#"{{"kind":"ConfigMap","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"d","labels":{{"app":"{app}"}}}}}}"#
    )
    .into_bytes()
}

async fn put(s: &Arc<dyn Storage>, name: &str, app: &str) -> Revision {
    let key = format!("/registry/configmaps/d/{name}").into_bytes();
    s.commit(Txn::new().put(key, object(name, app)))
        .await
        .expect("commit")
        .revision
}

fn selecting(label: &str) -> Arc<Selection> {
    Arc::new(Selection {
        range: KeyRange::prefix(b"/registry/configmaps/"),
        label: Some(LabelSelector::parse(label).expect("selector")),
        field: None,
        shard: None,
    })
}

/// Every (type, name, revision) waiting for `feed`.
fn drain(feed: &HubFeed) -> Vec<(EventType, String, u64)> {
    let mut out = Vec::new();
    while let std::task::Poll::Ready(Ok(d)) = feed.poll_next(None) {
        let super::Picks::These(picks) = &d.picks else {
            panic!("a hub picks events");
        };
        for &(i, t) in picks {
            let ev = &d.events.all()[i as usize];
            let name = String::from_utf8_lossy(&ev.key)
                .rsplit('/')
                .next()
                .unwrap_or_default()
                .to_string();
            out.push((t, name, ev.revision.get()));
        }
    }
    out
}

/// Everything sent to `feed` up to the store's current revision.
async fn settle(s: &Arc<dyn Storage>, feed: &HubFeed) -> Vec<(EventType, String, u64)> {
    let now = s.current_revision().await.expect("revision");
    let mut got = drain(feed);
    while feed.progress() < now {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        got.extend(drain(feed));
    }
    got
}

#[tokio::test]
async fn watchers_get_exactly_their_transitions_and_late_joiners_catch_up() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s: Arc<dyn Storage> = Arc::new(Embedded::open(dir.path()).expect("open"));
    let kind = configmaps();
    let start = put(&s, "before", "a").await;
    let hubs = Hubs::default();
    let hub = hubs.hub(s.as_ref(), &kind, start);
    let join = |label: &str, after: Revision| {
        let sel = selecting(label);
        let term = index_term(&sel, None, None);
        hub.join(sel, term, after).expect("joins")
    };
    let a = join("app=a", start);
    let b = join("app in (b)", start);
    let not_a = join("app!=a", start);
    let x1 = put(&s, "x", "a").await;
    let y1 = put(&s, "y", "b").await;
    let x2 = put(&s, "x", "b").await;
    use EventType::{Added, Deleted};
    let x = |t, r: Revision| (t, "x".to_string(), r.get());
    let y = |t, r: Revision| (t, "y".to_string(), r.get());
    assert_eq!(settle(&s, &a).await, [x(Added, x1), x(Deleted, x2)]);
    assert_eq!(settle(&s, &b).await, [y(Added, y1), x(Added, x2)]);
    assert_eq!(settle(&s, &not_a).await, [y(Added, y1), x(Added, x2)]);
    // A watcher joining in the past is sent what it missed.
    let late = join("app=b", x1);
    assert_eq!(drain(&late), [y(Added, y1), x(Added, x2)]);
    // One starting before the hub's history is not served by it.
    assert!(
        hub.join(selecting("app=a"), None, Revision(start.get() - 1))
            .is_none()
    );
    // The registry hands out the live hub of the kind.
    assert!(Arc::ptr_eq(&hub, &hubs.hub(s.as_ref(), &kind, start)));
}

#[test]
fn the_index_offers_only_watchers_whose_terms_match() {
    let kind = configmaps();
    let mut index = TermIndex::default();
    let term = |label: &str, field: Option<&str>, ns: Option<&str>| {
        let sel = Selection {
            range: KeyRange::prefix(b"/registry/configmaps/"),
            label: (!label.is_empty()).then(|| LabelSelector::parse(label).expect("label")),
            field: field.map(|f| FieldSelector::parse(f).expect("field")),
            shard: None,
        };
        index_term(&sel, ns, None)
    };
    let terms = [
        term("app=a", None, None),
        term("app in (b,c)", None, None),
        term("app!=a", None, None),
        term("", Some("metadata.name=x"), None),
        term("app notin (a)", None, Some("d")),
    ];
    assert_eq!(
        terms[0],
        Some((Family::Label("app".into()), vec!["a".into()]))
    );
    assert_eq!(terms[2], None, "!= is tested against every event");
    assert_eq!(terms[3], Some((Family::Name, vec!["x".into()])));
    assert_eq!(terms[4], Some((Family::Namespace, vec!["d".into()])));
    for (id, t) in terms.iter().enumerate() {
        index.insert(id, t.as_ref());
    }
    let attrs = |name: &str, ns: &str, app: &str| {
        let obj: serde_json::Value = serde_json::from_slice(
            &format!(
                r#"{{"kind":"ConfigMap","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"{ns}","labels":{{"app":"{app}"}}}}}}"#
            )
            .into_bytes(),
        )
        .expect("json");
        Attributes::of_object(&kind, &obj)
    };
    let offered = |index: &TermIndex, new: &Attributes, old: Option<&Attributes>| {
        let mut out = Vec::new();
        index.candidates(&kind, Some(new), old, &mut out);
        out.sort_unstable();
        out.dedup();
        out
    };
    assert_eq!(offered(&index, &attrs("z", "e", "c"), None), [1, 2]);
    assert_eq!(offered(&index, &attrs("x", "d", "q"), None), [2, 3, 4]);
    assert_eq!(
        offered(&index, &attrs("z", "e", "b"), Some(&attrs("z", "e", "a"))),
        [0, 1, 2]
    );
    index.remove(1, terms[1].as_ref());
    index.remove(2, terms[2].as_ref());
    assert_eq!(
        offered(&index, &attrs("z", "e", "c"), None),
        Vec::<usize>::new()
    );
}
