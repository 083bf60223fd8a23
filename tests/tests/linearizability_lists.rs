//! Lists and watches against the history of concurrent writers on the real
//! binary: twelve writers create, update (PUT with and without a
//! resourceVersion precondition, merge PATCH) and delete a few ConfigMaps,
//! two listers list them (now, or exactly at a revision listed before), and
//! two watchers follow them (one from the start, one from a list's
//! revision taken mid-way) until a marker written last. The revision checker
//! then holds every list and watch stream to the change log.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use cairn_tests::linearizability::revisions::{Change, Effect, History, List, Watch, Write, check};
use cairn_tests::{Server, WatchStream, client};
use serde_json::{Value, json};

const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";
const SELECTOR: &str = "labelSelector=campaign%3Dlin";
const WRITERS: usize = 12;
const LISTERS: usize = 2;
const KEYS: u64 = 4;
/// Writes per writer (`CAIRN_LIN_WRITES` for a long form); listers list
/// until the writers are done.
const WRITES_PER_WRITER: u64 = 120;
/// When writers stop starting new calls, however far they got
/// (`CAIRN_LIN_BUDGET_SECS` for a long form).
const BUDGET_SECS: u64 = 30;

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn nanos(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_nanos()).expect("nanoseconds fit")
}

fn rv_of(v: &Value) -> Option<u64> {
    v["metadata"]["resourceVersion"].as_str()?.parse().ok()
}

fn configmap(key: &str, content: &str, rv: Option<u64>) -> Value {
    let mut body = json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": key, "labels": {"campaign": "lin"}},
        "data": {"v": content},
    });
    if let Some(rv) = rv {
        body["metadata"]["resourceVersion"] = json!(rv.to_string());
    }
    body
}

/// xorshift, reproducible per client.
fn roll(rng: &mut u64, n: u64) -> u64 {
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    *rng % n
}

/// One writer's calls: random writes on the shared keys.
fn writer(id: usize, port: u16, start: Instant) -> Vec<Write> {
    let calls = env_number("CAIRN_LIN_WRITES", WRITES_PER_WRITER);
    let budget = Duration::from_secs(env_number("CAIRN_LIN_BUDGET_SECS", BUDGET_SECS));
    let mut rng = 0x9e37_79b9_7f4a_7c15 ^ (id as u64 + 1);
    let mut seen: BTreeMap<String, u64> = BTreeMap::new();
    let mut writes = Vec::new();
    for n in 0..calls {
        if start.elapsed() >= budget {
            break;
        }
        let key = format!("lin-{}", roll(&mut rng, KEYS));
        let content = format!("w{id}-{n}");
        let at = format!("{CONFIGMAPS}/{key}");
        let precondition = seen.get(&key).copied().filter(|_| roll(&mut rng, 2) == 0);
        let (method, path, ct, body, deletes) = match roll(&mut rng, 10) {
            0..=2 => (
                "POST",
                CONFIGMAPS.to_string(),
                "application/json",
                Some(configmap(&key, &content, None)),
                false,
            ),
            3..=5 => (
                "PUT",
                at,
                "application/json",
                Some(configmap(&key, &content, precondition)),
                false,
            ),
            6..=7 => {
                let mut patch = json!({"data": {"v": content}});
                if let Some(rv) = precondition {
                    patch["metadata"] = json!({"resourceVersion": rv.to_string()});
                }
                (
                    "PATCH",
                    at,
                    "application/merge-patch+json",
                    Some(patch),
                    false,
                )
            }
            _ => ("DELETE", at, "application/json", None, true),
        };
        let bytes = body.map(|b| serde_json::to_vec(&b).expect("json"));
        let invoked = nanos(start);
        let answer = client::request(
            port,
            method,
            &path,
            &[("Content-Type", ct)],
            bytes.as_deref(),
        );
        let returned = nanos(start);
        let effect = match answer {
            Ok(r) if matches!(r.status, 200 | 201) && deletes => Effect::Delete,
            Ok(r) if matches!(r.status, 200 | 201) => {
                let body: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
                let rv = rv_of(&body).expect("a write's answer has a resourceVersion");
                seen.insert(key.clone(), rv);
                Effect::Put { rv, content }
            }
            Ok(r) if matches!(r.status, 404 | 409) => Effect::Refused,
            _ => Effect::Unknown {
                content: (!deletes).then_some(content),
            },
        };
        writes.push(Write {
            invoked,
            returned,
            key,
            effect,
        });
    }
    writes
}

