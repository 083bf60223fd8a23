//! The rule of kinds whose status is set freely on create but changes only
//! through `/status` afterwards (Nodes: kubelets register with a status).

use serde_json::{Value, json};

use crate::api::kind::Strategy;

pub struct KeepStatusOnUpdate;

impl Strategy for KeepStatusOnUpdate {
    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        new["status"] = old.get("status").cloned().unwrap_or_else(|| json!({}));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_keeps_status_and_update_restores_it() {
        let mut created = json!({"status": {"phase": "Running"}});
        KeepStatusOnUpdate.prepare_for_create(&mut created);
        assert_eq!(created["status"]["phase"], "Running");
        let mut new = json!({"spec": {"unschedulable": true}, "status": {"phase": "Gone"}});
        KeepStatusOnUpdate.prepare_for_update(&mut new, &created);
        assert_eq!(
            new,
            json!({"spec": {"unschedulable": true}, "status": {"phase": "Running"}})
        );
    }
}
