//! List semantics against the real binary: every cell of the spec 6.3 list
//! table, Exact reads of old collections, 410/504, and chunked lists whose
//! pages all come from the first page's snapshot.

use std::time::{Duration, Instant};

use cairn_tests::{Response, Server, event, item_names};
use serde_json::json;

const EVENTS: &str = "/api/v1/namespaces/default/events";

fn create(s: &Server, name: &str) -> u64 {
    let r = s.post(EVENTS, &event(name, "r"));
    assert_eq!(r.status, 201, "{}", r.text());
    r.json()["metadata"]["resourceVersion"]
        .as_str()
        .expect("rv")
        .parse()
        .expect("numeric")
}

fn status(r: &Response) -> (u16, String) {
    let v = r.json();
    assert_eq!(v["kind"], "Status", "{}", r.text());
    (
        r.status,
        v["message"].as_str().unwrap_or_default().to_string(),
    )
}

#[test]
fn every_cell_of_the_list_table() {
    let s = Server::start(&[]);
    let r1 = create(&s, "a");
    let r2 = create(&s, "b");
    let latest = create(&s, "c");
    let list = |q: &str| s.get(&format!("{EVENTS}?{q}"));
    let ok = |q: &str| {
        let r = list(q);
        assert_eq!(r.status, 200, "{q}: {}", r.text());
        r.json()
    };
    // resourceVersionMatch unset.
    assert_eq!(item_names(&ok("")), ["a", "b", "c"], "unset: most recent");
    assert_eq!(
        item_names(&ok("resourceVersion=0")),
        ["a", "b", "c"],
        "0: any"
    );
    let not_older = ok(&format!("resourceVersion={r1}"));
    assert_eq!(
        item_names(&not_older),
        ["a", "b", "c"],
        "N, no limit: not older than"
    );
    assert!(
        not_older["metadata"]["resourceVersion"]
            .as_str()
            .expect("rv")
            .parse::<u64>()
            .expect("n")
            >= r1
    );
    let exact = ok(&format!("resourceVersion={r2}&limit=10"));
    assert_eq!(item_names(&exact), ["a", "b"], "N with limit: exact");
    assert_eq!(exact["metadata"]["resourceVersion"], r2.to_string());
    assert_eq!(item_names(&ok("limit=10")), ["a", "b", "c"]);
    assert_eq!(
        item_names(&ok("resourceVersion=0&limit=10")),
        ["a", "b", "c"]
    );
    // continue with unset, 0 and N.
    let first = ok(&format!("limit=1&resourceVersion={r2}"));
    let token = first["metadata"]["continue"]
        .as_str()
        .expect("continue")
        .to_string();
    assert_eq!(
        item_names(&ok(&format!("limit=10&continue={token}"))),
        ["b"],
        "continue: exact at the token's revision"
    );
    assert_eq!(
        item_names(&ok(&format!("limit=10&continue={token}&resourceVersion=0"))),
        ["b"],
        "0 with continue: treated as the token"
    );
    let (code, message) = status(&list(&format!(
        "limit=10&continue={token}&resourceVersion={r1}"
    )));
    assert_eq!(
        (code, message.as_str()),
        (
            400,
            "specifying resource version is not allowed when using continue"
        )
    );
    // Exact.
    assert_eq!(status(&list("resourceVersionMatch=Exact")).0, 400);
    assert_eq!(
        status(&list("resourceVersionMatch=Exact&resourceVersion=0")).0,
        400
    );
    assert_eq!(
        status(&list(
            "resourceVersionMatch=Exact&resourceVersion=0&limit=5"
        ))
        .0,
        400
    );
    assert_eq!(
        item_names(&ok(&format!(
            "resourceVersionMatch=Exact&resourceVersion={r1}"
        ))),
        ["a"]
    );
    assert_eq!(
        item_names(&ok(&format!(
            "resourceVersionMatch=Exact&resourceVersion={r2}&limit=5"
        ))),
        ["a", "b"]
    );
    // NotOlderThan.
    assert_eq!(status(&list("resourceVersionMatch=NotOlderThan")).0, 400);
    assert_eq!(
        status(&list("resourceVersionMatch=NotOlderThan&limit=5")).0,
        400
    );
    assert_eq!(
        item_names(&ok("resourceVersionMatch=NotOlderThan&resourceVersion=0")),
        ["a", "b", "c"]
    );
    assert_eq!(
        item_names(&ok(&format!(
            "resourceVersionMatch=NotOlderThan&resourceVersion={r1}"
        ))),
        ["a", "b", "c"]
    );
    assert_eq!(
        item_names(&ok(&format!(
            "resourceVersionMatch=NotOlderThan&resourceVersion={r1}&limit=5"
        ))),
        ["a", "b", "c"]
    );
    // Bad values.
    assert_eq!(status(&list("resourceVersion=abc")).0, 400);
    assert_eq!(
        status(&list("resourceVersionMatch=Newest&resourceVersion=1")).0,
        400
    );
    assert_eq!(status(&list("limit=-1")).0, 400);

    // A revision the store has not reached: wait briefly, then 504 with Retry-After.
    let future = latest + 1000;
    for q in [
        format!("resourceVersion={future}"),
        format!("resourceVersionMatch=Exact&resourceVersion={future}"),
    ] {
        let started = Instant::now();
        let r = list(&q);
        assert!(started.elapsed() >= Duration::from_secs(1), "it waited");
        let (code, message) = status(&r);
        assert_eq!(code, 504, "{q}");
        assert!(message.contains("Too large resource version"), "{message}");
        assert_eq!(r.header("retry-after"), Some("1"));
        assert_eq!(
            r.json()["details"]["causes"][0]["reason"],
            "ResourceVersionTooLarge"
        );
    }
    let g = s.get(&format!("{EVENTS}/a?resourceVersion={future}"));
    assert_eq!(status(&g).0, 504);
    assert_eq!(
        s.get(&format!("{EVENTS}/a?resourceVersion={r1}")).status,
        200,
        "get: not older than"
    );
}

