//! `flowcontrol.apiserver.{domain}/v1` `FlowSchema` and
//! `PriorityLevelConfiguration` as data: their schemas and the columns
//! kubectl prints for them.

use serde_json::Value;

use crate::api::kind::Column;
use crate::api::schema::Schema;

fn conditions() -> Schema {
    Schema::array(Schema::object([
        ("type", Schema::string()),
        ("status", Schema::string()),
        ("lastTransitionTime", Schema::time()),
        ("reason", Schema::string()),
        ("message", Schema::string()),
    ]))
    .map_list(["type"])
    .merge_by("type")
}

fn named() -> Schema {
    Schema::object([("name", Schema::string())]).required(["name"])
}

fn subject() -> Schema {
    Schema::object([
        ("kind", Schema::string()),
        ("user", named()),
        ("group", named()),
        (
            "serviceAccount",
            Schema::object([("namespace", Schema::string()), ("name", Schema::string())])
                .required(["namespace", "name"]),
        ),
    ])
    .required(["kind"])
}

fn resource_rule() -> Schema {
    Schema::object([
        ("verbs", Schema::string_list().set_list()),
        ("apiGroups", Schema::string_list().set_list()),
        ("resources", Schema::string_list().set_list()),
        ("clusterScope", Schema::boolean()),
        ("namespaces", Schema::string_list().set_list()),
    ])
    .required(["verbs", "apiGroups", "resources"])
}

fn non_resource_rule() -> Schema {
    Schema::object([
        ("verbs", Schema::string_list().set_list()),
        ("nonResourceURLs", Schema::string_list().set_list()),
    ])
    .required(["verbs", "nonResourceURLs"])
}

/// The schema of a flowcontrol/v1 FlowSchema.
#[must_use]
pub fn flow_schema_schema() -> Schema {
    let rules = Schema::object([
        ("subjects", Schema::array(subject()).atomic_list()),
        (
            "resourceRules",
            Schema::array(resource_rule()).atomic_list(),
        ),
        (
            "nonResourceRules",
            Schema::array(non_resource_rule()).atomic_list(),
        ),
    ])
    .required(["subjects"]);
    Schema::resource([
        (
            "spec",
            Schema::object([
                ("priorityLevelConfiguration", named()),
                ("matchingPrecedence", Schema::integer_i32()),
                (
                    "distinguisherMethod",
                    Schema::object([("type", Schema::string())]).required(["type"]),
                ),
                ("rules", Schema::array(rules).atomic_list()),
            ])
            .required(["priorityLevelConfiguration"])
            .describe("`spec` is the specification of the desired behavior of a FlowSchema."),
        ),
        (
            "status",
            Schema::object([("conditions", conditions())])
                .describe("`status` is the current status of a FlowSchema."),
        ),
    ])
    .describe("FlowSchema defines the schema of a group of flows.")
}

/// The schema of a flowcontrol/v1 PriorityLevelConfiguration.
#[must_use]
pub fn priority_level_schema() -> Schema {
    let queuing = Schema::object([
        ("queues", Schema::integer_i32()),
        ("handSize", Schema::integer_i32()),
        ("queueLengthLimit", Schema::integer_i32()),
    ]);
    let limit_response =
        Schema::object([("type", Schema::string()), ("queuing", queuing)]).required(["type"]);
    let limited = Schema::object([
        ("nominalConcurrencyShares", Schema::integer_i32()),
        ("limitResponse", limit_response),
        ("lendablePercent", Schema::integer_i32()),
        ("borrowingLimitPercent", Schema::integer_i32()),
    ]);
    let exempt = Schema::object([
        ("nominalConcurrencyShares", Schema::integer_i32()),
        ("lendablePercent", Schema::integer_i32()),
    ]);
    Schema::resource([
        (
            "spec",
            Schema::object([
                ("type", Schema::string()),
                ("limited", limited),
                ("exempt", exempt),
            ])
            .required(["type"])
            .describe(
                "`spec` is the specification of the desired behavior of a \"request-priority\".",
            ),
        ),
        (
            "status",
            Schema::object([("conditions", conditions())])
                .describe("`status` is the current status of a \"request-priority\"."),
        ),
    ])
    .describe("PriorityLevelConfiguration represents the configuration of a priority level.")
}

/// `<none>` when a FlowSchema distinguishes no flows, else the method.
fn distinguisher_method(obj: &Value) -> Value {
    obj.pointer("/spec/distinguisherMethod/type")
        .cloned()
        .unwrap_or_else(|| "<none>".into())
}

/// The status of the `Dangling` condition, `?` before one is written.
fn missing_priority_level(obj: &Value) -> Value {
    obj.pointer("/status/conditions")
        .and_then(Value::as_array)
        .and_then(|c| c.iter().find(|c| c["type"] == "Dangling"))
        .and_then(|c| c.get("status").cloned())
        .unwrap_or_else(|| "?".into())
}

fn matching_precedence(obj: &Value) -> Value {
    obj.pointer("/spec/matchingPrecedence")
        .cloned()
        .unwrap_or_else(|| 0.into())
}

/// `kubectl get flowschemas` columns.
#[must_use]
pub fn flow_schema_columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::new(
            "PriorityLevel",
            "string",
            0,
            ".spec.priorityLevelConfiguration.name",
            "`name` is the name of the priority level configuration being referenced Required.",
        ),
        Column::computed(
            "MatchingPrecedence",
            "string",
            0,
            matching_precedence,
            "`matchingPrecedence` is used to choose among the FlowSchemas that match a given request.",
        ),
        Column::computed(
            "DistinguisherMethod",
            "string",
            0,
            distinguisher_method,
            "`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema.",
        ),
        Column::age(),
        Column::computed(
            "MissingPL",
            "string",
            0,
            missing_priority_level,
            "references a broken or non-existent PriorityLevelConfiguration",
        ),
    ]
}

/// A queuing or limited field of a Limited level, `<none>` otherwise.
fn limited_field(obj: &Value, pointer: &str) -> Value {
    obj.pointer("/spec/limited")
        .and_then(|l| l.pointer(pointer))
        .cloned()
        .unwrap_or_else(|| "<none>".into())
}

fn nominal_concurrency_shares(obj: &Value) -> Value {
    limited_field(obj, "/nominalConcurrencyShares")
}

fn queues(obj: &Value) -> Value {
    limited_field(obj, "/limitResponse/queuing/queues")
}

fn hand_size(obj: &Value) -> Value {
    limited_field(obj, "/limitResponse/queuing/handSize")
}

fn queue_length_limit(obj: &Value) -> Value {
    limited_field(obj, "/limitResponse/queuing/queueLengthLimit")
}

/// `kubectl get prioritylevelconfigurations` columns.
#[must_use]
pub fn priority_level_columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::new(
            "Type",
            "string",
            0,
            ".spec.type",
            "`type` indicates whether this priority level is subject to limitation on request execution.",
        ),
        Column::computed(
            "NominalConcurrencyShares",
            "string",
            0,
            nominal_concurrency_shares,
            "`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level.",
        ),
        Column::computed(
            "Queues",
            "string",
            0,
            queues,
            "`queues` is the number of queues for this priority level.",
        ),
        Column::computed(
            "HandSize",
            "string",
            0,
            hand_size,
            "`handSize` is a small positive number that configures the shuffle sharding of requests into queues.",
        ),
        Column::computed(
            "QueueLengthLimit",
            "string",
            0,
            queue_length_limit,
            "`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time.",
        ),
        Column::age(),
    ]
}
