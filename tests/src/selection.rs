//! A client-side model of selective list and watch, for black-box tests:
//! label and field selectors built as values (rendered to query strings and
//! evaluated on JSON objects as Kubernetes evaluates them), the rule that
//! turns an unfiltered watch history into what one selective watcher gets,
//! and a seeded generator so random cases replay exactly.

use std::collections::BTreeMap;

use serde_json::Value;

/// A small seeded generator (SplitMix64): the same seed gives the same case.
pub struct Rng(u64);

impl Rng {
    #[must_use]
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next_u64() % n as u64).expect("fits")
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// One requirement of a label selector.
#[derive(Clone, Debug)]
pub enum LabelTerm {
    Eq(String, String),
    DoubleEq(String, String),
    NotEq(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    NotExists(String),
    Gt(String, i64),
    Lt(String, i64),
}

impl LabelTerm {
    fn render(&self) -> String {
        match self {
            LabelTerm::Eq(k, v) => format!("{k}={v}"),
            LabelTerm::DoubleEq(k, v) => format!("{k}=={v}"),
            LabelTerm::NotEq(k, v) => format!("{k}!={v}"),
            LabelTerm::In(k, vs) => format!("{k} in ({})", vs.join(",")),
            LabelTerm::NotIn(k, vs) => format!("{k} notin ({})", vs.join(",")),
            LabelTerm::Exists(k) => k.clone(),
            LabelTerm::NotExists(k) => format!("!{k}"),
            LabelTerm::Gt(k, n) => format!("{k}>{n}"),
            LabelTerm::Lt(k, n) => format!("{k}<{n}"),
        }
    }

    /// Kubernetes' rule: `!=` and `notin` also select objects without the
    /// label; `>`/`<` need an integer value.
    fn matches(&self, labels: Option<&serde_json::Map<String, Value>>) -> bool {
        let get = |k: &str| labels.and_then(|l| l.get(k)).and_then(Value::as_str);
        match self {
            LabelTerm::Eq(k, v) | LabelTerm::DoubleEq(k, v) => get(k) == Some(v.as_str()),
            LabelTerm::NotEq(k, v) => get(k) != Some(v.as_str()),
            LabelTerm::In(k, vs) => get(k).is_some_and(|have| vs.iter().any(|v| v == have)),
            LabelTerm::NotIn(k, vs) => get(k).is_none_or(|have| vs.iter().all(|v| v != have)),
            LabelTerm::Exists(k) => get(k).is_some(),
            LabelTerm::NotExists(k) => get(k).is_none(),
            LabelTerm::Gt(k, n) => get(k)
                .and_then(|v| v.parse::<i64>().ok())
                .is_some_and(|v| v > *n),
            LabelTerm::Lt(k, n) => get(k)
                .and_then(|v| v.parse::<i64>().ok())
                .is_some_and(|v| v < *n),
        }
    }
}

/// One term of a field selector: `field=value` (`==` when `double`), or
/// `field!=value` when `negated`.
#[derive(Clone, Debug)]
pub struct FieldTerm {
    pub field: String,
    pub value: String,
    pub negated: bool,
    pub double: bool,
}

impl FieldTerm {
    #[must_use]
    pub fn eq(field: &str, value: &str) -> FieldTerm {
        FieldTerm {
            field: field.into(),
            value: value.into(),
            negated: false,
            double: false,
        }
    }

    #[must_use]
    pub fn ne(field: &str, value: &str) -> FieldTerm {
        FieldTerm {
            negated: true,
            ..FieldTerm::eq(field, value)
        }
    }

    fn render(&self) -> String {
        let op = match (self.negated, self.double) {
            (true, _) => "!=",
            (false, true) => "==",
            (false, false) => "=",
        };
        format!("{}{op}{}", self.field, self.value)
    }
}

/// A label selector and a field selector, both ANDed; empty selects all.
#[derive(Clone, Debug, Default)]
pub struct Selector {
    pub labels: Vec<LabelTerm>,
    pub fields: Vec<FieldTerm>,
}

impl Selector {
    #[must_use]
    pub fn labels(terms: Vec<LabelTerm>) -> Selector {
        Selector {
            labels: terms,
            fields: Vec::new(),
        }
    }

    #[must_use]
    pub fn fields(terms: Vec<FieldTerm>) -> Selector {
        Selector {
            labels: Vec::new(),
            fields: terms,
        }
    }