/// One lister's calls: a list now, or exactly at a revision listed before.
fn lister(id: usize, port: u16, start: Instant, stop: &AtomicBool) -> Vec<List> {
    let mut rng = 0x2545_f491_4f6c_dd1d ^ (id as u64 + 1);
    let mut lists: Vec<List> = Vec::new();
    while !stop.load(Ordering::SeqCst) {
        let exact = match lists.len() {
            0 => None,
            n if roll(&mut rng, 3) == 0 => Some(lists[roll(&mut rng, n as u64) as usize].rv),
            _ => None,
        };
        let path = match exact {
            Some(rv) => {
                format!("{CONFIGMAPS}?{SELECTOR}&resourceVersion={rv}&resourceVersionMatch=Exact")
            }
            None => format!("{CONFIGMAPS}?{SELECTOR}"),
        };
        let invoked = nanos(start);
        let r = client::request(port, "GET", &path, &[], None).expect("list answered");
        let returned = nanos(start);
        assert_eq!(r.status, 200, "{path}: {}", r.text());
        let body: Value = serde_json::from_slice(&r.body).expect("json");
        let items = body["items"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|i| {
                let name = i["metadata"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                let content = i["data"]["v"].as_str().unwrap_or_default().to_string();
                (name, (rv_of(i).unwrap_or(0), content))
            })
            .collect();
        let rv = rv_of(&body).expect("list resourceVersion");
        lists.push(List {
            invoked,
            returned,
            exact,
            rv,
            items,
        });
    }
    lists
}

/// Follows the campaign's ConfigMaps from `from` until the marker arrives.
fn follow(name: &str, port: u16, from: u64) -> Watch {
    let path = format!("{CONFIGMAPS}?{SELECTOR}&watch=1&resourceVersion={from}");
    let mut stream = WatchStream::open(port, &path).expect("watch");
    assert_eq!(stream.status, 200, "{path}");
    stream.set_timeout(Duration::from_secs(120));
    let mut events = Vec::new();
    while let Some(e) = stream.next_event() {
        let object = &e["object"];
        assert_ne!(e["type"], "ERROR", "watch {name}: {e}");
        let key = object["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let rv = rv_of(object).expect("event resourceVersion");
        let value = (e["type"] != "DELETED")
            .then(|| object["data"]["v"].as_str().unwrap_or_default().to_string());
        let marker = key == "lin-marker";
        events.push(Change { rv, key, value });
        if marker {
            return Watch {
                name: name.into(),
                from,
                through: rv,
                events,
            };
        }
    }
    panic!(
        "watch {name} ended before the marker: {} events",
        events.len()
    );
}

fn list_revision(port: u16) -> u64 {
    let r =
        client::request(port, "GET", &format!("{CONFIGMAPS}?{SELECTOR}"), &[], None).expect("list");
    rv_of(&serde_json::from_slice(&r.body).expect("json")).expect("list resourceVersion")
}

#[test]
fn lists_and_watches_agree_with_the_history_by_revision() {
    let s = Server::start(&[]);
    let port = s.port;
    let start = Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let from_start = list_revision(port);
    let mut watchers = vec![std::thread::spawn(move || {
        follow("from-start", port, from_start)
    })];
    let writers: Vec<_> = (0..WRITERS)
        .map(|id| std::thread::spawn(move || writer(id, port, start)))
        .collect();
    let listers: Vec<_> = (0..LISTERS)
        .map(|id| {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || lister(id, port, start, &stop))
        })
        .collect();
    // A second watch from a revision listed while the writers run.
    std::thread::sleep(Duration::from_millis(200));
    let mid_way = list_revision(port);
    watchers.push(std::thread::spawn(move || follow("mid-way", port, mid_way)));

    let mut history = History::default();
    for w in writers {
        history.writes.extend(w.join().expect("writer"));
    }
    stop.store(true, Ordering::SeqCst);
    for l in listers {
        history.lists.extend(l.join().expect("lister"));
    }
    let invoked = nanos(start);
    let r = s.post(CONFIGMAPS, &configmap("lin-marker", "marker", None));
    assert_eq!(r.status, 201, "{}", r.text());
    history.writes.push(Write {
        invoked,
        returned: nanos(start),
        key: "lin-marker".into(),
        effect: Effect::Put {
            rv: rv_of(&r.json()).expect("rv"),
            content: "marker".into(),
        },
    });
    for w in watchers {
        history.watches.push(w.join().expect("watcher"));
    }

    let mut shapes: BTreeMap<&str, usize> = BTreeMap::new();
    for w in &history.writes {
        let shape = match w.effect {
            Effect::Put { .. } => "put",
            Effect::Delete => "delete",
            Effect::Refused => "refused",
            Effect::Unknown { .. } => "unknown",
        };
        *shapes.entry(shape).or_default() += 1;
    }
    let exact = history.lists.iter().filter(|l| l.exact.is_some()).count();
    let events: Vec<usize> = history.watches.iter().map(|w| w.events.len()).collect();
    let anomalies = check(&history);
    eprintln!(
        "writes {shapes:?}; {} lists ({exact} exact); watch events {events:?}; {} anomalies",
        history.lists.len(),
        anomalies.len()
    );
    for a in anomalies.iter().take(10) {
        eprintln!("ANOMALY {a}");
    }
    assert!(anomalies.is_empty(), "{} anomalies", anomalies.len());
    assert!(
        shapes.get("put").copied().unwrap_or(0) > WRITERS,
        "writes happened: {shapes:?}"
    );
}
