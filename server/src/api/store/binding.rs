//! A Binding assigns a pod to a node, as Kubernetes' binding REST does: the
//! pod's `spec.nodeName` is set (only while it is empty), the Binding's
//! annotations are copied onto the pod and its `PodScheduled` condition
//! becomes True, in one guaranteed update of the stored pod.

use std::sync::Arc;
use std::time::SystemTime;

use serde_json::{Map, Value, json};

use super::write::{MODIFIED, Mutation};
use super::{Store, Subresource, WriteOptions, WriteOutcome};
use crate::api::bodies::binding::{self, Assignment};
use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::object;
use crate::request::admission::Attributes;
use crate::util::time::rfc3339;

/// `pod` assigned as `assignment` asks, or why it cannot be.
pub fn assigned(
    pods: &KindSpec,
    pod: &Value,
    assignment: &Assignment,
    now: SystemTime,
) -> Result<Value, ApiError> {
    let name = object::name(pod);
    if pod
        .pointer("/metadata/deletionTimestamp")
        .is_some_and(|t| !t.is_null())
    {
        return Err(ApiError::Internal(format!(
            "pod {name} is being deleted, cannot be assigned to a host"
        )));
    }
    let node = pod
        .pointer("/spec/nodeName")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !node.is_empty() {
        return Err(pods.conflict(
            name,
            &format!("pod {name} is already assigned to node {node:?}"),
        ));
    }
    if pod
        .pointer("/spec/schedulingGates")
        .and_then(Value::as_array)
        .is_some_and(|g| !g.is_empty())
    {
        return Err(pods.conflict(
            name,
            &format!("pod {name} has non-empty .spec.schedulingGates"),
        ));
    }
    if let Some(uid) = &assignment.uid
        && uid != object::uid(pod)
    {
        return Err(pods.conflict(
            name,
            &format!(
                "Precondition failed: UID in precondition: {uid}, UID in object meta: {}",
                object::uid(pod)
            ),
        ));
    }
    let mut pod = pod.clone();
    pod["spec"]["nodeName"] = json!(assignment.node);
    if !assignment.annotations.is_empty() {
        let meta = object::metadata_mut(&mut pod);
        let annotations = meta
            .entry("annotations")
            .or_insert_with(|| Value::Object(Map::new()));
        if !annotations.is_object() {
            *annotations = Value::Object(Map::new());
        }
        if let Some(annotations) = annotations.as_object_mut() {
            annotations.extend(assignment.annotations.clone());
        }
    }
    scheduled(&mut pod, now);
    Ok(pod)
}

/// Sets the `PodScheduled` condition True; its transition time moves only
/// when its status changes, as kube's `UpdatePodCondition` does.
fn scheduled(pod: &mut Value, now: SystemTime) {
    if !pod["status"].is_object() {
        pod["status"] = json!({});
    }
    let conditions = &mut pod["status"]["conditions"];
    if !conditions.is_array() {
        *conditions = json!([]);
    }
    let list = conditions.as_array_mut().expect("made an array");
    let fresh = json!({"type": "PodScheduled", "status": "True",
                       "lastProbeTime": null, "lastTransitionTime": rfc3339(now)});
    match list.iter_mut().find(|c| c["type"] == "PodScheduled") {
        Some(c) if c["status"] == "True" => {}
        Some(c) => *c = fresh,
        None => list.push(fresh),
    }
}

/// Where a Binding was posted, which is how admission sees it: a create
/// of `pods/<name>/binding` or of the `bindings` collection (its kind).
pub enum BindingVia<'a> {
    PodSubresource,
    Collection(&'a KindSpec),
}

