//! Which objects a ResourceQuota covers: those whose evaluator counts a
//! resource of its `hard`, and — for pods, the only kind scopes apply to —
//! that pass every scope of `spec.scopes` and `spec.scopeSelector`
//! (Terminating, NotTerminating, BestEffort, NotBestEffort, PriorityClass,
//! CrossNamespacePodAffinity), as kube's evaluators decide.

use serde_json::Value;

use super::usage::Evaluator;
use super::{Resources, from_json};
use crate::api::kinds::checks::{items_at, str_at};
use crate::api::kinds::pod_qos::qos_class;

/// The limits a quota enforces: `status.hard` once its controller has
/// published it, else `spec.hard`.
#[must_use]
pub fn hard(quota: &Value) -> Resources {
    match quota.pointer("/status/hard") {
        Some(hard) if hard.as_object().is_some_and(|h| !h.is_empty()) => from_json(Some(hard)),
        _ => from_json(quota.pointer("/spec/hard")),
    }
}

/// Whether `quota` covers `obj`, counted by `evaluator`.
#[must_use]
pub fn covers(quota: &Value, hard: &Resources, evaluator: &Evaluator, obj: &Value) -> bool {
    hard.keys().any(|name| evaluator.tracks(name))
        && selectors(quota).all(|s| selected(evaluator, &s, obj))
}

/// One scope requirement (`{scopeName, operator, values}`).
pub struct Selector<'a> {
    scope: &'a str,
    operator: &'a str,
    values: Vec<&'a str>,
}

impl<'a> Selector<'a> {
    /// A `ScopedResourceSelectorRequirement`.
    #[must_use]
    pub fn from_json(requirement: &'a Value) -> Selector<'a> {
        Selector {
            scope: str_at(requirement, "/scopeName"),
            operator: str_at(requirement, "/operator"),
            values: items_at(requirement, "/values")
                .iter()
                .filter_map(Value::as_str)
                .collect(),
        }
    }

    #[must_use]
    pub fn scope(&self) -> &'a str {
        self.scope
    }

    /// Whether `obj`, counted by `evaluator`, is in this scope.
    #[must_use]
    pub fn selects(&self, evaluator: &Evaluator, obj: &Value) -> bool {
        selected(evaluator, self, obj)
    }

    /// As kube prints a requirement in its messages.
    #[must_use]
    pub fn describe(&self) -> String {
        format!(
            "{{{} {} [{}]}}",
            self.scope,
            self.operator,
            self.values.join(" ")
        )
    }
}

/// A quota's scope requirements: `spec.scopes` (each an `Exists`) and
/// `spec.scopeSelector.matchExpressions`.
pub fn selectors(quota: &Value) -> impl Iterator<Item = Selector<'_>> {
    let listed = items_at(quota, "/spec/scopes").iter().map(|s| Selector {
        scope: s.as_str().unwrap_or_default(),
        operator: "Exists",
        values: Vec::new(),
    });
    let selected = items_at(quota, "/spec/scopeSelector/matchExpressions")
        .iter()
        .map(Selector::from_json);
    listed.chain(selected)
}

fn selected(evaluator: &Evaluator, selector: &Selector<'_>, obj: &Value) -> bool {
    if *evaluator != Evaluator::Pods {
        return false;
    }
    match selector.scope {
        "Terminating" => terminating(obj),
        "NotTerminating" => !terminating(obj),
        "BestEffort" => qos_class(obj) == "BestEffort",
        "NotBestEffort" => qos_class(obj) != "BestEffort",
        "PriorityClass" => {
            let class = str_at(obj, "/spec/priorityClassName");
            // kube matches a label set that always has the key (empty
            // for no class): DoesNotExist never matches, NotIn matches a
            // pod with no class.
            match selector.operator {
                "Exists" => !class.is_empty(),
                "In" => selector.values.contains(&class),
                "NotIn" => !selector.values.contains(&class),
                _ => false,
            }
        }
        "CrossNamespacePodAffinity" => cross_namespace_affinity(obj),
        _ => false,
    }
}

/// A pod with a deadline (`activeDeadlineSeconds` ≥ 0).
fn terminating(pod: &Value) -> bool {
    pod.pointer("/spec/activeDeadlineSeconds")
        .and_then(Value::as_i64)
        .is_some_and(|s| s >= 0)
}

/// A pod whose (anti-)affinity terms look beyond its namespace.
fn cross_namespace_affinity(pod: &Value) -> bool {
    let wide = |term: &Value| {
        !items_at(term, "/namespaces").is_empty() || term.get("namespaceSelector").is_some()
    };
    ["podAffinity", "podAntiAffinity"].iter().any(|which| {
        let base = format!("/spec/affinity/{which}");
        let required = items_at(
            pod,
            &format!("{base}/requiredDuringSchedulingIgnoredDuringExecution"),
        );
        let preferred = items_at(
            pod,
            &format!("{base}/preferredDuringSchedulingIgnoredDuringExecution"),
        );
        required.iter().any(wide)
            || preferred
                .iter()
                .filter_map(|p| p.get("podAffinityTerm"))
                .any(wide)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn quota(spec: Value) -> Value {
        json!({"spec": spec})
    }

    #[test]
    fn scoped_quotas_cover_only_matching_pods() {
        let q = quota(json!({"hard": {"pods": "1"}, "scopes": ["BestEffort"]}));
        let hard = hard(&q);
        let plain = json!({"spec": {"containers": [{"name": "a"}]}});
        let sized = json!({"spec": {"containers": [
            {"name": "a", "resources": {"requests": {"cpu": "1"}}}
        ]}});
        assert!(covers(&q, &hard, &Evaluator::Pods, &plain));
        assert!(!covers(&q, &hard, &Evaluator::Pods, &sized));
        assert!(!covers(&q, &hard, &Evaluator::Services, &plain));
    }

    #[test]
    fn priority_class_selectors_match_as_kube_does() {
        let q = quota(
            json!({"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": [
                {"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}
            ]}}),
        );
        let high = json!({"spec": {"priorityClassName": "high"}});
        let low = json!({"spec": {"priorityClassName": "low"}});
        assert!(covers(&q, &hard(&q), &Evaluator::Pods, &high));
        assert!(!covers(&q, &hard(&q), &Evaluator::Pods, &low));
        let never = quota(
            json!({"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": [
                {"scopeName": "PriorityClass", "operator": "DoesNotExist"}
            ]}}),
        );
        assert!(!covers(&never, &hard(&never), &Evaluator::Pods, &low));
    }

    #[test]
    fn quotas_cover_kinds_their_hard_names() {
        let q = quota(json!({"hard": {"count/configmaps": "2"}}));
        let maps = Evaluator::Count {
            name: "count/configmaps".into(),
            legacy: Some("configmaps"),
        };
        assert!(covers(&q, &hard(&q), &maps, &json!({})));
        assert!(!covers(&q, &hard(&q), &Evaluator::Pods, &json!({})));
        let terminating = json!({"spec": {"activeDeadlineSeconds": 30}});
        let t = quota(json!({"hard": {"pods": "1"}, "scopes": ["Terminating"]}));
        assert!(covers(&t, &hard(&t), &Evaluator::Pods, &terminating));
        assert!(!covers(&t, &hard(&t), &Evaluator::Pods, &json!({})));
    }
}
