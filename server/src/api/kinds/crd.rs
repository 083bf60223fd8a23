//! `apiextensions.{domain}/v1` CustomResourceDefinition as data: its schema,
//! defaults and the validation Kubernetes applies before a CRD is stored
//! (names, versions, one storage version, a structural `openAPIV3Schema`).

use serde_json::{Value, json};

use std::time::SystemTime;

use crate::api::error::{ApiError, Cause};
use crate::api::kind::NameRule;
use crate::api::kind::{DeleteAction, Strategy};
use crate::api::meta::{is_subdomain, name_problem};
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

/// Kubernetes' CRD validation (the parts cairn serves).
fn validate_crd(obj: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    let group = str_at(obj, "/spec/group");
    let plural = str_at(obj, "/spec/names/plural");
    let name = str_at(obj, "/metadata/name");
    if name != format!("{plural}.{group}") {
        causes.push(Cause::invalid(
            "metadata.name",
            name,
            "must be spec.names.plural+\".\"+spec.group",
        ));
    }
    if group.is_empty() {
        causes.push(Cause::required("spec.group"));
    } else if !group.contains('.') {
        causes.push(Cause::invalid(
            "spec.group",
            group,
            "should be a domain with at least one dot",
        ));
    } else if !is_subdomain(group) {
        causes.push(Cause::invalid(
            "spec.group",
            group,
            &name_problem(group, NameRule::Subdomain).unwrap_or_default(),
        ));
    }
    match str_at(obj, "/spec/scope") {
        "Namespaced" | "Cluster" => {}
        other => causes.push(Cause::new(
            "FieldValueNotSupported",
            "spec.scope",
            format!("Unsupported value: {other:?}: supported values: \"Cluster\", \"Namespaced\""),
        )),
    }
    for (field, required) in [
        ("plural", true),
        ("singular", false),
        ("kind", true),
        ("listKind", false),
    ] {
        let value = str_at(obj, &format!("/spec/names/{field}"));
        let path = format!("spec.names.{field}");
        if value.is_empty() {
            if required {
                causes.push(Cause::required(path));
            }
            continue;
        }
        let problem = match field {
            "plural" | "singular" => name_problem(value, NameRule::Label),
            _ => (!value.chars().all(|c| c.is_ascii_alphanumeric())
                || value.chars().next().is_some_and(|c| c.is_ascii_digit()))
            .then(|| {
                "may have mixed case, but should otherwise match: ^[a-zA-Z][a-z0-9A-Z]*$".into()
            }),
        };
        if let Some(p) = problem {
            causes.push(Cause::invalid(path, value, &p));
        }
    }
    if let Some(shorts) = obj
        .pointer("/spec/names/shortNames")
        .and_then(Value::as_array)
    {
        for (i, s) in shorts.iter().enumerate() {
            let s = s.as_str().unwrap_or_default();
            if let Some(p) = name_problem(s, NameRule::Label) {
                causes.push(Cause::invalid(format!("spec.names.shortNames[{i}]"), s, &p));
            }
        }
    }
    match str_at(obj, "/spec/conversion/strategy") {
        "" | "None" => {}
        "Webhook" => causes.push(Cause::invalid(
            "spec.conversion.strategy",
            "Webhook",
            "conversion webhooks are not supported by this server; use None",
        )),
        other => causes.push(Cause::new(
            "FieldValueNotSupported",
            "spec.conversion.strategy",
            format!("Unsupported value: {other:?}: supported values: \"None\", \"Webhook\""),
        )),
    }
    if obj.pointer("/spec/preserveUnknownFields") == Some(&Value::Bool(true)) {
        causes.push(Cause::invalid(
            "spec.preserveUnknownFields",
            "true",
            "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
        ));
    }
    causes.extend(validate_versions(obj));
    causes
}

