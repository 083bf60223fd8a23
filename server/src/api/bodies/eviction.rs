//! `policy/v1` Eviction bodies (POST `pods/<name>/eviction`): an Eviction
//! names the pod it evicts, in the URL's namespace, and may carry
//! DeleteOptions.

use std::sync::LazyLock;

use serde_json::Value;

use super::{BodyType, delete_options};
use crate::api::error::ApiError;
use crate::api::object;
use crate::api::schema::Schema;
use crate::api::store::DeleteOptions;

/// The schema of a `policy/v1` Eviction, with its protobuf field numbers.
#[must_use]
pub fn schema() -> Schema {
    Schema::resource([("deleteOptions", delete_options::schema())])
        .proto_fields([("metadata", 1), ("deleteOptions", 2)])
        .describe(
            "Eviction evicts a pod from its node subject to certain policies and safety constraints.",
        )
}

/// The schema, made once.
#[must_use]
pub fn shared_schema() -> &'static Schema {
    &SCHEMA
}

static SCHEMA: LazyLock<Schema> = LazyLock::new(schema);

/// The DeleteOptions of an Eviction of pod `name` in `namespace`, or why
/// the body is not one.
pub fn decode(
    body: &Value,
    name: &str,
    namespace: Option<&str>,
) -> Result<DeleteOptions, ApiError> {
    BodyType {
        kind: "Eviction",
        group: "policy",
        api_versions: &["policy/v1", "policy/v1beta1"],
        schema: &SCHEMA,
    }
    .check(body)?;
    let named = object::meta_str(body, "name").unwrap_or_default();
    if named != name {
        return Err(ApiError::BadRequest(format!(
            "name in URL does not match name in Eviction object: {name} != {named:?}"
        )));
    }
    object::check_url_namespace(body, namespace)?;
    delete_options::merge(
        DeleteOptions::default(),
        body.get("deleteOptions").unwrap_or(&Value::Null),
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_eviction_names_its_pod() {
        let ok = json!({"apiVersion": "policy/v1", "kind": "Eviction",
                        "metadata": {"name": "p", "namespace": "ns"},
                        "deleteOptions": {"gracePeriodSeconds": 0}});
        assert_eq!(
            decode(&ok, "p", Some("ns"))
                .expect("valid")
                .grace_period_seconds,
            Some(0)
        );
        for bad in [
            json!({}),
            json!(null),
            json!([]),
            json!({"metadata": {"name": "q"}}),
            json!({"metadata": {"name": "p", "namespace": "other"}}),
            json!({"metadata": {"name": "p", "namespace": "../ns"}}),
            json!({"metadata": {"name": "p"}, "kind": "Pod"}),
            json!({"metadata": {"name": "p"}, "apiVersion": "v1"}),
            json!({"metadata": "p"}),
            json!({"metadata": {"name": "p"}, "deleteOptions": {"gracePeriodSeconds": "soon"}}),
            json!({"metadata": {"name": "p"}, "deleteOptions": []}),
        ] {
            assert!(
                matches!(decode(&bad, "p", Some("ns")), Err(e) if e.code() == 400),
                "{bad}"
            );
        }
    }
}