#[test]
fn compacted_revisions_are_gone() {
    let s = Server::start(&["--compaction-interval", "1s"]);
    let r1 = create(&s, "old");
    create(&s, "newer");
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let r = s.get(&format!(
            "{EVENTS}?resourceVersionMatch=Exact&resourceVersion={r1}"
        ));
        if r.status == 410 {
            let v = r.json();
            assert_eq!(
                (v["reason"].as_str(), v["code"].as_u64()),
                (Some("Expired"), Some(410))
            );
            break;
        }
        assert!(Instant::now() < deadline, "history was never compacted");
        std::thread::sleep(Duration::from_millis(200));
    }
    // A paged list whose snapshot is compacted away: 410 with a fresh token.
    for i in 0..5 {
        create(&s, &format!("p{i}"));
    }
    let first = s.get(&format!("{EVENTS}?limit=2")).json();
    let token = first["metadata"]["continue"]
        .as_str()
        .expect("continue")
        .to_string();
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut tick = 0;
    let expired = loop {
        tick += 1;
        create(&s, &format!("tick{tick}"));
        let r = s.get(&format!("{EVENTS}?limit=2&continue={token}"));
        if r.status == 410 {
            break r.json();
        }
        assert!(Instant::now() < deadline, "continue token never expired");
        std::thread::sleep(Duration::from_millis(300));
    };
    assert!(
        expired["message"]
            .as_str()
            .is_some_and(|m| m.contains("too old to display a consistent list result"))
    );
    let fresh = expired["metadata"]["continue"]
        .as_str()
        .expect("a fresh continue token");
    let rest = s.get(&format!("{EVENTS}?limit=100&continue={fresh}"));
    assert_eq!(rest.status, 200, "{}", rest.text());
    assert!(
        item_names(&rest.json())
            .iter()
            .all(|n| n.as_str() > "newer"),
        "continues after the last key served"
    );
}

