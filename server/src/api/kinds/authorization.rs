//! `authorization.{domain}/v1` as data: SubjectAccessReview,
//! SelfSubjectAccessReview, LocalSubjectAccessReview (namespaced) and
//! SelfSubjectRulesReview, kinds that are never stored (a create is a
//! question; the answerers are in `request::authz::reviews`). Field numbers
//! are those of Kubernetes' `authorization/v1` protobuf messages.

use std::sync::Arc;

use crate::api::kind::{Answerer, KindSpec};
use crate::api::kinds::authentication::question;
use crate::api::registry::Registry;
use crate::api::schema::Schema;

/// One requirement of a field or label selector (`key`, `operator`,
/// `values`).
fn selector_requirement() -> Schema {
    Schema::object([
        (
            "key",
            Schema::string().describe("The key the requirement is about."),
        ),
        (
            "operator",
            Schema::string().describe("In, NotIn, Exists or DoesNotExist."),
        ),
        (
            "values",
            Schema::string_list()
                .atomic_list()
                .describe("The values for In and NotIn."),
        ),
    ])
    .proto_fields([("key", 1), ("operator", 2), ("values", 3)])
}

/// `FieldSelectorAttributes` / `LabelSelectorAttributes`: a selector that
/// limits the access asked about.
fn selector_attributes(what: &str) -> Schema {
    Schema::object([
        (
            "rawSelector",
            Schema::string().describe(format!("The {what} selector as a query would carry it.")),
        ),
        (
            "requirements",
            Schema::array(selector_requirement())
                .atomic_list()
                .describe(format!("The {what} selector, parsed.")),
        ),
    ])
    .proto_fields([("rawSelector", 1), ("requirements", 2)])
    .describe(format!(
        "Limits the access asked about to objects a {what} selector matches."
    ))
}

/// `ResourceAttributes`: a request on a resource.
fn resource_attributes() -> Schema {
    let field = |text: &str| Schema::string().describe(text.to_string());
    Schema::object([
        (
            "namespace",
            field("The namespace of the action; empty for cluster-scoped resources or all namespaces."),
        ),
        ("verb", field("The API verb (get, list, create, ...); \"*\" means all.")),
        ("group", field("The API group of the resource; \"*\" means all.")),
        ("version", field("The API version of the resource; \"*\" means all.")),
        ("resource", field("The resource; \"*\" means all.")),
        ("subresource", field("The subresource; empty means none.")),
        ("name", field("The name of the object; empty means all.")),
        ("fieldSelector", selector_attributes("field")),
        ("labelSelector", selector_attributes("label")),
    ])
    .proto_fields([
        ("namespace", 1),
        ("verb", 2),
        ("group", 3),
        ("version", 4),
        ("resource", 5),
        ("subresource", 6),
        ("name", 7),
        ("fieldSelector", 8),
        ("labelSelector", 9),
    ])
    .describe("A request on a resource, as an authorizer sees it.")
}

/// `NonResourceAttributes`: a request on another path.
fn non_resource_attributes() -> Schema {
    Schema::object([
        (
            "path",
            Schema::string().describe("The URL path of the request."),
        ),
        (
            "verb",
            Schema::string().describe("The HTTP verb, lower case (get, post, ...)."),
        ),
    ])
    .proto_fields([("path", 1), ("verb", 2)])
    .describe("A request on a path that is not a resource, as an authorizer sees it.")
}

/// `SubjectAccessReviewSpec`: the request and who would make it.
fn subject_access_review_spec() -> Schema {
    Schema::object([
        ("resourceAttributes", resource_attributes()),
        ("nonResourceAttributes", non_resource_attributes()),
        ("user", Schema::string().describe("The user to check for.")),
        (
            "groups",
            Schema::string_list()
                .atomic_list()
                .describe("The groups to check for."),
        ),
        (
            "extra",
            Schema::map(Schema::string_list())
                .describe("The further facts an authenticator would give about the user."),
        ),
        ("uid", Schema::string().describe("The user's UID.")),
    ])
    .proto_fields([
        ("resourceAttributes", 1),
        ("nonResourceAttributes", 2),
        ("user", 3),
        ("groups", 4),
        ("extra", 5),
        ("uid", 6),
    ])
    .describe("The request to check (exactly one of resourceAttributes and nonResourceAttributes) and the user.")
}

/// `SelfSubjectAccessReviewSpec`: the request, made by the requester.
fn self_subject_access_review_spec() -> Schema {
    Schema::object([
        ("resourceAttributes", resource_attributes()),
        ("nonResourceAttributes", non_resource_attributes()),
    ])
    .proto_fields([("resourceAttributes", 1), ("nonResourceAttributes", 2)])
    .describe("The request to check: exactly one of resourceAttributes and nonResourceAttributes.")
}

