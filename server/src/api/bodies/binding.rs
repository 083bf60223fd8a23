//! core/v1 Binding bodies (what a scheduler POSTs to `pods/<name>/binding`
//! or to a namespace's `bindings`): the pod to assign, the node to assign
//! it to, and annotations to copy onto the pod.

use serde_json::{Map, Value};

use super::BodyType;
use crate::api::error::{ApiError, Cause};
use crate::api::object;
use crate::api::schema::Schema;

/// The schema of a core/v1 Binding, with its protobuf field numbers.
#[must_use]
pub fn schema() -> Schema {
    Schema::resource([("target", Schema::object_reference())])
        .proto_fields([("metadata", 1), ("target", 2)])
        .describe(
            "Binding ties one object to another; for example, a pod is bound to a node by a scheduler.",
        )
}

/// What a Binding asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct Assignment {
    /// The pod bound.
    pub pod: String,
    /// The node it is bound to.
    pub node: String,
    /// Annotations copied onto the pod.
    pub annotations: Map<String, Value>,
    /// Preconditions on the pod, when the Binding names them.
    pub uid: Option<String>,
    pub resource_version: Option<String>,
}

/// The assignment a Binding body asks for, or why it is not one. `url_name`
/// is the pod named by the URL (`pods/<name>/binding`), which the Binding
/// must name too; the `bindings` collection takes the name from the body.
pub fn decode(
    body: &Value,
    url_name: Option<&str>,
    namespace: Option<&str>,
) -> Result<Assignment, ApiError> {
    BodyType {
        kind: "Binding",
        group: "",
        api_versions: &["v1"],
        schema: &schema(),
    }
    .check(body)?;
    object::check_url_namespace(body, namespace)?;
    let named = object::meta_str(body, "name").unwrap_or_default();
    if let Some(url_name) = url_name
        && named != url_name
    {
        return Err(ApiError::BadRequest(
            "name in URL does not match name in Binding object".into(),
        ));
    }
    let target = |field: &str| {
        body.pointer(&format!("/target/{field}"))
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    let mut causes = Vec::new();
    if named.is_empty() {
        causes.push(Cause::required("metadata.name"));
    }
    let target_kind = target("kind");
    if !target_kind.is_empty() && target_kind != "Node" {
        causes.push(Cause::new(
            "FieldValueNotSupported",
            "target.kind",
            format!("Unsupported value: {target_kind:?}: supported values: \"Node\", \"<empty>\""),
        ));
    }
    if target("name").is_empty() {
        causes.push(Cause::required("target.name"));
    }
    if !causes.is_empty() {
        return Err(ApiError::Invalid {
            kind: "Binding".into(),
            group: String::new(),
            name: named.to_string(),
            causes,
            code: 422,
        });
    }
    let precondition = |field: &str| {
        object::meta_str(body, field)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    Ok(Assignment {
        pod: named.to_string(),
        node: target("name").to_string(),
        annotations: body
            .pointer("/metadata/annotations")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default(),
        uid: precondition("uid"),
        resource_version: precondition("resourceVersion"),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_binding_names_its_pod_and_a_node() {
        let ok = json!({"apiVersion": "v1", "kind": "Binding",
                        "metadata": {"name": "p", "annotations": {"a": "b"}},
                        "target": {"kind": "Node", "name": "n1"}});
        let got = decode(&ok, Some("p"), Some("ns")).expect("valid");
        assert_eq!((got.pod.as_str(), got.node.as_str()), ("p", "n1"));
        assert_eq!(got.annotations["a"], "b");
        assert_eq!(decode(&ok, None, None).expect("valid").pod, "p");
        let wrong_name = decode(&ok, Some("q"), Some("ns")).expect_err("other pod");
        assert_eq!(wrong_name.code(), 400);
        for (bad, code) in [
            (
                json!({"metadata": {"name": "p"}, "target": {"name": ""}}),
                422,
            ),
            (
                json!({"metadata": {"name": "p"}, "target": {"kind": "Pod", "name": "n"}}),
                422,
            ),
            (json!({"metadata": {"name": "p"}}), 422),
            (json!({"metadata": {"name": "p"}, "target": "n"}), 400),
            (
                json!({"metadata": {"name": "p", "namespace": "other"}, "target": {"name": "n"}}),
                400,
            ),
            (
                json!({"kind": "Pod", "metadata": {"name": "p"}, "target": {"name": "n"}}),
                400,
            ),
            (json!([]), 400),
        ] {
            assert!(
                matches!(decode(&bad, Some("p"), Some("ns")), Err(e) if e.code() == code),
                "{bad}"
            );
        }
    }
}
