//! Linearizability of single-object reads and writes against the real binary:
//! sixteen clients record every call (monotonic invocation and response
//! instants, the answer) on a few Event keys, then the history is checked
//! against the register model, key by key. Besides a random mix, targeted
//! rounds line the clients up in pairs to hit two races at once: a
//! conditional update or delete against an unconditional delete, and two
//! unconditional PUTs on a missing Event (a kind that creates on update).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use cairn_tests::linearizability::register::{Answer, Op, Register, Request};
use cairn_tests::linearizability::{Call, check_by_key};
use cairn_tests::{Response, Server, client, event};
use serde_json::{Value, json};

const EVENTS: &str = "/api/v1/namespaces/default/events";
const CLIENTS: usize = 16;
const MIXED_KEYS: u64 = 4;
const MIXED_CALLS_PER_CLIENT: usize = 100;
const ROUNDS: usize = 30;
/// When clients stop starting new calls or rounds, however far they got (a
/// slow machine checks a shorter history rather than running long).
const BUDGET: Duration = Duration::from_secs(30);

/// One client thread: issues requests and records each call.
struct Client {
    id: usize,
    port: u16,
    start: Instant,
    written: u64,
    rng: u64,
    /// The last resourceVersion this client saw per key, for preconditions.
    seen: HashMap<String, u64>,
    calls: Vec<Call<Op>>,
}

impl Client {
    fn nanos(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_nanos()).expect("nanoseconds fit")
    }

    /// A content no other write has.
    fn content(&mut self) -> String {
        self.written += 1;
        format!("c{}-{}", self.id, self.written)
    }

    /// xorshift: reproducible per client, no dependency.
    fn roll(&mut self, n: u64) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng % n
    }

    fn call(&mut self, key: &str, request: Request) -> Answer {
        let (method, path, content_type, body) = http_request(key, &request);
        let headers: &[(&str, &str)] = match content_type {
            Some(ct) => &[("Content-Type", ct)],
            None => &[],
        };
        let invoked = self.nanos();
        let response = client::request(self.port, method, &path, headers, body.as_deref());
        let returned = self.nanos();
        let answer = answer_of(&request, response);
        if let Answer::Created(rv) | Answer::Written(rv) | Answer::Read { rv, .. } = answer {
            self.seen.insert(key.to_string(), rv);
        }
        self.calls.push(Call {
            client: self.id,
            invoked,
            returned,
            op: Op {
                key: key.to_string(),
                request,
                answer: answer.clone(),
            },
        });
        answer
    }
}

/// A request on `key`: method, path, content type and body.
fn http_request(key: &str, request: &Request) -> Http {
    let at = format!("{EVENTS}/{key}");
    let json = |v: Value| Some(serde_json::to_vec(&v).expect("json"));
    let full = |content: &str, rv: Option<u64>| {
        let mut body = event(key, "Raced");
        body["message"] = json!(content);
        if let Some(rv) = rv {
            body["metadata"]["resourceVersion"] = json!(rv.to_string());
        }
        body
    };
    match request {
        Request::Create { content } => (
            "POST",
            EVENTS.to_string(),
            Some("application/json"),
            json(full(content, None)),
        ),
        Request::Get => ("GET", at, None, None),
        Request::Update {
            content,
            precondition,
            create_if_missing: true,
        } => (
            "PUT",
            at,
            Some("application/json"),
            json(full(content, *precondition)),
        ),
        Request::Update {
            content,
            precondition,
            create_if_missing: false,
        } => {
            let mut patch = json!({"message": content});
            if let Some(rv) = precondition {
                patch["metadata"] = json!({"resourceVersion": rv.to_string()});
            }
            (
                "PATCH",
                at,
                Some("application/merge-patch+json"),
                json(patch),
            )
        }
        Request::Delete { precondition: None } => ("DELETE", at, None, None),
        Request::Delete {
            precondition: Some(rv),
        } => (
            "DELETE",
            at,
            Some("application/json"),
            json(json!({"preconditions": {"resourceVersion": rv.to_string()}})),
        ),
    }
}

type Http = (&'static str, String, Option<&'static str>, Option<Vec<u8>>);

