//! The `Dangling` condition of every FlowSchema, as kube-apiserver's flow
//! control configuration controller keeps it: `False` (reason `Found`)
//! while the priority level it names exists, `True` (`NotFound`) while it
//! does not. kubectl shows it as the `MissingPL` column.

use std::sync::Arc;
use std::time::SystemTime;

use serde_json::{Value, json};

use crate::api::informer::{Cache, KeyValue};
use crate::api::kind::KindSpec;
use crate::api::kinds::flowcontrol_bootstrap::Bootstrap;
use crate::api::object;
use crate::api::store::{Store, Subresource};
use crate::app::AppState;
use crate::controllers::paired::Paired;
use crate::util::time;

/// What the controller keeps of a FlowSchema.
struct Schema {
    name: String,
    level: String,
    /// The `Dangling` condition's (status, message), if written.
    dangling: Option<(String, String)>,
}

fn schema(kv: &KeyValue) -> Option<Schema> {
    let obj = Store::decode_stored(kv).ok()?;
    let dangling = obj
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .and_then(|c| c.iter().find(|c| c["type"] == "Dangling"))
        .map(|c| {
            let text = |f: &str| {
                c.get(f)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            };
            (text("status"), text("message"))
        });
    Some(Schema {
        name: object::name(&obj).to_string(),
        level: obj
            .pointer("/spec/priorityLevelConfiguration/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        dangling,
    })
}

fn level(kv: &KeyValue) -> Option<String> {
    Store::decode_stored(kv)
        .ok()
        .map(|obj| object::name(&obj).to_string())
}

/// The `Dangling` condition's status, reason and message for a schema
/// naming `level`.
#[must_use]
pub fn dangling(level: &str, exists: bool) -> (&'static str, &'static str, String) {
    if exists {
        (
            "False",
            "Found",
            format!(
                "This FlowSchema references the PriorityLevelConfiguration object named {level:?} and it exists"
            ),
        )
    } else {
        (
            "True",
            "NotFound",
            format!(
                "This FlowSchema references the PriorityLevelConfiguration object named {level:?} but there is no such object"
            ),
        )
    }
}

/// Sets the `Dangling` condition of `obj` (the time only when the status
/// changes).
fn set_condition(obj: &mut Value, status: &str, reason: &str, message: &str) {
    let now = time::rfc3339(SystemTime::now());
    if !obj.get("status").is_some_and(Value::is_object) {
        obj["status"] = json!({});
    }
    let conditions = obj["status"]
        .as_object_mut()
        .expect("made an object above")
        .entry("conditions")
        .or_insert_with(|| json!([]));
    if !conditions.is_array() {
        *conditions = json!([]);
    }
    let list = conditions.as_array_mut().expect("made an array above");
    let fresh = json!({"type": "Dangling", "status": status, "lastTransitionTime": now,
                       "reason": reason, "message": message});
    match list.iter_mut().find(|c| c["type"] == "Dangling") {
        Some(c) if c["status"] == status => {
            c["reason"] = reason.into();
            c["message"] = message.into();
        }
        Some(c) => *c = fresh,
        None => list.push(fresh),
    }
}

/// Writes the conditions that are not what they should be; returns
/// whether a write failed (to try again soon).
async fn sweep(
    store: &Store,
    kind: &Arc<KindSpec>,
    schemas: &Cache<Schema>,
    levels: &Cache<String>,
) -> bool {
    let stale: Vec<(String, String, bool)> = schemas
        .values()
        .filter_map(|s| {
            let exists = levels.values().any(|l| *l == s.level);
            let (status, _, message) = dangling(&s.level, exists);
            let current = s.dangling.as_ref().map(|(st, m)| (st.as_str(), m.as_str()));
            (current != Some((status, message.as_str())))
                .then(|| (s.name.clone(), s.level.clone(), exists))
        })
        .collect();
    let mut again = false;
    for (name, level, exists) in stale {
        let (status, reason, message) = dangling(&level, exists);
        let edit = store.system_edit(kind, None, &name, Some(Subresource::Status), |obj| {
            set_condition(obj, status, reason, &message);
        });
        if let Err(e) = edit.await {
            tracing::warn!(flowschema = %name, error = %e, "cannot write the Dangling condition; retrying");
            again = true;
        }
    }
    again
}

/// Runs until the server stops.
pub async fn run(state: Arc<AppState>) {
    let store = &state.store;
    let bootstrap = Bootstrap::new(&state.config.api_domain);
    let group = bootstrap.api_version.trim_end_matches("/v1").to_string();
    let lookup = |resource: &str| store.registry.lookup(&group, "v1", resource);
    let (Some(schema_kind), Some(level_kind)) =
        (lookup("flowschemas"), lookup("prioritylevelconfigurations"))
    else {
        return;
    };
    let mut pair = Paired::new(
        store,
        (&schema_kind, schema),
        (&level_kind, level),
        state.shutdown.clone(),
        "flow-control status controller",
    );
    while pair.due().await {
        let again = sweep(store, &schema_kind, &pair.first, &pair.second).await;
        pair.swept(again);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_condition_changes_time_only_when_its_status_does() {
        let mut obj = json!({"metadata": {"name": "fs"}});
        set_condition(&mut obj, "False", "Found", "m1");
        let first = obj["status"]["conditions"][0].clone();
        assert_eq!(first["type"], "Dangling");
        assert_eq!(first["status"], "False");
        obj["status"]["conditions"][0]["lastTransitionTime"] = json!("2020-01-01T00:00:00Z");
        set_condition(&mut obj, "False", "Found", "m2");
        let kept = &obj["status"]["conditions"][0];
        assert_eq!(
            (
                kept["message"].as_str(),
                kept["lastTransitionTime"].as_str()
            ),
            (Some("m2"), Some("2020-01-01T00:00:00Z"))
        );
        set_condition(&mut obj, "True", "NotFound", "m3");
        assert_ne!(
            obj["status"]["conditions"][0]["lastTransitionTime"],
            "2020-01-01T00:00:00Z"
        );
        assert_eq!(
            obj["status"]["conditions"].as_array().map(Vec::len),
            Some(1)
        );
    }

    #[test]
    fn messages_are_kube_words() {
        assert_eq!(
            dangling("system", true).2,
            "This FlowSchema references the PriorityLevelConfiguration object named \"system\" and it exists"
        );
        assert_eq!(dangling("gone", false).0, "True");
    }
}
