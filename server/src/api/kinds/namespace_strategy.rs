//! Namespace rules: Active on create with the `kubernetes` finalizer, DNS
//! label names, spec and status kept on plain updates, and deletion that
//! first turns the namespace Terminating (the namespace controller empties
//! it, clears `spec.finalizers`, and the namespace is then removed).

use std::time::SystemTime;

use serde_json::{Value, json};

use crate::api::error::ApiError;
use crate::api::kind::{DeleteAction, NameRule, Strategy};
use crate::api::object;
use crate::util::time;

/// Namespaces that always exist and can never be deleted.
pub const IMMORTAL: [&str; 3] = ["default", "kube-system", "kube-public"];

/// The finalizer the namespace controller owns.
pub const FINALIZER: &str = "kubernetes";

pub struct NamespaceStrategy;

/// `spec.finalizers` of a namespace.
#[must_use]
pub fn spec_finalizers(obj: &Value) -> Vec<String> {
    obj.pointer("/spec/finalizers")
        .and_then(Value::as_array)
        .map(|f| {
            f.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

impl Strategy for NamespaceStrategy {
    fn prepare_for_create(&self, obj: &mut Value) {
        let mut finalizers = spec_finalizers(obj);
        if !finalizers.iter().any(|f| f == FINALIZER) {
            finalizers.push(FINALIZER.into());
        }
        if !obj.get("spec").is_some_and(Value::is_object) {
            obj["spec"] = json!({});
        }
        obj["spec"]["finalizers"] = json!(finalizers);
        obj["status"] = json!({"phase": "Active"});
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        // spec.finalizers change only through finalization; status through /status.
        new["spec"] = old.get("spec").cloned().unwrap_or_else(|| json!({}));
        new["status"] = old.get("status").cloned().unwrap_or_else(|| json!({}));
    }

    fn name_rule(&self) -> NameRule {
        NameRule::Label
    }

    // The immortal namespaces are refused before this, by admission
    // (NamespaceLifecycle).
    fn on_delete(&self, obj: &Value) -> Result<DeleteAction, ApiError> {
        if object::is_terminating(obj) {
            return Ok(DeleteAction::Update(obj.clone()));
        }
        let mut next = obj.clone();
        object::metadata_mut(&mut next).insert(
            "deletionTimestamp".into(),
            json!(time::rfc3339(SystemTime::now())),
        );
        next["status"] = json!({"phase": "Terminating"});
        Ok(DeleteAction::Update(next))
    }

    fn ready_to_remove(&self, obj: &Value) -> bool {
        spec_finalizers(obj).is_empty()
    }
}
