//! Seeded random mutations of valid bodies: every answer is 2xx or 4xx,
//! never 5xx, and every 2xx leaves an object that reads back.
//! `CAIRN_MUTATION_ROUNDS` (default 1,000) and `CAIRN_MUTATION_SEED` set the
//! long form.

use cairn_tests::Server;
use serde_json::{Map, Value, json};

use super::fixtures::{self, CMS, NS, WIDGETS};

/// xorshift64*: a small deterministic generator, so a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).expect("fits")
    }
}

fn random_value(rng: &mut Rng) -> Value {
    match rng.below(10) {
        0 => Value::Null,
        1 => json!(true),
        2 => json!(-1),
        3 => json!(9_223_372_036_854_775_808_u64),
        4 => json!(1.5),
        5 => json!(""),
        6 => json!("x/y:z"),
        7 => json!([]),
        8 => json!({"k": [1, {"a": null}]}),
        _ => json!("0".repeat(300)),
    }
}

/// Every path (as keys and indexes) to a node of `v`.
fn paths(v: &Value, at: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                at.push(json!(k));
                paths(child, at, out);
                at.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                at.push(json!(i));
                paths(child, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn node_mut<'a>(v: &'a mut Value, path: &[Value]) -> &'a mut Value {
    path.iter().fold(v, |node, step| match step {
        Value::String(k) => &mut node[k.as_str()],
        _ => &mut node[usize::try_from(step.as_u64().expect("index")).expect("fits")],
    })
}

/// One mutation of a valid body: a node replaced, removed, or given an
/// unknown sibling.
fn mutate(rng: &mut Rng, mut body: Value) -> Value {
    let mut all = Vec::new();
    paths(&body, &mut Vec::new(), &mut all);
    let path = all[rng.below(all.len())].clone();
    match rng.below(3) {
        0 => *node_mut(&mut body, &path) = random_value(rng),
        1 if !path.is_empty() => {
            let (last, parent) = path.split_last().expect("non-empty");
            match (node_mut(&mut body, parent), last) {
                (Value::Object(m), Value::String(k)) => {
                    m.shift_remove(k.as_str());
                }
                (Value::Array(items), i) => {
                    items.remove(usize::try_from(i.as_u64().expect("index")).expect("fits"));
                }
                _ => {}
            }
        }
        _ => {
            if let Value::Object(m) = node_mut(&mut body, &path) {
                m.insert("unexpectedField".into(), random_value(rng));
            } else {
                *node_mut(&mut body, &path) = Value::Object(Map::new());
            }
        }
    }
    body
}

#[test]
fn random_mutations_of_valid_bodies_never_fail_the_server() {
    let rounds: usize = std::env::var("CAIRN_MUTATION_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(1000);
    let seed: u64 = std::env::var("CAIRN_MUTATION_SEED")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(0x5eed_cafe);
    let s: Server = fixtures::server();
    let mut rng = Rng(seed | 1);
    let (mut accepted, mut refused) = (0, 0);
    for round in 0..rounds {
        let name = format!("m{round}");
        let (collection, valid) = match rng.below(3) {
            0 => (CMS.to_string(), fixtures::config_map(&name)),
            1 => (format!("{NS}/events"), fixtures::event(&name)),
            _ => (WIDGETS.to_string(), fixtures::widget(&name)),
        };
        let body = mutate(&mut rng, valid);
        let (method, path) = match rng.below(3) {
            0 => ("POST", collection.clone()),
            1 => ("PUT", format!("{collection}/{name}")),
            _ => ("PATCH", format!("{collection}/{name}")),
        };
        let ct = if method == "PATCH" {
            "application/merge-patch+json"
        } else {
            "application/json"
        };
        let bytes = body.to_string();
        let r = s.request(
            method,
            &path,
            &[("Content-Type", ct)],
            Some(bytes.as_bytes()),
        );
        let context = || format!("round {round} (seed {seed}): {method} {path} {bytes}");
        assert!(
            (200..300).contains(&r.status) || (400..500).contains(&r.status),
            "{}: {} {}",
            context(),
            r.status,
            r.text()
        );
        if r.status >= 300 {
            assert_eq!(r.json()["kind"], "Status", "{}: {}", context(), r.text());
            refused += 1;
            continue;
        }
        accepted += 1;
        let stored = r.json()["metadata"]["name"].as_str().map(str::to_string);
        let stored = stored.unwrap_or_else(|| panic!("{}: no name in {}", context(), r.text()));
        let back = s.get(&format!("{collection}/{stored}"));
        assert_eq!(
            back.status,
            200,
            "{}: the object does not read back",
            context()
        );
    }
    eprintln!("{rounds} mutated requests: {accepted} accepted, {refused} refused");
    assert_eq!(s.get("/readyz").status, 200);
}
