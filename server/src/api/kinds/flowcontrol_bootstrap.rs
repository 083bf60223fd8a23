//! The API Priority and Fairness configuration kube-apiserver 1.32 keeps
//! in every cluster: the mandatory `exempt` and `catch-all` priority levels
//! and flow schemas, and the suggested set, as stored (defaults applied),
//! each with the `apf.kubernetes.io/autoupdate-spec: "true"` annotation.

use serde_json::{Value, json};

/// Whether the server keeps an object's spec at its default.
pub const AUTOUPDATE_ANNOTATION: &str = "apf.kubernetes.io/autoupdate-spec";

/// The bootstrap objects of one API domain.
pub struct Bootstrap {
    pub api_version: String,
    coordination: String,
}

/// A rule set matching every request: all resources and all URLs.
fn everything() -> Value {
    json!({
        "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"],
                           "clusterScope": true, "namespaces": ["*"]}],
        "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
    })
}

fn groups(names: &[&str]) -> Value {
    names
        .iter()
        .map(|n| json!({"kind": "Group", "group": {"name": n}}))
        .collect()
}

fn users(names: &[&str]) -> Value {
    names
        .iter()
        .map(|n| json!({"kind": "User", "user": {"name": n}}))
        .collect()
}

fn kube_system_service_account(name: &str) -> Value {
    json!({"kind": "ServiceAccount", "serviceAccount": {"namespace": "kube-system", "name": name}})
}

/// `subjects` with the rules matching every request.
fn all_of(subjects: Value) -> Value {
    let mut rule = everything();
    rule["subjects"] = subjects;
    rule
}

fn queue(queues: u32, hand_size: u32) -> Value {
    json!({"type": "Queue", "queuing": {"queues": queues, "handSize": hand_size, "queueLengthLimit": 50}})
}

impl Bootstrap {
    #[must_use]
    pub fn new(api_domain: &str) -> Bootstrap {
        Bootstrap {
            api_version: format!("flowcontrol.apiserver.{api_domain}/v1"),
            coordination: format!("coordination.{api_domain}"),
        }
    }

    fn object(&self, kind: &str, name: &str, spec: Value) -> Value {
        json!({
            "apiVersion": self.api_version,
            "kind": kind,
            "metadata": {"name": name, "annotations": {AUTOUPDATE_ANNOTATION: "true"}},
            "spec": spec,
        })
    }

    fn limited(&self, name: &str, shares: u32, lendable: u32, response: Value) -> Value {
        self.object(
            "PriorityLevelConfiguration",
            name,
            json!({"type": "Limited", "limited": {
                "nominalConcurrencyShares": shares, "lendablePercent": lendable,
                "limitResponse": response}}),
        )
    }

    fn flow_schema(
        &self,
        name: &str,
        level: &str,
        precedence: u32,
        method: Option<&str>,
        rules: &[Value],
    ) -> Value {
        let mut spec = json!({
            "priorityLevelConfiguration": {"name": level},
            "matchingPrecedence": precedence,
            "rules": rules,
        });
        if let Some(method) = method {
            spec["distinguisherMethod"] = json!({"type": method});
        }
        self.object("FlowSchema", name, spec)
    }

    /// The priority levels the server always restores.
    #[must_use]
    pub fn mandatory_priority_levels(&self) -> Vec<Value> {
        vec![
            self.object(
                "PriorityLevelConfiguration",
                "exempt",
                json!({"type": "Exempt", "exempt": {"nominalConcurrencyShares": 0, "lendablePercent": 0}}),
            ),
            self.limited("catch-all", 5, 0, json!({"type": "Reject"})),
        ]
    }

    /// The suggested priority levels.
    #[must_use]
    pub fn suggested_priority_levels(&self) -> Vec<Value> {
        vec![
            self.limited("system", 30, 33, queue(64, 6)),
            self.limited("node-high", 40, 25, queue(64, 6)),
            self.limited("leader-election", 10, 0, queue(16, 4)),
            self.limited("workload-high", 40, 50, queue(128, 6)),
            self.limited("workload-low", 100, 90, queue(128, 6)),
            self.limited("global-default", 20, 50, queue(128, 6)),
        ]
    }

