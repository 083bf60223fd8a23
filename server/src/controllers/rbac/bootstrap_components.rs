//! The default policy's roles for the control-plane components that run
//! beside an API server: kube-scheduler's (`system:kube-scheduler`, and
//! `system:volume-scheduler` for volume binding), each bound to the user
//! `system:kube-scheduler` that a scheduler's client certificate names.

use super::bootstrap::{READ, Rule, on};

/// The user kube-scheduler authenticates as.
pub const SCHEDULER_USER: &str = "system:kube-scheduler";

/// (role name, rules), in Kubernetes' order.
pub fn component_roles() -> Vec<(&'static str, Vec<Rule>)> {
    vec![
        (
            "system:kube-scheduler",
            vec![
                on(
                    &["create", "update", "patch"],
                    &["", "events.k8s.io"],
                    &["events"],
                ),
                on(&["create"], &["coordination.k8s.io"], &["leases"]),
                Rule::Named {
                    verbs: &["get", "update"],
                    groups: &["coordination.k8s.io"],
                    resources: &["leases"],
                    names: &["kube-scheduler"],
                },
                on(READ, &[""], &["nodes"]),
                on(&["get", "list", "watch", "delete"], &[""], &["pods"]),
                on(&["create"], &[""], &["pods/binding", "bindings"]),
                on(&["patch", "update"], &[""], &["pods/status"]),
                on(READ, &[""], &["services", "replicationcontrollers"]),
                on(READ, &["apps", "extensions"], &["replicasets"]),
                on(READ, &["apps"], &["statefulsets"]),
                on(READ, &["policy"], &["poddisruptionbudgets"]),
                on(
                    READ,
                    &[""],
                    &["persistentvolumeclaims", "persistentvolumes"],
                ),
                on(&["create"], &["authentication.k8s.io"], &["tokenreviews"]),
                on(
                    &["create"],
                    &["authorization.k8s.io"],
                    &["subjectaccessreviews"],
                ),
                on(READ, &["storage.k8s.io"], &["csinodes"]),
                on(READ, &[""], &["namespaces"]),
                on(READ, &["storage.k8s.io"], &["csidrivers"]),
                on(READ, &["storage.k8s.io"], &["csistoragecapacities"]),
            ],
        ),
        (
            "system:volume-scheduler",
            vec![
                on(
                    &["get", "list", "watch", "patch", "update"],
                    &[""],
                    &["persistentvolumes"],
                ),
                on(READ, &["storage.k8s.io"], &["storageclasses"]),
                on(
                    &["get", "list", "watch", "patch", "update"],
                    &[""],
                    &["persistentvolumeclaims"],
                ),
            ],
        ),
    ]
}

/// The ClusterRoleBindings to single users: (binding and role name, user).
pub const USER_BINDINGS: &[(&str, &str)] = &[
    ("system:kube-scheduler", SCHEDULER_USER),
    ("system:volume-scheduler", SCHEDULER_USER),
];