    /// The query parameters (`labelSelector=..&fieldSelector=..`, encoded),
    /// each with a leading `&`; empty for an empty selector.
    #[must_use]
    pub fn query(&self) -> String {
        let mut q = String::new();
        if !self.labels.is_empty() {
            let s: Vec<String> = self.labels.iter().map(LabelTerm::render).collect();
            q.push_str(&format!("&labelSelector={}", encode(&s.join(","))));
        }
        if !self.fields.is_empty() {
            let s: Vec<String> = self.fields.iter().map(FieldTerm::render).collect();
            q.push_str(&format!("&fieldSelector={}", encode(&s.join(","))));
        }
        q
    }

    /// Whether `obj` is selected.
    #[must_use]
    pub fn matches(&self, obj: &Value) -> bool {
        let labels = obj["metadata"]["labels"].as_object();
        self.labels.iter().all(|t| t.matches(labels))
            && self
                .fields
                .iter()
                .all(|t| (field_value(obj, &t.field) == t.value) != t.negated)
    }
}

/// A selectable field's value as the server indexes it: the string at the
/// dotted path, "" when absent; an Event's `source` is `source.component`.
#[must_use]
pub fn field_value(obj: &Value, field: &str) -> String {
    let path = if field == "source" {
        "source.component"
    } else {
        field
    };
    let mut at = obj;
    for segment in path.split('.') {
        at = &at[segment];
    }
    match at {
        Value::String(s) => s.clone(),
        Value::Bool(_) | Value::Number(_) => at.to_string(),
        _ => String::new(),
    }
}

/// Percent-encodes a query value.
#[must_use]
pub fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// `metadata.resourceVersion` as a number.
#[must_use]
pub fn rv(obj: &Value) -> u64 {
    obj["metadata"]["resourceVersion"]
        .as_str()
        .and_then(|r| r.parse().ok())
        .unwrap_or_else(|| panic!("no numeric resourceVersion in {obj}"))
}

/// `namespace/name` of an object.
#[must_use]
pub fn key(obj: &Value) -> String {
    format!(
        "{}/{}",
        obj["metadata"]["namespace"].as_str().unwrap_or_default(),
        obj["metadata"]["name"].as_str().unwrap_or_default()
    )
}

/// A watch event's (type, object).
pub type Change = (String, Value);

/// A change as (type, namespace/name, resourceVersion), for readable diffs.
#[must_use]
pub fn summary(changes: &[Change]) -> Vec<(String, String, u64)> {
    changes
        .iter()
        .map(|(t, o)| (t.clone(), key(o), rv(o)))
        .collect()
}

/// What a watcher selecting with `selects` is sent from `history` (an
/// unfiltered watch of the same collection, in order), given `state` (the
/// objects before the history, by `key`), counting only changes after
/// revision `after`. Kubernetes' rule, evaluated against each change's new
/// and previous object: both match → MODIFIED; only the new → ADDED; only
/// the previous (or a delete of a matching object) → DELETED carrying the
/// previous object at the change's revision.
#[must_use]
pub fn selected_changes(
    state: &BTreeMap<String, Value>,
    history: &[Change],
    after: u64,
    selects: impl Fn(&Value) -> bool,
) -> Vec<Change> {
    let mut state = state.clone();
    let mut out = Vec::new();
    for (ty, obj) in history {
        let k = key(obj);
        let prev = state.get(&k).cloned();
        let deleted = ty == "DELETED";
        let new_ok = !deleted && selects(obj);
        let old_ok = prev.as_ref().is_some_and(&selects);
        let sent = match (new_ok, old_ok) {
            (true, true) => Some(("MODIFIED", obj.clone())),
            (true, false) => Some(("ADDED", obj.clone())),
            (false, true) => {
                let mut gone = prev.clone().expect("a previous object");
                gone["metadata"]["resourceVersion"] = obj["metadata"]["resourceVersion"].clone();
                Some(("DELETED", gone))
            }
            (false, false) => None,
        };
        if let Some((t, o)) = sent
            && rv(obj) > after
        {
            out.push((t.to_string(), o));
        }
        if deleted {
            state.remove(&k);
        } else {
            state.insert(k, obj.clone());
        }
    }
    out
}

/// The events of a finished watch response body (one JSON document a
/// line), BOOKMARKs left out; panics on an ERROR event.
#[must_use]
pub fn watch_body_changes(body: &[u8]) -> Vec<Change> {
    body.split(|b| *b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .map(|l| serde_json::from_slice::<Value>(l).expect("a JSON watch event"))
        .filter(|e| e["type"] != "BOOKMARK")
        .map(|e| {
            assert_ne!(e["type"], "ERROR", "watch error: {e}");
            (
                e["type"].as_str().expect("type").to_string(),
                e["object"].clone(),
            )
        })
        .collect()
}
