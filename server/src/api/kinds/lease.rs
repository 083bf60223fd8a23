//! `coordination.{domain}/v1` `Lease` as data: its schema and table columns.

use crate::api::kind::Column;
use crate::api::schema::Schema;

/// The schema of a coordination/v1 Lease.
#[must_use]
pub fn schema() -> Schema {
    Schema::resource([(
        "spec",
        Schema::object([
            ("holderIdentity", Schema::string()),
            ("leaseDurationSeconds", Schema::integer_i32()),
            ("acquireTime", Schema::micro_time()),
            ("renewTime", Schema::micro_time()),
            ("leaseTransitions", Schema::integer_i32()),
            ("strategy", Schema::string()),
            ("preferredHolder", Schema::string()),
        ])
        .proto_fields([
            ("holderIdentity", 1),
            ("leaseDurationSeconds", 2),
            ("acquireTime", 3),
            ("renewTime", 4),
            ("leaseTransitions", 5),
            ("strategy", 6),
            ("preferredHolder", 7),
        ])
        .describe("Specification of the Lease."),
    )])
    .proto_fields([("metadata", 1), ("spec", 2)])
    .describe("Lease defines a lease concept.")
}

/// `kubectl get leases` columns.
#[must_use]
pub fn columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::new(
            "Holder",
            "string",
            0,
            ".spec.holderIdentity",
            "The holder of the lease.",
        ),
        Column::age(),
    ]
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::api::schema::{normalize, unknown_fields};

    fn errors(obj: &Value) -> Vec<String> {
        crate::api::kinds::schema_errors(&schema(), obj)
    }

    /// A leader-election lease as client-go's leaderelection writes it.
    fn leader() -> Value {
        json!({
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": "kube-scheduler", "namespace": "kube-system"},
            "spec": {"holderIdentity": "cp-1_5f2c", "leaseDurationSeconds": 15,
                     "acquireTime": "2024-05-01T10:00:00.000000Z", "renewTime": "2024-05-01T10:05:00.123456Z",
                     "leaseTransitions": 3}
        })
    }

    #[test]
    fn a_leader_election_lease_is_valid_and_fully_known() {
        assert_eq!(errors(&leader()), Vec::<String>::new());
        assert!(unknown_fields(&schema(), &leader()).is_empty());
        let coordinated = json!({"metadata": {"name": "x"}, "spec": {"strategy": "OldestEmulationVersion", "preferredHolder": "b"}});
        assert_eq!(errors(&coordinated), Vec::<String>::new());
    }

    #[test]
    fn times_are_micro_times_and_types_hold() {
        let mut lease = leader();
        lease["spec"]["renewTime"] = json!("2024-05-01T10:05:00Z");
        normalize(&schema(), &mut lease);
        assert_eq!(lease["spec"]["renewTime"], "2024-05-01T10:05:00.000000Z");
        lease["spec"]["leaseDurationSeconds"] = json!("15");
        lease["spec"]["acquireTime"] = json!("yesterday");
        assert_eq!(
            errors(&lease),
            [
                "spec.leaseDurationSeconds: Invalid value: \"string\": spec.leaseDurationSeconds in body must be of type integer: \"string\"",
                "spec.acquireTime: Invalid value: \"yesterday\": spec.acquireTime in body must be of type date-time: \"yesterday\"",
            ]
        );
    }
}