fn validate_versions(obj: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    let versions = obj
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if versions.is_empty() {
        causes.push(Cause::invalid(
            "spec.versions",
            "null",
            "must have exactly one version marked as storage version",
        ));
        return causes;
    }
    let storage = versions
        .iter()
        .filter(|v| v.get("storage").and_then(Value::as_bool) == Some(true))
        .count();
    if storage != 1 {
        causes.push(Cause::invalid(
            "spec.versions",
            "",
            "must have exactly one version marked as storage version",
        ));
    }
    if !versions
        .iter()
        .any(|v| v.get("served").and_then(Value::as_bool) == Some(true))
    {
        causes.push(Cause::invalid(
            "spec.versions",
            "",
            "must have at least one served version",
        ));
    }
    let mut seen = Vec::new();
    for (i, v) in versions.iter().enumerate() {
        let at = format!("spec.versions[{i}]");
        let name = v.get("name").and_then(Value::as_str).unwrap_or_default();
        if let Some(p) = name_problem(name, NameRule::Label) {
            causes.push(Cause::invalid(format!("{at}.name"), name, &p));
        }
        if seen.contains(&name) {
            causes.push(Cause::new(
                "FieldValueDuplicate",
                format!("{at}.name"),
                format!("Duplicate value: {name:?}"),
            ));
        }
        seen.push(name);
        match v.pointer("/schema/openAPIV3Schema") {
            None | Some(Value::Null) => causes.push(
                Cause::required(format!("{at}.schema.openAPIV3Schema"))
                    .with_message("Required value: schemas are required"),
            ),
            Some(doc) => {
                if let Err(errors) = Schema::from_openapi(doc) {
                    for e in errors {
                        let e = e.prefixed(&format!("{at}.schema.openAPIV3Schema"));
                        causes.push(Cause::new(e.reason(), e.field.clone(), e.body()));
                    }
                }
            }
        }
        if let Some(cols) = v.get("additionalPrinterColumns").and_then(Value::as_array) {
            for (j, c) in cols.iter().enumerate() {
                let ty = c.get("type").and_then(Value::as_str).unwrap_or_default();
                if !["integer", "number", "string", "boolean", "date"].contains(&ty) {
                    causes.push(Cause::new(
                        "FieldValueNotSupported",
                        format!("{at}.additionalPrinterColumns[{j}].type"),
                        format!("Unsupported value: {ty:?}: supported values: \"boolean\", \"date\", \"integer\", \"number\", \"string\""),
                    ));
                }
                let path = c
                    .get("jsonPath")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                // As Kubernetes: a path starting with `.`, in the JSONPath
                // kubectl evaluates (array notation and filters included).
                let problem = if !path.starts_with('.') {
                    Some("must be a simple json path starting with .".to_string())
                } else {
                    crate::api::table::jsonpath::JsonPath::parse(path).err()
                };
                if let Some(problem) = problem {
                    causes.push(Cause::invalid(
                        format!("{at}.additionalPrinterColumns[{j}].jsonPath"),
                        path,
                        &problem,
                    ));
                }
            }
        }
    }
    causes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crd() -> Value {
        json!({
            "metadata": {"name": "crontabs.stable.example.com"},
            "spec": {
                "group": "stable.example.com",
                "names": {"plural": "crontabs", "kind": "CronTab", "shortNames": ["ct"]},
                "scope": "Namespaced",
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": {"cronSpec": {"type": "string"}}}}}}}]
            }
        })
    }

    fn fields(obj: &Value) -> Vec<String> {
        validate_crd(obj).into_iter().map(|c| c.field).collect()
    }

    #[test]
    fn a_valid_crd_passes_and_gets_defaults() {
        let mut c = crd();
        CrdStrategy {
            finalizer: String::new(),
        }
        .prepare_for_create(&mut c);
        assert!(fields(&c).is_empty(), "{:?}", validate_crd(&c));
        assert_eq!(c.pointer("/spec/names/singular"), Some(&json!("crontab")));
        assert_eq!(
            c.pointer("/spec/names/listKind"),
            Some(&json!("CronTabList"))
        );
        assert_eq!(c.pointer("/spec/conversion/strategy"), Some(&json!("None")));
    }

    #[test]
    fn invalid_crds_name_each_problem() {
        let mut c = crd();
        c["metadata"]["name"] = json!("wrong.example.com");
        c["spec"]["scope"] = json!("Global");
        c["spec"]["versions"][0]["storage"] = json!(false);
        c["spec"]["versions"][0]["schema"] = json!({});
        let f = fields(&c);
        for want in [
            "metadata.name",
            "spec.scope",
            "spec.versions",
            "spec.versions[0].schema.openAPIV3Schema",
        ] {
            assert!(f.iter().any(|x| x == want), "{want} in {f:?}");
        }
        let mut c = crd();
        c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
            ["x"] = json!({"description": "no type"});
        let f = fields(&c);
        assert!(
            f.iter().any(|x| x.starts_with(
                "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[x]"
            )),
            "{f:?}"
        );
        let mut c = crd();
        c["spec"]["group"] = json!("nodot");
        c["metadata"]["name"] = json!("crontabs.nodot");
        assert_eq!(fields(&c), vec!["spec.group"]);
    }
}