impl Store {
    /// Assigns a pod in `ns` to a node as the Binding `body` asks (`name`:
    /// the pod named in the path, if any). Admission sees the Binding's
    /// create, as Kubernetes' does; the pod's update that follows is the
    /// binding's own and is not admitted again.
    pub async fn bind(
        &self,
        pods: &Arc<KindSpec>,
        ns: &str,
        mut body: Value,
        name: Option<&str>,
        via: BindingVia<'_>,
        opts: &WriteOptions,
    ) -> Result<WriteOutcome, ApiError> {
        let opts = WriteOptions {
            subresource: Some(Subresource::Binding),
            ..opts.clone()
        };
        let collection_opts = WriteOptions {
            subresource: None,
            ..opts.clone()
        };
        let pod_name = object::name(&body).to_string();
        let attrs = match via {
            BindingVia::PodSubresource => Attributes {
                object_kind: Some("Binding"),
                ..Attributes::create(pods, Some(ns), &pod_name, &opts)
            },
            BindingVia::Collection(bindings) => {
                Attributes::create(bindings, Some(ns), &pod_name, &collection_opts)
            }
        };
        self.admission.admit(&attrs, Some(&mut body)).await?;
        let assignment = binding::decode(&body, name, Some(ns))?;
        // Nothing for the pod's commit to guard: it is checked again there.
        let _read = self.admission.validate(&attrs, Some(&body)).await?;
        let precondition = match &assignment.resource_version {
            None => None,
            Some(rv) => Some(
                rv.parse::<u64>()
                    .map_err(|_| pods.conflict(&assignment.pod, MODIFIED))?,
            ),
        };
        self.guaranteed_update(pods, Some(ns), &assignment.pod, &opts, |current| {
            Ok(Mutation {
                object: assigned(pods, current, &assignment, SystemTime::now())?,
                precondition,
                warnings: Vec::new(),
                managed: None,
            })
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use std::time::UNIX_EPOCH;

    use clap::Parser;

    use super::*;
    use crate::api::kinds;
    use crate::config::{Config, Flags};

    fn pods() -> Arc<KindSpec> {
        let config = Config::from(Flags::parse_from(["cairn-apiserver"]));
        kinds::builtin(&config)
            .lookup("", "v1", "pods")
            .expect("pods")
    }

    fn assignment() -> Assignment {
        let mut annotations = Map::new();
        annotations.insert("scheduler".into(), json!("mine"));
        Assignment {
            pod: "p".into(),
            node: "n1".into(),
            annotations,
            uid: None,
            resource_version: None,
        }
    }

    #[test]
    fn an_unassigned_pod_gets_the_node_annotations_and_scheduled_condition() {
        let pod = json!({"metadata": {"name": "p", "uid": "u"}, "spec": {},
                         "status": {"phase": "Pending",
                                    "conditions": [{"type": "PodScheduled", "status": "False"}]}});
        let got = assigned(&pods(), &pod, &assignment(), UNIX_EPOCH).expect("binds");
        assert_eq!(got["spec"]["nodeName"], "n1");
        assert_eq!(got["metadata"]["annotations"]["scheduler"], "mine");
        assert_eq!(
            got["status"]["conditions"],
            json!([{"type": "PodScheduled", "status": "True", "lastProbeTime": null,
                    "lastTransitionTime": "1970-01-01T00:00:00Z"}])
        );
    }

    #[test]
    fn an_assigned_gated_or_deleted_pod_is_refused() {
        let taken = json!({"metadata": {"name": "p"}, "spec": {"nodeName": "n0"}});
        let e = assigned(&pods(), &taken, &assignment(), UNIX_EPOCH).expect_err("taken");
        assert_eq!(e.code(), 409);
        assert_eq!(
            e.to_string(),
            "Operation cannot be fulfilled on pods \"p\": pod p is already assigned to node \"n0\""
        );
        let gated =
            json!({"metadata": {"name": "p"}, "spec": {"schedulingGates": [{"name": "g"}]}});
        assert_eq!(
            assigned(&pods(), &gated, &assignment(), UNIX_EPOCH).map_err(|e| e.code()),
            Err(409)
        );
        let going = json!({"metadata": {"name": "p", "deletionTimestamp": "2020-01-01T00:00:00Z"}, "spec": {}});
        assert_eq!(
            assigned(&pods(), &going, &assignment(), UNIX_EPOCH).map_err(|e| e.code()),
            Err(500)
        );
        let mut other = assignment();
        other.uid = Some("other".into());
        let pod = json!({"metadata": {"name": "p", "uid": "u"}, "spec": {}});
        assert_eq!(
            assigned(&pods(), &pod, &other, UNIX_EPOCH).map_err(|e| e.code()),
            Err(409)
        );
    }
}
