//! The rules of `system:aggregate-to-admin`, `-edit` and `-view`, as
//! Kubernetes 1.32 lists them (feature-gated additions that are off by
//! default left out). `view` gathers the view part, `edit` the edit part
//! and `view`, `admin` the admin part and `edit`.

use super::bootstrap::{READ, READ_WRITE, Rule, WRITE, on};

const CORE: &[&str] = &[""];

/// What namespace admins hold beyond `edit`: delegated access checks and
/// granting roles within the namespace.
pub fn to_admin() -> Vec<Rule> {
    vec![
        on(
            &["create"],
            &["authorization.k8s.io"],
            &["localsubjectaccessreviews"],
        ),
        on(
            READ_WRITE,
            &["rbac.authorization.k8s.io"],
            &["roles", "rolebindings"],
        ),
    ]
}

/// What editors hold beyond `view`: reading escalating resources, and
/// writing the workload resources of a namespace (not its status, quota
/// or limits).
pub fn to_edit() -> Vec<Rule> {
    vec![
        on(
            READ,
            CORE,
            &[
                "pods/attach",
                "pods/proxy",
                "pods/exec",
                "pods/portforward",
                "secrets",
                "services/proxy",
            ],
        ),
        on(&["impersonate"], CORE, &["serviceaccounts"]),
        on(
            WRITE,
            CORE,
            &[
                "pods",
                "pods/attach",
                "pods/proxy",
                "pods/exec",
                "pods/portforward",
            ],
        ),
        on(&["create"], CORE, &["pods/eviction"]),
        on(
            WRITE,
            CORE,
            &[
                "replicationcontrollers",
                "replicationcontrollers/scale",
                "serviceaccounts",
                "services",
                "services/proxy",
                "persistentvolumeclaims",
                "configmaps",
                "secrets",
            ],
        ),
        on(&["create"], CORE, &["serviceaccounts/token"]),
        on(
            WRITE,
            &["apps"],
            &[
                "statefulsets",
                "statefulsets/scale",
                "daemonsets",
                "deployments",
                "deployments/scale",
                "deployments/rollback",
                "replicasets",
                "replicasets/scale",
            ],
        ),
        on(WRITE, &["autoscaling"], &["horizontalpodautoscalers"]),
        on(WRITE, &["batch"], &["jobs", "cronjobs"]),
        on(
            WRITE,
            &["extensions"],
            &[
                "daemonsets",
                "deployments",
                "deployments/scale",
                "deployments/rollback",
                "ingresses",
                "replicasets",
                "replicasets/scale",
                "replicationcontrollers/scale",
                "networkpolicies",
            ],
        ),
        on(WRITE, &["policy"], &["poddisruptionbudgets"]),
        on(
            WRITE,
            &["networking.k8s.io"],
            &["networkpolicies", "ingresses"],
        ),
    ]
}

/// What viewers hold: reading the non-escalating resources of a
/// namespace (not secrets, not roles).
pub fn to_view() -> Vec<Rule> {
    vec![
        on(
            READ,
            CORE,
            &[
                "pods",
                "replicationcontrollers",
                "replicationcontrollers/scale",
                "serviceaccounts",
                "services",
                "services/status",
                "endpoints",
                "persistentvolumeclaims",
                "persistentvolumeclaims/status",
                "configmaps",
            ],
        ),
        on(
            READ,
            CORE,
            &[
                "limitranges",
                "resourcequotas",
                "bindings",
                "events",
                "pods/status",
                "resourcequotas/status",
                "namespaces/status",
                "replicationcontrollers/status",
                "pods/log",
            ],
        ),
        // Reading namespaces at namespace scope reads that namespace: a
        // hint of which namespaces one has access to.
        on(READ, CORE, &["namespaces"]),
        on(READ, &["discovery.k8s.io"], &["endpointslices"]),
        on(
            READ,
            &["apps"],
            &[
                "controllerrevisions",
                "statefulsets",
                "statefulsets/status",
                "statefulsets/scale",
                "daemonsets",
                "daemonsets/status",
                "deployments",
                "deployments/status",
                "deployments/scale",
                "replicasets",
                "replicasets/status",
                "replicasets/scale",
            ],
        ),
        on(
            READ,
            &["autoscaling"],
            &[
                "horizontalpodautoscalers",
                "horizontalpodautoscalers/status",
            ],
        ),
        on(
            READ,
            &["batch"],
            &["jobs", "cronjobs", "cronjobs/status", "jobs/status"],
        ),
        on(
            READ,
            &["extensions"],
            &[
                "daemonsets",
                "daemonsets/status",
                "deployments",
                "deployments/scale",
                "deployments/status",
                "ingresses",
                "ingresses/status",
                "replicasets",
                "replicasets/scale",
                "replicasets/status",
                "replicationcontrollers/scale",
                "networkpolicies",
            ],
        ),
        on(
            READ,
            &["policy"],
            &["poddisruptionbudgets", "poddisruptionbudgets/status"],
        ),
        on(
            READ,
            &["networking.k8s.io"],
            &["networkpolicies", "ingresses", "ingresses/status"],
        ),
    ]
}
