//! Table columns of the apps/v1 kinds, as kubectl prints them.

use serde_json::Value;

use super::workload_cells::{containers, count, format_labels, format_selector, images, ratio};
use crate::api::kind::Column;

const TEMPLATE: &str = "/spec/template";

fn template_containers(obj: &Value) -> Value {
    containers(obj, TEMPLATE)
}

fn template_images(obj: &Value) -> Value {
    images(obj, TEMPLATE)
}

fn selector(obj: &Value) -> Value {
    format_selector(obj.pointer("/spec/selector"))
}

fn ready_of_desired(obj: &Value) -> Value {
    ratio(obj, "/status/readyReplicas", "/spec/replicas")
}

fn int(name: &str, cell: fn(&Value) -> Value, description: &str) -> Column {
    Column::computed(name, "integer", 0, cell, description)
}

fn wide(name: &str, cell: fn(&Value) -> Value, description: &str) -> Column {
    Column::computed(name, "string", 1, cell, description)
}

fn containers_column() -> Column {
    wide(
        "Containers",
        template_containers,
        "Names of each container in the template.",
    )
}

fn images_column() -> Column {
    wide(
        "Images",
        template_images,
        "Images referenced by each container in the template.",
    )
}

fn selector_column(description: &str) -> Column {
    wide("Selector", selector, description)
}

macro_rules! counter {
    ($name:ident, $pointer:literal) => {
        fn $name(obj: &Value) -> Value {
            Value::from(count(obj, $pointer))
        }
    };
}

counter!(spec_replicas, "/spec/replicas");
counter!(status_replicas, "/status/replicas");
counter!(ready_replicas, "/status/readyReplicas");
counter!(updated_replicas, "/status/updatedReplicas");
counter!(available_replicas, "/status/availableReplicas");
counter!(desired_scheduled, "/status/desiredNumberScheduled");
counter!(current_scheduled, "/status/currentNumberScheduled");
counter!(number_ready, "/status/numberReady");
counter!(updated_scheduled, "/status/updatedNumberScheduled");
counter!(number_available, "/status/numberAvailable");
counter!(revision, "/revision");

fn node_selector(obj: &Value) -> Value {
    let labels = obj
        .pointer("/spec/template/spec/nodeSelector")
        .and_then(Value::as_object);
    Value::from(format_labels(labels))
}

/// `statefulset.apps/web` for the controlling owner; `<none>` without one.
fn controller(obj: &Value) -> Value {
    let owners = obj
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array);
    let owner = owners
        .into_iter()
        .flatten()
        .find(|o| o.get("controller").and_then(Value::as_bool) == Some(true));
    let Some(owner) = owner else {
        return Value::from("<none>");
    };
    let field = |name: &str| owner.get(name).and_then(Value::as_str).unwrap_or("");
    let group = field("apiVersion").rsplit_once('/').map_or("", |(g, _)| g);
    let kind = field("kind").to_ascii_lowercase();
    let resource = if group.is_empty() {
        kind
    } else {
        format!("{kind}.{group}")
    };
    Value::from(format!("{resource}/{}", field("name")))
}

/// `kubectl get deployments`.
#[must_use]
pub fn deployment_columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::computed(
            "Ready",
            "string",
            0,
            ready_of_desired,
            "Number of the pod with ready state",
        ),
        // kube types these integer cells `string`.
        Column::computed(
            "Up-to-date",
            "string",
            0,
            updated_replicas,
            "Total number of non-terminated pods targeted by this deployment that have the desired template spec.",
        ),
        // kube types these integer cells `string`.
        Column::computed(
            "Available",
            "string",
            0,
            available_replicas,
            "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.",
        ),
        Column::age(),
        containers_column(),
        images_column(),
        selector_column(
            "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.",
        ),
    ]
}

/// `kubectl get replicasets`.
#[must_use]
pub fn replica_set_columns() -> Vec<Column> {
    vec![
        Column::name(),
        int("Desired", spec_replicas, "Number of desired pods."),
        int(
            "Current",
            status_replicas,
            "The most recently observed number of replicas.",
        ),
        int(
            "Ready",
            ready_replicas,
            "The number of ready replicas for this replica set.",
        ),
        Column::age(),
        containers_column(),
        images_column(),
        selector_column("Selector is a label query over pods that should match the replica count."),
    ]
}

/// `kubectl get statefulsets`.
#[must_use]
pub fn stateful_set_columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::computed(
            "Ready",
            "string",
            0,
            ready_of_desired,
            "Number of the pod with ready state",
        ),
        Column::age(),
        containers_column(),
        images_column(),
    ]
}

/// `kubectl get daemonsets`.
#[must_use]
pub fn daemon_set_columns() -> Vec<Column> {
    vec![
        Column::name(),
        int(
            "Desired",
            desired_scheduled,
            "The total number of nodes that should be running the daemon pod.",
        ),
        int(
            "Current",
            current_scheduled,
            "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.",
        ),
        int(
            "Ready",
            number_ready,
            "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.",
        ),
        int(
            "Up-to-date",
            updated_scheduled,
            "The total number of nodes that are running updated daemon pod",
        ),
        int(
            "Available",
            number_available,
            "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.",
        ),
        Column::computed(
            "Node Selector",
            "string",
            0,
            node_selector,
            "NodeSelector is a selector which must be true for the pod to fit on a node.",
        ),
        Column::age(),
        containers_column(),
        images_column(),
        selector_column("A label query over pods that are managed by the daemon set."),
    ]
}

/// `kubectl get controllerrevisions`.
#[must_use]
pub fn controller_revision_columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::computed(
            "Controller",
            "string",
            0,
            controller,
            "Controller of the object",
        ),
        // kube types these integer cells `string`.
        Column::computed(
            "Revision",
            "string",
            0,
            revision,
            "Revision indicates the revision of the state represented by Data.",
        ),
        Column::age(),
    ]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_controller_revision_names_its_owner() {
        let revision = json!({"metadata": {"ownerReferences": [
            {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web", "uid": "1", "controller": true}]}});
        assert_eq!(controller(&revision), json!("statefulset.apps/web"));
        assert_eq!(controller(&json!({})), json!("<none>"));
    }

    #[test]
    fn deployments_show_five_columns_and_three_wide() {
        let columns = deployment_columns();
        let names: Vec<&str> = columns
            .iter()
            .filter(|c| c.priority == 0)
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(names, ["Name", "Ready", "Up-to-date", "Available", "Age"]);
        assert_eq!(columns.iter().filter(|c| c.priority == 1).count(), 3);
        // Integer cells, `string` columns, as kube's printer declares them.
        assert!(columns.iter().all(|c| c.type_ == "string"));
    }
}
