//! The list index's state: which keys a list at a revision trusts, which
//! it must read, and when the index cannot answer at all.

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

fn attrs(app: &str) -> Option<Attributes> {
    let kind = configmaps();
    let obj = json!({"metadata": {"name": "x", "namespace": "ns", "labels": {"app": app}}});
    Some(Attributes::of_object(&kind, &obj))
}

fn entry(rev: u64, app: &str) -> Entry {
    Entry {
        rev: Revision(rev),
        attrs: attrs(app),
    }
}

fn web(a: &Attributes) -> bool {
    use crate::api::selectors::Labels;
    a.label("app") == Some("web")
}

/// The candidates of a list selecting `app=web`, found by scanning every
/// entry and by the `app` postings (built at the first call and kept
/// current by every change after), which must agree.
fn pick(
    s: &mut IndexState,
    start: &[u8],
    end: &[u8],
    at: Revision,
    enough: usize,
) -> Option<Vec<Candidate>> {
    let family = Family::Label("app".into());
    assert!(s.index_by(&family));
    let term = (family, vec!["web".into()]);
    let scanned = s.candidates(start, end, at, enough, None, web);
    let filed = s.candidates(start, end, at, enough, Some(&term), web);
    assert_eq!(scanned, filed, "postings and scan disagree");
    filed
}

fn keys(c: &[Candidate]) -> Vec<(&str, bool)> {
    c.iter()
        .map(|c| {
            (
                std::str::from_utf8(c.key()).expect("utf8"),
                matches!(c, Candidate::Selected(_)),
            )
        })
        .collect()
}

fn loaded() -> IndexState {
    let mut s = IndexState::new(configmaps(), Revision(10));
    s.load(b"/c/a", entry(3, "web"));
    s.load(b"/c/b", entry(4, "db"));
    // Postings built here are kept current by the loads below and every
    // change a test makes.
    assert!(s.index_by(&Family::Label("app".into())));
    s.load(b"/c/c", entry(5, "web"));
    s.load(b"/c/d", entry(6, "web"));
    s
}

#[test]
fn a_current_list_trusts_every_indexed_pick() {
    let mut s = loaded();
    let got = pick(&mut s, b"/c/", b"/d", Revision(10), 0).expect("answers");
    assert_eq!(keys(&got), [("/c/a", true), ("/c/c", true), ("/c/d", true)]);
    let from_b = pick(&mut s, b"/c/b", b"/d", Revision(10), 0).expect("answers");
    assert_eq!(keys(&from_b), [("/c/c", true), ("/c/d", true)]);
    let two = pick(&mut s, b"/c/", b"", Revision(10), 2).expect("answers");
    assert_eq!(
        keys(&two),
        [("/c/a", true), ("/c/c", true)],
        "stops at enough"
    );
}

#[test]
fn keys_changed_after_the_revision_are_read_not_trusted() {
    let mut s = loaded();
    s.put(b"/c/b", entry(11, "web"));
    s.delete(b"/c/c", Revision(12));
    s.put(b"/c/e", entry(13, "db"));
    s.advance(Revision(14));
    let old = pick(&mut s, b"/c/", b"/d", Revision(10), 0).expect("answers");
    assert_eq!(
        keys(&old),
        [
            ("/c/a", true),
            ("/c/b", false),
            ("/c/c", false),
            ("/c/d", true),
            ("/c/e", false)
        ]
    );
    let mid = pick(&mut s, b"/c/", b"/d", Revision(12), 0).expect("answers");
    assert_eq!(
        keys(&mid),
        [
            ("/c/a", true),
            ("/c/b", true),
            ("/c/d", true),
            ("/c/e", false)
        ]
    );
    let now = pick(&mut s, b"/c/", b"/d", Revision(14), 0).expect("answers");
    assert_eq!(keys(&now), [("/c/a", true), ("/c/b", true), ("/c/d", true)]);
}

#[test]
fn an_index_answers_only_between_its_log_and_its_progress() {
    let mut s = loaded();
    assert!(
        pick(&mut s, b"/c/", b"", Revision(11), 0).is_none(),
        "ahead"
    );
    assert!(
        pick(&mut s, b"/c/", b"", Revision(9), 0).is_none(),
        "before start"
    );
    s.advance(Revision(11));
    assert!(pick(&mut s, b"/c/", b"", Revision(11), 0).is_some());
    let db = attrs("db");
    for i in 0..=LOG_CAPACITY as u64 {
        let e = Entry {
            rev: Revision(20 + i),
            attrs: db.clone(),
        };
        s.put(b"/c/z", e);
    }
    assert!(pick(&mut s, b"/c/", b"", Revision(20), 0).is_some());
    assert!(
        pick(&mut s, b"/c/", b"", Revision(19), 0).is_none(),
        "the log no longer reaches back"
    );
    let recent = Revision(20 + LOG_CAPACITY as u64 - 5);
    let got = pick(&mut s, b"/c/", b"", recent, 0).expect("answers");
    assert_eq!(got.last().map(Candidate::key), Some(&b"/c/z"[..]));
}

#[test]
fn unreadable_entries_are_read_so_the_list_fails_like_an_unfiltered_one() {
    let mut s = loaded();
    s.load(
        b"/c/bad",
        Entry {
            rev: Revision(7),
            attrs: None,
        },
    );
    let got = pick(&mut s, b"/c/", b"", Revision(10), 0).expect("answers");
    assert!(got.contains(&Candidate::Unsure(b"/c/bad".to_vec())));
}