#[test]
fn chunked_lists_hold_their_snapshot_under_writes() {
    let s = Server::start(&[]);
    for i in 0..25 {
        let mut e = event(&format!("ev-{i:02}"), "r");
        e["metadata"]["labels"] = json!({"parity": if i % 2 == 0 { "even" } else { "odd" }});
        assert_eq!(s.post(EVENTS, &e).status, 201);
    }
    let first = s.get(&format!("{EVENTS}?limit=10")).json();
    let rv = first["metadata"]["resourceVersion"].clone();
    assert_eq!(first["metadata"]["remainingItemCount"], 15);
    let mut seen = item_names(&first);
    let mut token = first["metadata"]["continue"]
        .as_str()
        .expect("continue")
        .to_string();
    // Writes between pages are not visible to the paged list.
    assert_eq!(s.post(EVENTS, &event("ev-00a", "r")).status, 201);
    assert_eq!(s.delete(&format!("{EVENTS}/ev-20")).status, 200);
    assert_eq!(s.post(EVENTS, &event("ev-99", "r")).status, 201);
    loop {
        let page = s.get(&format!("{EVENTS}?limit=10&continue={token}")).json();
        assert_eq!(
            page["metadata"]["resourceVersion"], rv,
            "every page from the first page's snapshot"
        );
        seen.extend(item_names(&page));
        match page["metadata"]["continue"]
            .as_str()
            .filter(|c| !c.is_empty())
        {
            Some(t) => {
                assert!(page["metadata"]["remainingItemCount"].is_u64());
                token = t.to_string();
            }
            None => {
                assert!(
                    page["metadata"].get("remainingItemCount").is_none(),
                    "omitted on the last page"
                );
                break;
            }
        }
    }
    let want: Vec<String> = (0..25).map(|i| format!("ev-{i:02}")).collect();
    assert_eq!(seen, want);

    // Selectors filter within the snapshot; remainingItemCount is omitted.
    let even = s
        .get(&format!("{EVENTS}?limit=4&labelSelector=parity%3Deven"))
        .json();
    assert_eq!(item_names(&even).len(), 4);
    assert!(even["metadata"].get("remainingItemCount").is_none());
    let t = even["metadata"]["continue"].as_str().expect("continue");
    // A token is bound to its query.
    let other = s.get(&format!(
        "{EVENTS}?limit=4&labelSelector=parity%3Dodd&continue={t}"
    ));
    assert_eq!(status(&other).0, 400);
    let all_ns = s.get(&format!(
        "/api/v1/events?limit=4&labelSelector=parity%3Deven&continue={t}"
    ));
    assert_eq!(status(&all_ns).0, 400);
    assert_eq!(
        status(&s.get(&format!("{EVENTS}?limit=4&continue=not-a-token"))).0,
        400
    );
    let next = s.get(&format!(
        "{EVENTS}?limit=4&labelSelector=parity%3Deven&continue={t}"
    ));
    assert_eq!(next.status, 200);
    assert!(item_names(&next.json()).iter().all(|n| {
        n.trim_start_matches("ev-")
            .parse::<u32>()
            .is_ok_and(|i| i % 2 == 0)
    }));
}

#[test]
fn shard_selectors_partition_a_collection() {
    let off = Server::start(&[]);
    let r = off.get(&format!(
        "{EVENTS}?shardSelector=shardRange(object.metadata.uid,%20'0x0',%20'0x8000000000000000')"
    ));
    let (code, message) = status(&r);
    assert_eq!(code, 400);
    assert!(message.contains("ShardedListAndWatch"), "{message}");

    let s = Server::start(&["--feature-gates", "ShardedListAndWatch=true"]);
    for i in 0..40 {
        create(&s, &format!("s{i:02}"));
    }
    let lo = "shardRange(object.metadata.uid,%20'0x0',%20'0x8000000000000000')";
    let hi = "shardRange(object.metadata.uid,%20'0x8000000000000000',%20'0x10000000000000000')";
    let a = item_names(&s.get(&format!("{EVENTS}?shardSelector={lo}")).json());
    let b = item_names(&s.get(&format!("{EVENTS}?shardSelector={hi}")).json());
    assert!(
        !a.is_empty() && !b.is_empty(),
        "40 uids land in both halves"
    );
    let mut union: Vec<String> = a.iter().chain(&b).cloned().collect();
    union.sort();
    assert_eq!(
        union.len(),
        40,
        "the halves are disjoint and cover everything"
    );
    union.dedup();
    assert_eq!(union.len(), 40);
    let both = item_names(
        &s.get(&format!("{EVENTS}?shardSelector={lo}%20||%20{hi}"))
            .json(),
    );
    assert_eq!(both.len(), 40);
    assert_eq!(
        status(&s.get(&format!(
            "{EVENTS}?shardSelector=shardRange(object.metadata.name,'0x0','0x1')"
        )))
        .0,
        400
    );
    // Watches honour it too.
    let rv = s.get(EVENTS).json()["metadata"]["resourceVersion"]
        .as_str()
        .expect("rv")
        .to_string();
    let mut w = s.watch(&format!(
        "{EVENTS}?watch=true&resourceVersion={rv}&shardSelector={lo}"
    ));
    let mut created = Vec::new();
    for i in 0..20 {
        let r = s.post(EVENTS, &event(&format!("w{i:02}"), "r")).json();
        created.push((
            r["metadata"]["name"].as_str().expect("n").to_string(),
            r["metadata"]["uid"].as_str().expect("uid").to_string(),
        ));
    }
    let in_lo: Vec<&String> = created
        .iter()
        .filter(|(_, uid)| uid_in_low_half(uid))
        .map(|(n, _)| n)
        .collect();
    w.set_timeout(Duration::from_secs(3));
    let mut got = Vec::new();
    while got.len() < in_lo.len() {
        let Some(ev) = w.next_event() else { break };
        got.push(
            ev["object"]["metadata"]["name"]
                .as_str()
                .expect("name")
                .to_string(),
        );
    }
    assert_eq!(got.iter().collect::<Vec<_>>(), in_lo);
}

fn uid_in_low_half(uid: &str) -> bool {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in uid.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h < 0x8000_0000_0000_0000
}