/// `SubjectAccessReviewStatus`: the chain's answer.
fn subject_access_review_status() -> Schema {
    Schema::object([
        (
            "allowed",
            Schema::boolean().describe("Whether the request would be allowed."),
        ),
        (
            "denied",
            Schema::boolean().describe("Whether an authorizer denied the request outright."),
        ),
        (
            "reason",
            Schema::string().describe("Why the request was allowed or denied."),
        ),
        (
            "evaluationError",
            Schema::string().describe("Errors met while deciding, if any."),
        ),
    ])
    .proto_fields([
        ("allowed", 1),
        ("reason", 2),
        ("evaluationError", 3),
        ("denied", 4),
    ])
    .describe("Whether the request would be allowed.")
}

/// A `*SubjectAccessReview` with its spec.
fn access_review(spec: Schema, description: &str) -> Schema {
    question([("spec", spec), ("status", subject_access_review_status())])
        .proto_fields([("metadata", 1), ("spec", 2), ("status", 3)])
        .describe(description.to_string())
}

/// The schema of an `authorization/v1` SubjectAccessReview (and, with the
/// same fields, LocalSubjectAccessReview).
#[must_use]
pub fn subject_access_review_schema() -> Schema {
    access_review(
        subject_access_review_spec(),
        "SubjectAccessReview asks whether a user or group may perform an action.",
    )
}

/// The schema of an `authorization/v1` LocalSubjectAccessReview.
#[must_use]
pub fn local_subject_access_review_schema() -> Schema {
    access_review(
        subject_access_review_spec(),
        "LocalSubjectAccessReview asks whether a user or group may perform an action in a namespace.",
    )
}

/// The schema of an `authorization/v1` SelfSubjectAccessReview.
#[must_use]
pub fn self_subject_access_review_schema() -> Schema {
    access_review(
        self_subject_access_review_spec(),
        "SelfSubjectAccessReview asks whether the requester may perform an action.",
    )
}

/// The schema of an `authorization/v1` SelfSubjectRulesReview.
#[must_use]
pub fn self_subject_rules_review_schema() -> Schema {
    let resource_rule = Schema::object([
        ("verbs", Schema::string_list().atomic_list()),
        ("apiGroups", Schema::string_list().atomic_list()),
        ("resources", Schema::string_list().atomic_list()),
        ("resourceNames", Schema::string_list().atomic_list()),
    ])
    .proto_fields([
        ("verbs", 1),
        ("apiGroups", 2),
        ("resources", 3),
        ("resourceNames", 4),
    ])
    .describe("Verbs the requester may use on resources of groups, perhaps only some names.");
    let non_resource_rule = Schema::object([
        ("verbs", Schema::string_list().atomic_list()),
        ("nonResourceURLs", Schema::string_list().atomic_list()),
    ])
    .proto_fields([("verbs", 1), ("nonResourceURLs", 2)])
    .describe("Verbs the requester may use on paths that are not resources.");
    let status = Schema::object([
        ("resourceRules", Schema::array(resource_rule).atomic_list()),
        (
            "nonResourceRules",
            Schema::array(non_resource_rule).atomic_list(),
        ),
        (
            "incomplete",
            Schema::boolean().describe("The rules listed are not all the requester may do."),
        ),
        (
            "evaluationError",
            Schema::string().describe("Why the rules may be incomplete."),
        ),
    ])
    .proto_fields([
        ("resourceRules", 1),
        ("nonResourceRules", 2),
        ("incomplete", 3),
        ("evaluationError", 4),
    ])
    .describe("What the requester may do in the namespace.");
    let spec = Schema::object([(
        "namespace",
        Schema::string().describe("The namespace to list the rules of."),
    )])
    .proto_fields([("namespace", 1)])
    .describe("The namespace to evaluate.");
    question([("spec", spec), ("status", status)])
        .proto_fields([("metadata", 1), ("spec", 2), ("status", 3)])
        .describe("SelfSubjectRulesReview lists what the requester may do in a namespace.")
}

/// The answerers of the four reviews.
pub struct Answerers {
    pub subject_access_review: Arc<dyn Answerer>,
    pub self_subject_access_review: Arc<dyn Answerer>,
    pub local_subject_access_review: Arc<dyn Answerer>,
    pub self_subject_rules_review: Arc<dyn Answerer>,
}

/// Registers the four review kinds with their answerers.
pub fn add(registry: &Registry, api_domain: &str, answerers: Answerers) {
    let group = format!("authorization.{api_domain}");
    let kinds = [
        (
            "SelfSubjectAccessReview",
            "selfsubjectaccessreviews",
            false,
            self_subject_access_review_schema(),
            answerers.self_subject_access_review,
        ),
        (
            "SelfSubjectRulesReview",
            "selfsubjectrulesreviews",
            false,
            self_subject_rules_review_schema(),
            answerers.self_subject_rules_review,
        ),
        (
            "SubjectAccessReview",
            "subjectaccessreviews",
            false,
            subject_access_review_schema(),
            answerers.subject_access_review,
        ),
        (
            "LocalSubjectAccessReview",
            "localsubjectaccessreviews",
            true,
            local_subject_access_review_schema(),
            answerers.local_subject_access_review,
        ),
    ];
    for (kind, resource, namespaced, schema, answerer) in kinds {
        registry.add(KindSpec {
            answered_by: Some(answerer),
            ..KindSpec::new(&group, "v1", kind, resource, namespaced, schema)
        });
    }
}