fn answer_of(request: &Request, response: std::io::Result<Response>) -> Answer {
    let r = match response {
        Ok(r) => r,
        Err(e) => return Answer::Other(format!("transport error: {e}")),
    };
    let body: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
    let rv = body["metadata"]["resourceVersion"]
        .as_str()
        .and_then(|rv| rv.parse().ok());
    match (r.status, request, rv) {
        (201, _, Some(rv)) => Answer::Created(rv),
        (200, Request::Get, Some(rv)) => Answer::Read {
            rv,
            content: body["message"].as_str().unwrap_or_default().to_string(),
        },
        (200, Request::Update { .. }, Some(rv)) => Answer::Written(rv),
        (200, Request::Delete { .. }, _) => Answer::Deleted,
        (404, _, _) => Answer::NotFound,
        (409, _, _) if body["reason"] == "AlreadyExists" => Answer::AlreadyExists,
        (409, _, _) if body["reason"] == "Conflict" => Answer::Conflict,
        _ => Answer::Other(format!("{} {}", r.status, r.text())),
    }
}

/// Lines the clients up: each round starts together, and every client
/// learns at the same barrier whether the budget allows one more.
struct Rounds {
    barrier: Barrier,
    stop: AtomicBool,
    deadline: Instant,
}

impl Rounds {
    fn another(&self) -> bool {
        if self.barrier.wait().is_leader() {
            self.stop
                .store(Instant::now() >= self.deadline, Ordering::SeqCst);
        }
        self.barrier.wait();
        !self.stop.load(Ordering::SeqCst)
    }

    fn go(&self) {
        self.barrier.wait();
    }
}

/// Random calls on a few shared keys; preconditions use the client's last
/// seen resourceVersion, so some are current and some stale.
fn mixed(c: &mut Client, deadline: Instant) {
    for _ in 0..MIXED_CALLS_PER_CLIENT {
        if Instant::now() >= deadline {
            return;
        }
        let key = format!("mixed-{}", c.roll(MIXED_KEYS));
        let seen = c.seen.get(&key).copied().or(Some(1));
        let content = c.content();
        let request = match c.roll(20) {
            0..=2 => Request::Create { content },
            3..=7 => Request::Get,
            8..=13 => Request::Update {
                content,
                precondition: if c.roll(2) == 0 { seen } else { None },
                create_if_missing: c.roll(2) == 0,
            },
            _ => Request::Delete {
                precondition: if c.roll(2) == 0 { seen } else { None },
            },
        };
        c.call(&key, request);
    }
}

/// Pairs on fresh keys: one client creates the object, then both start
/// together, its conditional update or delete against the other's
/// unconditional delete.
fn conditional_against_delete(c: &mut Client, rounds: &Rounds) {
    let mut round = 0;
    while round < ROUNDS && rounds.another() {
        let key = format!("conditional-{round}-{}", c.id / 2);
        let created = match c.id % 2 {
            0 => {
                let content = c.content();
                match c.call(&key, Request::Create { content }) {
                    Answer::Created(rv) => Some(rv),
                    _ => None,
                }
            }
            _ => None,
        };
        let request = match (c.id % 2, (round + c.id / 2) % 3) {
            (1, _) => Request::Delete { precondition: None },
            (_, 0) => Request::Delete {
                precondition: created,
            },
            (_, conditional) => Request::Update {
                content: c.content(),
                precondition: created,
                create_if_missing: conditional == 1,
            },
        };
        rounds.go();
        c.call(&key, request);
        round += 1;
    }
}

/// Pairs on fresh (missing) keys: both PUT at once, with no precondition.
fn puts_on_missing(c: &mut Client, rounds: &Rounds) {
    let mut round = 0;
    while round < ROUNDS && rounds.another() {
        let key = format!("upsert-{round}-{}", c.id / 2);
        let request = Request::Update {
            content: c.content(),
            precondition: None,
            create_if_missing: true,
        };
        rounds.go();
        c.call(&key, request);
        round += 1;
    }
}

/// Each phase's keys start with its name.
fn phase(key: &str) -> &str {
    key.split('-').next().unwrap_or(key)
}

