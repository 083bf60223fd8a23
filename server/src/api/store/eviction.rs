//! `pods/{name}/eviction`: a delete that honours the pod's
//! PodDisruptionBudget, as Kubernetes' eviction REST does. The budget's
//! status is whatever its writers put there (cairn runs no disruption
//! controller); an allowed eviction spends one disruption and records the
//! pod in `status.disruptedPods` before the pod is deleted.

use std::sync::Arc;
use std::time::SystemTime;

use serde_json::{Map, Value, json};

use super::delete::{DeleteOptions, Deleted};
use super::read::ListOptions;
use super::write::Mutation;
use super::{Store, Subresource, WriteOptions};
use crate::api::error::{ApiError, Cause};
use crate::api::kind::KindSpec;
use crate::api::kinds::budget_rules;
use crate::api::object;
use crate::util::time::rfc3339;

const VIOLATION: &str = "Cannot evict pod as it would violate the pod's disruption budget.";

fn refused(cause: String) -> ApiError {
    ApiError::Refused {
        message: VIOLATION.into(),
        causes: vec![Cause::new("DisruptionBudget", "", cause)],
    }
}

fn int_at(obj: &Value, pointer: &str) -> i64 {
    obj.pointer(pointer).and_then(Value::as_i64).unwrap_or(0)
}

/// Pods no budget protects: already finished, never started, or going.
fn budget_ignores(pod: &Value) -> bool {
    let phase = pod.pointer("/status/phase").and_then(Value::as_str);
    matches!(phase, Some("Succeeded" | "Failed" | "Pending") | None)
        || pod
            .pointer("/metadata/deletionTimestamp")
            .is_some_and(|t| !t.is_null())
}

fn ready(pod: &Value) -> bool {
    pod.pointer("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|c| c["type"] == "Ready" && c["status"] == "True")
}

/// An unready pod the budget lets go without spending a disruption.
fn unhealthy_pod_may_go(budget: &Value, pod: &Value) -> bool {
    if ready(pod) {
        return false;
    }
    match budget
        .pointer("/spec/unhealthyPodEvictionPolicy")
        .and_then(Value::as_str)
    {
        Some("AlwaysAllow") => true,
        _ => {
            let desired = int_at(budget, "/status/desiredHealthy");
            desired > 0 && int_at(budget, "/status/currentHealthy") >= desired
        }
    }
}

/// The budget after spending one disruption on `pod`, or why it cannot.
pub fn spend(budget: &Value, pod: &str, now: SystemTime) -> Result<Value, ApiError> {
    let name = object::meta_str(budget, "name").unwrap_or_default();
    if int_at(budget, "/status/observedGeneration") < int_at(budget, "/metadata/generation") {
        return Err(refused(format!(
            "The disruption budget {name} is still being processed by the server."
        )));
    }
    let allowed = int_at(budget, "/status/disruptionsAllowed");
    if allowed < 0 {
        return Err(ApiError::Forbidden {
            group: "policy".into(),
            resource: "poddisruptionbudget".into(),
            name: name.to_owned(),
            reason: "pdb disruptions allowed is negative".into(),
            causes: Vec::new(),
        });
    }
    if allowed == 0 {
        return Err(refused(format!(
            "The disruption budget {name} needs {} healthy pods and has {} currently",
            int_at(budget, "/status/desiredHealthy"),
            int_at(budget, "/status/currentHealthy"),
        )));
    }
    let mut spent = budget.clone();
    spent["status"]["disruptionsAllowed"] = json!(allowed - 1);
    let disrupted = &mut spent["status"]["disruptedPods"];
    if !disrupted.is_object() {
        *disrupted = Value::Object(Map::new());
    }
    disrupted[pod] = json!(rfc3339(now));
    Ok(spent)
}

impl Store {
    /// POST of an Eviction for pod `name`: the pod is deleted unless its
    /// disruption budget allows no disruption now (429).
    pub async fn evict(
        &self,
        pods: &Arc<KindSpec>,
        ns: &str,
        name: &str,
        opts: &DeleteOptions,
    ) -> Result<Deleted, ApiError> {
        let pod = self.get(pods, Some(ns), name, None).await?;
        if budget_ignores(&pod) {
            return self.delete(pods, Some(ns), name, opts).await;
        }
        let Some(budgets) = self.registry.lookup("policy", "v1", "poddisruptionbudgets") else {
            return self.delete(pods, Some(ns), name, opts).await;
        };
        let labels = pod.pointer("/metadata/labels").and_then(Value::as_object);
        let page = self
            .list(&budgets, Some(ns), &ListOptions::default())
            .await?;
        let matching: Vec<&Value> = page
            .items
            .iter()
            .filter(|b| budget_rules::selects(b, labels))
            .collect();
        let budget = match matching.as_slice() {
            [] => return self.delete(pods, Some(ns), name, opts).await,
            [one] => *one,
            _ => {
                return Err(ApiError::Internal(
                    "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.".into(),
                ));
            }
        };
        if unhealthy_pod_may_go(budget, &pod) {
            return self.delete(pods, Some(ns), name, opts).await;
        }
        let budget_name = object::meta_str(budget, "name")
            .unwrap_or_default()
            .to_owned();
        let write = WriteOptions {
            dry_run: opts.dry_run,
            subresource: Some(Subresource::Status),
            ..WriteOptions::default()
        };
        self.guaranteed_update(&budgets, Some(ns), &budget_name, &write, |current| {
            Ok(Mutation {
                object: spend(current, name, SystemTime::now())?,
                precondition: None,
                warnings: Vec::new(),
                managed: None,
            })
        })
        .await?;
        self.delete(pods, Some(ns), name, opts).await
    }
}

#[cfg(test)]
mod tests {
    use std::time::UNIX_EPOCH;

    use super::*;

    fn budget(allowed: i64) -> Value {
        json!({"metadata": {"name": "web", "generation": 1},
               "status": {"observedGeneration": 1, "disruptionsAllowed": allowed,
                          "desiredHealthy": 2, "currentHealthy": 2}})
    }

    #[test]
    fn a_budget_with_room_spends_one_disruption_on_the_pod() {
        let spent = spend(&budget(1), "p", UNIX_EPOCH).expect("allowed");
        assert_eq!(spent["status"]["disruptionsAllowed"], 0);
        assert_eq!(
            spent["status"]["disruptedPods"]["p"],
            "1970-01-01T00:00:00Z"
        );
    }

    #[test]
    fn a_spent_or_unprocessed_budget_refuses_with_429() {
        let e = spend(&budget(0), "p", UNIX_EPOCH).expect_err("no room");
        assert_eq!((e.code(), e.to_string().as_str()), (429, VIOLATION));
        assert_eq!(
            e.status()["details"]["causes"][0],
            json!({"reason": "DisruptionBudget", "message": "The disruption budget web needs 2 healthy pods and has 2 currently"})
        );
        let mut stale = budget(1);
        stale["metadata"]["generation"] = json!(2);
        let e = spend(&stale, "p", UNIX_EPOCH).expect_err("stale");
        assert_eq!(
            e.status()["details"]["causes"][0]["message"],
            "The disruption budget web is still being processed by the server."
        );
    }

    #[test]
    fn pending_and_finished_pods_skip_the_budget() {
        assert!(budget_ignores(&json!({"status": {"phase": "Pending"}})));
        assert!(budget_ignores(&json!({"status": {"phase": "Succeeded"}})));
        assert!(!budget_ignores(&json!({"status": {"phase": "Running"}})));
    }
}
