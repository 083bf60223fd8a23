//! `apiextensions.{domain}/v1` CustomResourceDefinition as data: its schema,
//! defaults and strategy (the validation Kubernetes applies before a CRD is
//! stored is in `crd_validation`).

use serde_json::{Value, json};

use std::time::SystemTime;

use crate::api::error::{ApiError, Cause};
use crate::api::kind::{DeleteAction, Strategy};
use crate::api::kinds::crd_validation::validate_crd;
use crate::api::object::{self, str_at, strings_at};
use crate::api::schema::Schema;
use crate::util::time;

fn names_schema() -> Schema {
    Schema::object([
        ("plural", Schema::string()),
        ("singular", Schema::string()),
        ("shortNames", Schema::string_list().atomic_list()),
        ("kind", Schema::string()),
        ("listKind", Schema::string()),
        ("categories", Schema::string_list().atomic_list()),
    ])
    .required(["plural", "kind"])
}

fn version_schema() -> Schema {
    let column = Schema::object([
        ("name", Schema::string()),
        ("type", Schema::string()),
        ("format", Schema::string()),
        ("description", Schema::string()),
        ("priority", Schema::integer_i32()),
        ("jsonPath", Schema::string()),
    ])
    .required(["name", "type", "jsonPath"]);
    Schema::object([
        ("name", Schema::string()),
        ("served", Schema::boolean()),
        ("storage", Schema::boolean()),
        ("deprecated", Schema::boolean()),
        ("deprecationWarning", Schema::string()),
        (
            "schema",
            Schema::object([("openAPIV3Schema", Schema::free_form_object())]),
        ),
        (
            "subresources",
            Schema::object([
                ("status", Schema::free_form_object()),
                (
                    "scale",
                    Schema::object([
                        ("specReplicasPath", Schema::string()),
                        ("statusReplicasPath", Schema::string()),
                        ("labelSelectorPath", Schema::string()),
                    ])
                    .required(["specReplicasPath", "statusReplicasPath"]),
                ),
            ]),
        ),
        (
            "additionalPrinterColumns",
            Schema::array(column).atomic_list(),
        ),
        (
            "selectableFields",
            Schema::array(Schema::object([("jsonPath", Schema::string())]).required(["jsonPath"]))
                .atomic_list(),
        ),
    ])
    .required(["name", "served", "storage"])
}

/// The schema of a CustomResourceDefinition.
#[must_use]
pub fn schema() -> Schema {
    let condition = Schema::condition();
    Schema::resource([
        (
            "spec",
            Schema::object([
                ("group", Schema::string()),
                ("names", names_schema()),
                ("scope", Schema::string()),
                ("versions", Schema::array(version_schema()).atomic_list()),
                (
                    "conversion",
                    Schema::object([
                        ("strategy", Schema::string()),
                        ("webhook", Schema::free_form_object()),
                    ])
                    .required(["strategy"]),
                ),
                ("preserveUnknownFields", Schema::boolean()),
            ])
            .required(["group", "names", "scope", "versions"]),
        ),
        (
            "status",
            Schema::object([
                ("conditions", Schema::array(condition).map_list(["type"])),
                ("acceptedNames", names_schema()),
                ("storedVersions", Schema::string_list().atomic_list()),
            ]),
        ),
    ])
    .required(["spec"])
    .describe(
        "CustomResourceDefinition represents a resource that should be exposed on the API server.",
    )
}

/// The finalizer a deleted CRD carries while its objects are removed.
#[must_use]
pub fn cleanup_finalizer(domain: &str) -> String {
    format!("customresourcecleanup.apiextensions.{domain}")
}

/// Validation and defaults of CRDs; deletion waits on `finalizer` (the
/// CRD controller's) while instances are removed.
pub struct CrdStrategy {
    pub finalizer: String,
}

fn set_default(obj: &mut Value, pointer: &str, field: &str, value: Value) {
    if let Some(o) = obj.pointer_mut(pointer).and_then(Value::as_object_mut)
        && o.get(field).is_none_or(Value::is_null)
    {
        o.insert(field.into(), value);
    }
}

/// Fills what Kubernetes defaults in a CRD.
fn default_spec(obj: &mut Value) {
    let kind = obj
        .pointer("/spec/names/kind")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    set_default(
        obj,
        "/spec/names",
        "singular",
        json!(kind.to_ascii_lowercase()),
    );
    set_default(obj, "/spec/names", "listKind", json!(format!("{kind}List")));
    set_default(obj, "/spec", "conversion", json!({"strategy": "None"}));
    if let Some(versions) = obj
        .pointer_mut("/spec/versions")
        .and_then(Value::as_array_mut)
    {
        for v in versions {
            if let Some(columns) = v
                .get_mut("additionalPrinterColumns")
                .and_then(Value::as_array_mut)
            {
                for c in columns.iter_mut().filter_map(Value::as_object_mut) {
                    c.entry("priority").or_insert(json!(0));
                }
            }
        }
    }
}

impl Strategy for CrdStrategy {
    fn prepare_for_create(&self, obj: &mut Value) {
        default_spec(obj);
        obj["status"] = json!({"conditions": [], "acceptedNames": {"plural": "", "kind": ""}, "storedVersions": []});
    }

    fn prepare_for_update(&self, new: &mut Value, _old: &Value) {
        default_spec(new);
    }

    fn validate(&self, obj: &Value) -> Vec<Cause> {
        validate_crd(obj)
    }

    fn on_delete(&self, obj: &Value) -> Result<DeleteAction, ApiError> {
        let mut next = obj.clone();
        let meta = object::metadata_mut(&mut next);
        meta.insert(
            "deletionTimestamp".into(),
            json!(time::rfc3339(SystemTime::now())),
        );
        meta.insert("deletionGracePeriodSeconds".into(), json!(0));
        meta.insert("finalizers".into(), json!([self.finalizer]));
        Ok(DeleteAction::Update(next))
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<Cause> {
        let mut causes = validate_crd(new);
        if new.pointer("/spec/scope") != old.pointer("/spec/scope") {
            let scope = str_at(new, "/spec/scope");
            causes.push(Cause::invalid("spec.scope", scope, "field is immutable"));
        }
        // A version that still holds stored objects cannot disappear.
        let stored = strings_at(old, "/status/storedVersions");
        let versions: Vec<&str> = new
            .pointer("/spec/versions")
            .and_then(Value::as_array)
            .map(|vs| vs.iter().map(|v| str_at(v, "/name")).collect())
            .unwrap_or_default();
        for s in &stored {
            if !versions.contains(&s.as_str()) {
                causes.push(Cause::invalid(
                    "status.storedVersions[0]",
                    s,
                    "must appear in spec.versions",
                ));
            }
        }
        causes
    }
}
