//! Reading a server's audit log (JSON lines) in tests: the event of one
//! request, once its ResponseComplete stage is written.

use std::path::Path;

use serde_json::Value;

use crate::{Response, wait_until};

/// The complete events in the log: a last line still being written (no
/// newline yet) is left for the next read.
#[must_use]
pub fn read_events(log: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let complete = text.rfind('\n').map_or("", |end| &text[..end]);
    complete
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}")))
        .collect()
}

/// The ResponseComplete event of the request answered with `r` (by its
/// `Audit-Id` header), waiting for it to be written.
#[must_use]
pub fn completed_event(log: &Path, r: &Response) -> Value {
    let id = r.header("Audit-Id").expect("Audit-Id header").to_string();
    let mut found = Value::Null;
    wait_until("the request's audit event", || {
        found = read_events(log)
            .into_iter()
            .find(|e| e["auditID"] == id.as_str() && e["stage"] == "ResponseComplete")
            .unwrap_or(Value::Null);
        !found.is_null()
    });
    found
}