    /// The flow schemas the server always restores.
    #[must_use]
    pub fn mandatory_flow_schemas(&self) -> Vec<Value> {
        let everyone = groups(&["system:unauthenticated", "system:authenticated"]);
        vec![
            self.flow_schema(
                "exempt",
                "exempt",
                1,
                None,
                &[all_of(groups(&["system:masters"]))],
            ),
            self.flow_schema(
                "catch-all",
                "catch-all",
                10000,
                Some("ByUser"),
                &[all_of(everyone)],
            ),
        ]
    }

    /// Leases in every namespace, for leader election.
    fn leases(&self) -> Value {
        json!({"verbs": ["get", "create", "update"], "apiGroups": [self.coordination],
               "resources": ["leases"], "namespaces": ["*"]})
    }

    /// The suggested flow schemas.
    #[must_use]
    pub fn suggested_flow_schemas(&self) -> Vec<Value> {
        let everyone = groups(&["system:unauthenticated", "system:authenticated"]);
        let controller_manager = "system:kube-controller-manager";
        let scheduler = "system:kube-scheduler";
        let mut leader_electors = users(&[controller_manager, scheduler]);
        if let Some(list) = leader_electors.as_array_mut() {
            list.push(kube_system_service_account("*"));
        }
        let node_high = json!({
            "subjects": groups(&["system:nodes"]),
            "resourceRules": [
                {"verbs": ["*"], "apiGroups": [""], "resources": ["nodes", "nodes/status"], "clusterScope": true},
                {"verbs": ["*"], "apiGroups": [self.coordination], "resources": ["leases"], "namespaces": ["*"]},
            ],
        });
        let probes = json!({
            "subjects": everyone,
            "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz", "/readyz", "/livez"]}],
        });
        let endpoints = json!({
            "subjects": [users(&[controller_manager])[0].clone(), kube_system_service_account("endpoint-controller")],
            "resourceRules": [{"verbs": ["get", "create", "update"], "apiGroups": [""],
                               "resources": ["endpoints"], "namespaces": ["*"]}],
        });
        vec![
            self.flow_schema("system-nodes", "system", 500, Some("ByUser"), &[all_of(groups(&["system:nodes"]))]),
            self.flow_schema("system-node-high", "node-high", 400, Some("ByUser"), &[node_high]),
            self.flow_schema("probes", "exempt", 2, None, &[probes]),
            self.flow_schema(
                "system-leader-election",
                "leader-election",
                100,
                Some("ByUser"),
                &[json!({"subjects": leader_electors, "resourceRules": [self.leases()]})],
            ),
            self.flow_schema(
                "workload-leader-election",
                "leader-election",
                200,
                Some("ByUser"),
                &[json!({"subjects": [kube_system_service_account("*")], "resourceRules": [self.leases()]})],
            ),
            self.flow_schema("endpoint-controller", "workload-high", 150, Some("ByUser"), &[endpoints]),
            self.flow_schema(
                "kube-controller-manager",
                "workload-high",
                800,
                Some("ByNamespace"),
                &[all_of(users(&[controller_manager]))],
            ),
            self.flow_schema(
                "kube-scheduler",
                "workload-high",
                800,
                Some("ByNamespace"),
                &[all_of(users(&[scheduler]))],
            ),
            self.flow_schema(
                "kube-system-service-accounts",
                "workload-high",
                900,
                Some("ByNamespace"),
                &[all_of(json!([kube_system_service_account("*")]))],
            ),
            self.flow_schema(
                "service-accounts",
                "workload-low",
                9000,
                Some("ByUser"),
                &[all_of(groups(&["system:serviceaccounts"]))],
            ),
            self.flow_schema("global-default", "global-default", 9900, Some("ByUser"), &[all_of(everyone)]),
        ]
    }

    /// The fixed spec of a mandatory object of `kind` named `name`, if it
    /// is one.
    #[must_use]
    pub fn mandatory_spec(&self, kind: &str, name: &str) -> Option<Value> {
        let objects = match kind {
            "FlowSchema" => self.mandatory_flow_schemas(),
            _ => self.mandatory_priority_levels(),
        };
        objects
            .into_iter()
            .find(|o| o["metadata"]["name"] == name)
            .map(|o| o["spec"].clone())
    }
}