/// How often each shape of call (`upsert rv → 201`) occurs.
fn tally(calls: &[Call<Op>]) -> String {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for c in calls {
        *counts.entry(c.op.shape()).or_default() += 1;
    }
    let parts: Vec<String> = counts.iter().map(|(k, n)| format!("{k}: {n}")).collect();
    parts.join(", ")
}

#[test]
fn single_object_calls_are_linearizable() {
    let s = Server::start(&[]);
    let start = Instant::now();
    let deadline = start + BUDGET;
    let rounds = Arc::new(Rounds {
        barrier: Barrier::new(CLIENTS),
        stop: AtomicBool::new(false),
        deadline,
    });
    let threads: Vec<_> = (0..CLIENTS)
        .map(|id| {
            let rounds = Arc::clone(&rounds);
            let mut c = Client {
                id,
                port: s.port,
                start,
                written: 0,
                rng: 0x9e37_79b9_7f4a_7c15 ^ (id as u64 + 1),
                seen: HashMap::new(),
                calls: Vec::new(),
            };
            std::thread::spawn(move || {
                mixed(&mut c, deadline);
                conditional_against_delete(&mut c, &rounds);
                puts_on_missing(&mut c, &rounds);
                c.calls
            })
        })
        .collect();
    let calls: Vec<Call<Op>> = threads
        .into_iter()
        .flat_map(|t| t.join().expect("client thread"))
        .collect();

    let mut phases: BTreeMap<String, Vec<Call<Op>>> = BTreeMap::new();
    for c in calls {
        phases
            .entry(phase(&c.op.key).to_string())
            .or_default()
            .push(c);
    }
    let mut failed = Vec::new();
    for (name, calls) in phases {
        let summary = tally(&calls);
        let total = calls.len();
        let keys = calls
            .iter()
            .map(|c| c.op.key.as_str())
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        let violations = check_by_key(&Register, calls, |op| op.key.clone());
        eprintln!(
            "{name}: {total} calls on {keys} keys, {} keys not linearizable\n  {summary}",
            violations.len()
        );
        if let Some(v) = violations.first() {
            eprintln!("{}", v.describe(8));
            failed.push(format!("{name}: {} of {keys} keys", violations.len()));
        }
    }
    assert!(failed.is_empty(), "not linearizable: {}", failed.join("; "));
}

/// Two server-side applies of one configuration racing on a missing object:
/// one creates it, the other merges into it (as Kubernetes retries the
/// loser), so the answers are one 201 and one 200, never AlreadyExists.
#[test]
fn applies_racing_on_a_missing_object_create_once_and_merge() {
    const PAIRS: usize = 8;
    let s = Server::start(&[]);
    let barrier = Arc::new(Barrier::new(2 * PAIRS));
    let threads: Vec<_> = (0..2 * PAIRS)
        .map(|id| {
            let barrier = Arc::clone(&barrier);
            let port = s.port;
            std::thread::spawn(move || {
                let mut answers = Vec::new();
                for round in 0..ROUNDS {
                    let name = format!("applied-{round}-{}", id / 2);
                    let body = format!(
                        "{{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{{\"name\":\"{name}\"}},\"data\":{{\"k\":\"v\"}}}}"
                    );
                    let path = format!(
                        "/api/v1/namespaces/default/configmaps/{name}?fieldManager=racer"
                    );
                    barrier.wait();
                    let r = client::request(
                        port,
                        "PATCH",
                        &path,
                        &[("Content-Type", "application/apply-patch+yaml")],
                        Some(body.as_bytes()),
                    )
                    .expect("apply answered");
                    answers.push((name, r.status, r.text()));
                }
                answers
            })
        })
        .collect();
    let mut by_object: BTreeMap<String, Vec<u16>> = BTreeMap::new();
    for t in threads {
        for (name, status, text) in t.join().expect("client thread") {
            assert!(matches!(status, 200 | 201), "{name}: {status} {text}");
            by_object.entry(name).or_default().push(status);
        }
    }
    for (name, mut statuses) in by_object {
        statuses.sort_unstable();
        assert_eq!(statuses, [200, 201], "{name}");
    }
}
