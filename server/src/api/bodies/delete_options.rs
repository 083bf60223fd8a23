//! `DeleteOptions` bodies (DELETE, DELETE-collection, an Eviction's
//! `deleteOptions`): typed as Kubernetes decodes them, merged over the
//! options the query gave.

use std::sync::LazyLock;

use serde_json::Value;

use super::BodyType;
use crate::api::error::ApiError;
use crate::api::schema::Schema;
use crate::api::store::{DeleteOptions, parse_rv};

/// The schema of `meta/v1` DeleteOptions.
#[must_use]
pub fn schema() -> Schema {
    Schema::object([
        ("apiVersion", Schema::string()),
        ("dryRun", Schema::string_list().atomic_list()),
        ("gracePeriodSeconds", Schema::integer_i64()),
        (
            "ignoreStoreReadErrorWithClusterBreakingPotential",
            Schema::boolean(),
        ),
        ("kind", Schema::string()),
        ("orphanDependents", Schema::boolean()),
        (
            "preconditions",
            Schema::object([
                ("resourceVersion", Schema::string()),
                ("uid", Schema::string()),
            ])
            .proto_fields([("uid", 1), ("resourceVersion", 2)]),
        ),
        ("propagationPolicy", Schema::string()),
    ])
    .proto_fields([
        ("gracePeriodSeconds", 1),
        ("preconditions", 2),
        ("orphanDependents", 3),
        ("propagationPolicy", 4),
        ("dryRun", 5),
        ("ignoreStoreReadErrorWithClusterBreakingPotential", 6),
    ])
    .describe("DeleteOptions may be provided when deleting an API object.")
}

static SCHEMA: LazyLock<Schema> = LazyLock::new(schema);

/// `opts` with the fields of a DeleteOptions body added. Kubernetes
/// registers DeleteOptions in every group version, so any apiVersion is
/// accepted; another kind, a body that is not an object and wrongly typed
/// fields are 400s. `null` is Go's "no options".
pub fn merge(mut opts: DeleteOptions, body: &Value) -> Result<DeleteOptions, ApiError> {
    if body.is_null() {
        return Ok(opts);
    }
    BodyType {
        kind: "DeleteOptions",
        group: "meta.k8s.io",
        api_versions: &[],
        schema: &SCHEMA,
    }
    .check(body)?;
    if let Some(dry) = body.get("dryRun").and_then(Value::as_array) {
        for d in dry {
            if d.as_str() != Some("All") {
                return Err(ApiError::BadRequest(format!(
                    "dryRun: Unsupported value: {d}: supported values: \"All\""
                )));
            }
        }
        opts.dry_run |= !dry.is_empty();
    }
    if let Some(g) = body.get("gracePeriodSeconds").and_then(Value::as_i64) {
        opts.grace_period_seconds = Some(g);
    }
    if let Some(p) = body.get("propagationPolicy").and_then(Value::as_str) {
        if !matches!(p, "Orphan" | "Background" | "Foreground") {
            return Err(ApiError::BadRequest(format!(
                "propagationPolicy: Unsupported value: {p:?}: supported values: \"Foreground\", \"Background\", \"Orphan\""
            )));
        }
        opts.propagation_policy = Some(p.into());
    }
    if let Some(o) = body.get("orphanDependents").and_then(Value::as_bool) {
        opts.orphan_dependents = Some(o);
    }
    if opts.orphan_dependents.is_some() && opts.propagation_policy.is_some() {
        return Err(ApiError::BadRequest("propagationPolicy: Invalid value: orphanDependents and propagationPolicy cannot both be set".into()));
    }
    if let Some(pre) = body.get("preconditions") {
        opts.precondition_uid = pre.get("uid").and_then(Value::as_str).map(str::to_string);
        opts.precondition_rv = parse_rv(pre.get("resourceVersion").and_then(Value::as_str))?;
    }
    if let Some(u) = body
        .get("ignoreStoreReadErrorWithClusterBreakingPotential")
        .and_then(Value::as_bool)
    {
        opts.unsafe_delete = u;
    }
    Ok(opts)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn refused(body: Value) -> String {
        match merge(DeleteOptions::default(), &body) {
            Err(e) => e.to_string(),
            Ok(o) => panic!("{body} was accepted: {o:?}"),
        }
    }

    #[test]
    fn malformed_bodies_are_refused() {
        for body in [json!([]), json!("x"), json!(5), json!(true)] {
            assert!(
                refused(body.clone()).contains("must be a DeleteOptions object"),
                "{body}"
            );
        }
        assert!(refused(json!({"gracePeriodSeconds": "soon"})).contains("gracePeriodSeconds"));
        assert!(refused(json!({"gracePeriodSeconds": 1.5})).contains("gracePeriodSeconds"));
        assert!(refused(json!({"preconditions": {"uid": 5}})).contains("preconditions.uid"));
        assert!(refused(json!({"preconditions": "x"})).contains("preconditions"));
        assert!(refused(json!({"dryRun": "All"})).contains("dryRun"));
        assert!(refused(json!({"orphanDependents": "yes"})).contains("orphanDependents"));
        assert!(refused(json!({"kind": "Pod", "apiVersion": "v1"})).contains("(Pod)"));
        assert!(refused(json!({"preconditions": {"resourceVersion": "abc"}})).contains("abc"));
    }

    #[test]
    fn well_formed_bodies_set_options() {
        let o = merge(
            DeleteOptions::default(),
            &json!({"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1", "gracePeriodSeconds": 5,
                    "preconditions": {"uid": "u", "resourceVersion": "7"}, "dryRun": ["All"],
                    "propagationPolicy": "Foreground", "unknown": 1}),
        )
        .expect("valid");
        assert_eq!(o.grace_period_seconds, Some(5));
        assert_eq!(o.precondition_uid.as_deref(), Some("u"));
        assert_eq!(o.precondition_rv, Some(7));
        assert!(o.dry_run);
        assert_eq!(o.propagation_policy.as_deref(), Some("Foreground"));
        assert!(merge(DeleteOptions::default(), &Value::Null).is_ok());
        assert!(
            merge(
                DeleteOptions::default(),
                &json!({"kind": "DeleteOptions", "apiVersion": "v1"})
            )
            .is_ok()
        );
    }
}
