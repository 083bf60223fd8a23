//! The audit annotations kube gives each call of a mutating webhook, keyed
//! by the call's round (0, or 1 for a reinvocation) and the webhook's place
//! among the plugin's webhooks: whether it changed the object
//! (`mutation.webhook.admission.k8s.io/round_0_index_2`, level Metadata),
//! and the JSON patch it answered (`patch.webhook.admission.k8s.io/…`,
//! kept only at level Request and above).

use serde_json::{Value, json};

use super::matching::Matched;
use crate::request::notes::{annotate_audit, annotate_audit_at_request_level};

fn key(prefix: &str, round: usize, matched: &Matched) -> String {
    format!(
        "{prefix}.webhook.admission.k8s.io/round_{round}_index_{}",
        matched.position
    )
}

/// A call was made (answered or not): whether it changed the object.
pub fn mutation(round: usize, matched: &Matched, mutated: bool) {
    let value = json!({
        "configuration": matched.hook.configuration,
        "webhook": matched.hook.name,
        "mutated": mutated,
    });
    annotate_audit(key("mutation", round, matched), value.to_string());
}

/// The webhook answered with `patch` (a JSON patch).
pub fn patch(round: usize, matched: &Matched, patch: &[u8]) {
    let Ok(operations) = serde_json::from_slice::<Value>(patch) else {
        return;
    };
    let value = json!({
        "configuration": matched.hook.configuration,
        "webhook": matched.hook.name,
        "patch": operations,
        "patchType": "JSONPatch",
    });
    annotate_audit_at_request_level(key("patch", round, matched), value.to_string());
}
