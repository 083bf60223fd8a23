//! kube-apiserver's DefaultTolerationSeconds: a pod that does not already
//! tolerate the `node.kubernetes.io/not-ready` and
//! `node.kubernetes.io/unreachable` NoExecute taints gets a toleration of
//! each for `--default-not-ready-toleration-seconds` and
//! `--default-unreachable-toleration-seconds` (300 s each), so it is evicted
//! that long after its node fails rather than at once.

use serde_json::{Value, json};

use crate::api::error::ApiError;
use crate::request::admission::{Attributes, MutatingAdmission, Operation};
use crate::util::maybe_async::MaybeAsync;

pub const DEFAULT_TOLERATION_SECONDS: &str = "DefaultTolerationSeconds";

const NOT_READY: &str = "node.kubernetes.io/not-ready";
const UNREACHABLE: &str = "node.kubernetes.io/unreachable";

/// The plugin, with the two flags' seconds.
pub struct DefaultTolerationSeconds {
    pub not_ready_seconds: i64,
    pub unreachable_seconds: i64,
}

/// Whether a toleration covers NoExecute taints with `key` (an empty key
/// or effect matches any, as kube reads them).
fn covers(toleration: &Value, key: &str) -> bool {
    let text = |f: &str| {
        toleration
            .get(f)
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    (text("key") == key || text("key").is_empty())
        && (text("effect") == "NoExecute" || text("effect").is_empty())
}

impl DefaultTolerationSeconds {
    fn add_missing(&self, pod: &mut Value) {
        let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut) else {
            return;
        };
        let list = spec
            .entry("tolerations")
            .or_insert_with(|| Value::Array(Vec::new()));
        if !list.is_array() {
            *list = Value::Array(Vec::new());
        }
        let tolerations = list.as_array_mut().expect("made an array");
        for (key, seconds) in [
            (NOT_READY, self.not_ready_seconds),
            (UNREACHABLE, self.unreachable_seconds),
        ] {
            if !tolerations.iter().any(|t| covers(t, key)) {
                tolerations.push(json!({"key": key, "operator": "Exists",
                    "effect": "NoExecute", "tolerationSeconds": seconds}));
            }
        }
    }
}

impl MutatingAdmission for DefaultTolerationSeconds {
    fn name(&self) -> &'static str {
        DEFAULT_TOLERATION_SECONDS
    }

    fn handles(&self, operation: Operation) -> bool {
        matches!(operation, Operation::Create | Operation::Update)
    }

    fn admit<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
        object: Option<&'a mut Value>,
    ) -> MaybeAsync<'a, Result<(), ApiError>> {
        let pods = attrs.kind.group.is_empty() && attrs.kind.resource == "pods";
        if let Some(pod) = object.filter(|_| pods && attrs.subresource.is_none()) {
            self.add_missing(pod);
        }
        MaybeAsync::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plugin() -> DefaultTolerationSeconds {
        DefaultTolerationSeconds {
            not_ready_seconds: 300,
            unreachable_seconds: 120,
        }
    }

    #[test]
    fn both_tolerations_are_added_to_a_pod_without_them() {
        let mut pod = json!({"spec": {"containers": []}});
        plugin().add_missing(&mut pod);
        assert_eq!(
            pod["spec"]["tolerations"],
            json!([
                {"key": NOT_READY, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
                {"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 120}
            ])
        );
    }

    #[test]
    fn tolerations_the_pod_has_are_kept_and_not_doubled() {
        let own = json!({"key": NOT_READY, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 5});
        let mut pod = json!({"spec": {"tolerations": [own]}});
        plugin().add_missing(&mut pod);
        let list = pod["spec"]["tolerations"].as_array().expect("list");
        assert_eq!(list.len(), 2);
        assert_eq!(list[0], own);
        assert_eq!(list[1]["key"], UNREACHABLE);
        // An empty key and effect tolerate every taint: nothing to add.
        let mut pod = json!({"spec": {"tolerations": [{"operator": "Exists"}]}});
        plugin().add_missing(&mut pod);
        assert_eq!(pod["spec"]["tolerations"].as_array().map(Vec::len), Some(1));
    }
}
