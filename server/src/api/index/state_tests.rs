//! The list index's state: which keys a list at a revision must read, and
//! when the index cannot answer at all.

use serde_json::json;

use super::*;
use crate::api::kind::KindSpec;
use crate::api::kinds;
use crate::config::{Config, Flags};

fn configmaps() -> Arc<KindSpec> {
    let config = Config::from(<Flags as clap::Parser>::parse_from(["cairn-apiserver"]));
    kinds::builtin(&config)
        .lookup("", "v1", "configmaps")
        .expect("kind")
}

fn attrs(app: &str) -> Attributes {
    let kind = configmaps();
    let obj = json!({"metadata": {"name": "x", "namespace": "ns", "labels": {"app": app}}});
    Attributes::of_object(&kind, &obj)
}

fn app() -> Family {
    Family::Label("app".into())
}

fn web() -> Term {
    (app(), vec!["web".into()])
}

fn pick(s: &IndexState, start: &[u8], end: &[u8], at: u64) -> Option<Vec<String>> {
    let got = s.candidates(start, end, Revision(at), &web())?;
    Some(
        got.into_iter()
            .map(|k| String::from_utf8(k).expect("utf8"))
            .collect(),
    )
}

/// Keys under `/c/` at revision 10: a, c, d are `app=web`, b is `app=db`.
fn loaded() -> IndexState {
    let mut s = IndexState::new(configmaps(), b"/c/", Revision(10));
    assert!(s.begin(&app()));
    for (key, value) in [
        ("/c/a", "web"),
        ("/c/b", "db"),
        ("/c/c", "web"),
        ("/c/d", "web"),
    ] {
        s.load(&app(), key.as_bytes(), Some(&attrs(value)));
    }
    s.finish(&app());
    s
}

#[test]
fn a_current_list_reads_only_the_keys_filed_under_its_values() {
    let s = loaded();
    assert_eq!(
        pick(&s, b"/c/", b"/d", 10).expect("answers"),
        ["/c/a", "/c/c", "/c/d"]
    );
    assert_eq!(
        pick(&s, b"/c/b", b"/d", 10).expect("answers"),
        ["/c/c", "/c/d"]
    );
    assert_eq!(
        pick(&s, b"/c/", b"/c/d", 10).expect("answers"),
        ["/c/a", "/c/c"]
    );
    assert_eq!(
        pick(&s, b"/a", b"", 10).expect("answers").len(),
        3,
        "from before the prefix"
    );
    assert_eq!(
        pick(&s, b"/d", b"", 10).expect("answers"),
        Vec::<String>::new()
    );
    let db = (app(), vec!["db".into(), "none".into()]);
    assert_eq!(
        s.candidates(b"/c/", b"", Revision(10), &db)
            .expect("answers"),
        [b"/c/b".to_vec()]
    );
}

#[test]
fn keys_changed_after_the_revision_are_read_too() {
    let mut s = loaded();
    s.put(
        b"/c/b",
        Revision(11),
        Some(&attrs("db")),
        Some(&attrs("web")),
    );
    s.delete(b"/c/c", Revision(12), Some(&attrs("web")));
    s.put(b"/c/e", Revision(13), None, Some(&attrs("db")));
    s.advance(Revision(14));
    assert_eq!(
        pick(&s, b"/c/", b"/d", 10).expect("answers"),
        ["/c/a", "/c/b", "/c/c", "/c/d", "/c/e"]
    );
    assert_eq!(
        pick(&s, b"/c/", b"/d", 12).expect("answers"),
        ["/c/a", "/c/b", "/c/d", "/c/e"]
    );
    assert_eq!(
        pick(&s, b"/c/", b"/d", 14).expect("answers"),
        ["/c/a", "/c/b", "/c/d"],
        "a current list reads what is filed now"
    );
    s.put(
        b"/c/a",
        Revision(15),
        Some(&attrs("web")),
        Some(&attrs("db")),
    );
    assert_eq!(
        pick(&s, b"/c/", b"/d", 14).expect("answers"),
        ["/c/a", "/c/b", "/c/d"],
        "changed after the list's revision"
    );
    assert_eq!(
        pick(&s, b"/c/", b"/d", 15).expect("answers"),
        ["/c/b", "/c/d"],
        "moved to another value"
    );
}

#[test]
fn an_index_answers_only_between_its_log_and_its_progress() {
    let mut s = loaded();
    assert!(pick(&s, b"/c/", b"", 11).is_none(), "ahead");
    assert!(pick(&s, b"/c/", b"", 9).is_none(), "before start");
    s.advance(Revision(11));
    assert!(pick(&s, b"/c/", b"", 11).is_some());
    let db = attrs("db");
    for i in 0..=LOG_CAPACITY as u64 {
        s.put(b"/c/z", Revision(20 + i), Some(&db), Some(&db));
    }
    assert!(pick(&s, b"/c/", b"", 20).is_some());
    assert!(
        pick(&s, b"/c/", b"", 19).is_none(),
        "the log no longer reaches back"
    );
    let recent = 20 + LOG_CAPACITY as u64 - 5;
    let got = pick(&s, b"/c/", b"", recent).expect("answers");
    assert_eq!(got.last().map(String::as_str), Some("/c/z"));
}

#[test]
fn unreadable_keys_are_read_so_the_list_fails_like_an_unfiltered_one() {
    let mut s = loaded();
    s.load(&app(), b"/c/bad", None);
    s.put(b"/c/worse", Revision(11), Some(&attrs("db")), None);
    s.advance(Revision(12));
    let got = pick(&s, b"/c/", b"", 12).expect("answers");
    assert!(got.contains(&"/c/bad".to_string()));
    assert!(got.contains(&"/c/worse".to_string()));
    s.put(b"/c/bad", Revision(13), None, Some(&attrs("db")));
    s.delete(b"/c/worse", Revision(14), None);
    s.advance(Revision(20));
    assert_eq!(
        pick(&s, b"/c/", b"", 20).expect("answers"),
        ["/c/a", "/c/c", "/c/d"]
    );
}

#[test]
fn a_family_answers_once_filed_and_files_changes_from_its_start() {
    let mut s = loaded();
    let tier = Family::Label("tier".into());
    let front = (tier.clone(), vec!["front".into()]);
    let obj = |tier: &str| {
        let obj = json!({"metadata": {"name": "x", "labels": {"app": "web", "tier": tier}}});
        Attributes::of_object(&configmaps(), &obj)
    };
    assert!(
        s.candidates(b"/c/", b"", Revision(10), &front).is_none(),
        "not indexed"
    );
    assert!(s.begin(&tier));
    assert!(!s.begin(&tier), "already begun");
    // A change while the family is filed, then the read of every object
    // (which saw the key before the change).
    s.put(
        b"/c/a",
        Revision(11),
        Some(&attrs("web")),
        Some(&obj("front")),
    );
    s.advance(Revision(11));
    assert!(
        s.candidates(b"/c/", b"", Revision(11), &front).is_none(),
        "not ready"
    );
    s.load(&tier, b"/c/a", Some(&obj("back")));
    s.load(&tier, b"/c/d", Some(&obj("front")));
    s.finish(&tier);
    let got = s
        .candidates(b"/c/", b"", Revision(11), &front)
        .expect("ready");
    assert_eq!(got, [b"/c/a".to_vec(), b"/c/d".to_vec()]);
    let other = Family::Label("other".into());
    assert!(s.begin(&other));
    s.abandon(&other);
    assert!(!s.indexes_by(&other));
    assert!(s.begin(&other), "an abandoned family may begin again");
}
