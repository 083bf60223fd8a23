//! Custom resources: the `KindSpec`s a CustomResourceDefinition defines (one
//! per served version, all stored in the storage version's form) and the
//! strategy their objects follow (status dropped on create when `/status` is
//! a subresource, CEL rules); schema defaults apply in the store's admission.

use std::cmp::Reverse;
use std::sync::Arc;

use serde_json::Value;

use crate::api::cel::{self, Requester};
use crate::api::deprecation::{CrdVersion, Deprecation};
use crate::api::error::Cause;
use crate::api::kind::{Column, Conversion, KindSpec, Origin, ScalePaths, Strategy, Subresources};
use crate::api::object::{str_at, strings_at};
use crate::api::schema::{self, Schema};

/// `.spec.replicas` → `["spec", "replicas"]`; `None` unless a simple path.
#[must_use]
pub fn simple_json_path(path: &str) -> Option<Vec<String>> {
    let rest = path.strip_prefix('.')?;
    let segments: Vec<String> = rest.split('.').map(str::to_string).collect();
    segments
        .iter()
        .all(|s| !s.is_empty() && !s.contains(['[', ']', '*', '$', '@', ' ']))
        .then_some(segments)
}

/// Kubernetes' ordering of version names: GA before beta before alpha,
/// higher numbers first, then anything else alphabetically.
#[must_use]
pub fn version_priority(name: &str) -> (u8, u64, u64, Reverse<String>) {
    let other = (0, 0, 0, Reverse(name.to_string()));
    let Some(rest) = name.strip_prefix('v') else {
        return other;
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let Ok(major) = rest[..digits].parse::<u64>() else {
        return other;
    };
    let tail = &rest[digits..];
    let (tier, minor) = if tail.is_empty() {
        (3, 0)
    } else if let Some(n) = tail.strip_prefix("beta") {
        (2, n.parse().unwrap_or(u64::MAX))
    } else if let Some(n) = tail.strip_prefix("alpha") {
        (1, n.parse().unwrap_or(u64::MAX))
    } else {
        return other;
    };
    if minor == u64::MAX {
        return other;
    }
    // Lower pre-release numbers rank lower: v1beta2 before v1beta1.
    (tier, major, minor, Reverse(String::new()))
}

/// Conversion `None` between versions: only `apiVersion` changes, which the
/// kind's storage edges do. Set when older storage versions may still hold
/// objects, so that no stored bytes are served as they are.
struct ApiVersionOnly;

impl Conversion for ApiVersionOnly {
    fn served_to_storage(&self, served: Value) -> Value {
        served
    }

    fn storage_to_served(&self, stored: Value) -> Value {
        stored
    }
}

/// The warning a deprecated CRD version `v` answers every request with.
fn deprecation(group: &str, version: &str, kind: &str, v: &Value, all: &[Value]) -> Deprecation {
    let others: Vec<CrdVersion<'_>> = all
        .iter()
        .map(|o| CrdVersion {
            name: str_at(o, "/name"),
            served: o.get("served").and_then(Value::as_bool) == Some(true),
            deprecated: o.get("deprecated").and_then(Value::as_bool) == Some(true),
        })
        .collect();
    let own = v.get("deprecationWarning").and_then(Value::as_str);
    Deprecation::custom(group, version, kind, own, &others)
}

/// How objects of one CRD version are prepared and checked.
pub struct CustomResourceStrategy {
    schema: Schema,
    status_subresource: bool,
}

impl Strategy for CustomResourceStrategy {
    fn prepare_for_create(&self, obj: &mut Value) {
        if self.status_subresource
            && let Some(o) = obj.as_object_mut()
        {
            o.remove("status");
        }
    }

    fn validate(&self, obj: &Value) -> Vec<Cause> {
        rule_causes(&self.schema, obj, None, None)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<Cause> {
        rule_causes(&self.schema, new, Some(old), None)
    }

    fn validate_by(&self, obj: &Value, requester: &Requester<'_>) -> Vec<Cause> {
        rule_causes(&self.schema, obj, None, Some(requester))
    }

    fn validate_update_by(
        &self,
        new: &Value,
        old: &Value,
        requester: &Requester<'_>,
    ) -> Vec<Cause> {
        rule_causes(&self.schema, new, Some(old), Some(requester))
    }
}

/// The CEL rules' failures; rules using `authorizer` run only for a write
/// (`requester`).
fn rule_causes(
    schema: &Schema,
    new: &Value,
    old: Option<&Value>,
    requester: Option<&Requester<'_>>,
) -> Vec<Cause> {
    match requester {
        Some(r) => cel::validate_rules_by(schema, new, old, r),
        None => schema::validate_rules(schema, new, old),
    }
    .into_iter()
    .map(|e| Cause::new(e.reason(), e.field.clone(), e.body()))
    .collect()
}

/// The schema a version's objects are checked against: the CRD's, with
/// `apiVersion`, `kind` and the standard `metadata` always declared.
fn object_schema(doc: &Value) -> Result<Schema, String> {
    let mut s = Schema::from_openapi(doc).map_err(|errors| {
        errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    })?;
    for (name, field) in [
        ("apiVersion", Schema::string()),
        ("kind", Schema::string()),
        ("metadata", Schema::object_meta()),
    ] {
        match s.properties.iter_mut().find(|(n, _)| n == name) {
            Some((_, existing)) => *existing = field,
            None => s.properties.insert(0, (name.to_string(), field)),
        }
    }
    Ok(s)
}

fn columns(version: &Value) -> Vec<Column> {
    let declared = version
        .get("additionalPrinterColumns")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    // Kubernetes serves an Age column when a version declares none.
    if declared.is_empty() {
        let mut c = Column::defaults();
        c[1].name = "Age".into();
        c[1].elapsed = true;
        return c;
    }
    let mut out = vec![Column::defaults().remove(0)];
    for c in &declared {
        let mut col = Column::new(
            str_at(c, "/name"),
            str_at(c, "/type"),
            c.get("priority")
                .and_then(Value::as_i64)
                .unwrap_or(0)
                .try_into()
                .unwrap_or(0),
            str_at(c, "/jsonPath"),
            str_at(c, "/description"),
        );
        col.format = str_at(c, "/format").to_string();
        col.elapsed = col.type_ == "date";
        out.push(col);
    }
    out
}

/// The kinds a CRD serves, highest-priority version first.
pub fn kinds_for_crd(crd: &Value) -> Result<Vec<KindSpec>, String> {
    let crd_name = str_at(crd, "/metadata/name").to_string();
    let group = str_at(crd, "/spec/group");
    let plural = str_at(crd, "/spec/names/plural");
    let kind_name = str_at(crd, "/spec/names/kind");
    let namespaced = str_at(crd, "/spec/scope") == "Namespaced";
    let versions = crd
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let storage_version = versions
        .iter()
        .find(|v| v.get("storage").and_then(Value::as_bool) == Some(true))
        .map(|v| str_at(v, "/name").to_string())
        .ok_or("no storage version")?;
    let mut kinds = Vec::new();
    for v in versions
        .iter()
        .filter(|v| v.get("served").and_then(Value::as_bool) == Some(true))
    {
        let version = str_at(v, "/name");
        let schema = object_schema(v.pointer("/schema/openAPIV3Schema").unwrap_or(&Value::Null))?;
        let status_subresource = v
            .pointer("/subresources/status")
            .is_some_and(|s| !s.is_null());
        let scale = v
            .pointer("/subresources/scale")
            .filter(|s| s.is_object())
            .map(|s| ScalePaths {
                spec_replicas: str_at(s, "/specReplicasPath").to_string(),
                status_replicas: str_at(s, "/statusReplicasPath").to_string(),
                label_selector: s
                    .get("labelSelectorPath")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            });
        let mut spec = KindSpec::new(
            group,
            version,
            kind_name,
            plural,
            namespaced,
            schema.clone(),
        );
        spec.list_kind = str_at(crd, "/spec/names/listKind").to_string();
        spec.singular = str_at(crd, "/spec/names/singular").to_string();
        spec.short_names = strings_at(crd, "/spec/names/shortNames");
        spec.categories = strings_at(crd, "/spec/names/categories");
        spec.strategy = Arc::new(CustomResourceStrategy {
            schema,
            status_subresource,
        });
        spec.selectable_fields = v
            .get("selectableFields")
            .and_then(Value::as_array)
            .map(|f| {
                f.iter()
                    .filter_map(|f| f.get("jsonPath").and_then(Value::as_str))
                    .filter_map(|p| p.strip_prefix('.'))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        spec.columns = columns(v);
        spec.subresources = Subresources {
            status: status_subresource,
            scale,
            ..Subresources::default()
        };
        spec.storage.api_version = format!("{group}/{storage_version}");
        if strings_at(crd, "/status/storedVersions")
            .iter()
            .any(|v| *v != storage_version)
        {
            spec.storage.conversion = Some(Arc::new(ApiVersionOnly));
        }
        if v.get("deprecated").and_then(Value::as_bool) == Some(true) {
            spec.deprecation = Some(deprecation(group, version, kind_name, v, &versions));
        }
        spec.tracks_generation = true;
        spec.origin = Origin::Crd(crd_name.clone());
        // Custom resources have no unconditional updates, as in Kubernetes.
        spec.unconditional_update = false;
        kinds.push(spec);
    }
    kinds.sort_by_key(|k| Reverse(version_priority(&k.version)));
    Ok(kinds)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn versions_sort_as_kubernetes_does() {
        let mut v = vec![
            "v1alpha1", "foo", "v2", "v1beta2", "v1", "v1beta1", "bar", "v10",
        ];
        v.sort_by_key(|n| Reverse(version_priority(n)));
        assert_eq!(
            v,
            [
                "v10", "v2", "v1", "v1beta2", "v1beta1", "v1alpha1", "bar", "foo"
            ]
        );
    }

    #[test]
    fn simple_paths() {
        assert_eq!(
            simple_json_path(".spec.replicas"),
            Some(vec!["spec".to_string(), "replicas".to_string()])
        );
        assert_eq!(simple_json_path("spec"), None);
        assert_eq!(simple_json_path(".a..b"), None);
        assert_eq!(simple_json_path(".a[0]"), None);
    }

    #[test]
    fn kinds_follow_the_crd() {
        let crd = json!({
            "metadata": {"name": "widgets.x.io"},
            "spec": {"group": "x.io", "scope": "Cluster",
                "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList", "shortNames": ["wd"]},
                "versions": [
                    {"name": "v1beta1", "served": true, "storage": false, "schema": {"openAPIV3Schema": {"type": "object"}}},
                    {"name": "v1", "served": true, "storage": true, "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}},
                     "additionalPrinterColumns": [{"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"}],
                     "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": {"replicas": {"type": "integer"}}}}}}},
                    {"name": "v0", "served": false, "storage": false, "schema": {"openAPIV3Schema": {"type": "object"}}}
                ]}
        });
        let kinds = kinds_for_crd(&crd).expect("valid");
        assert_eq!(
            kinds.iter().map(|k| k.version.as_str()).collect::<Vec<_>>(),
            ["v1", "v1beta1"]
        );
        let v1 = &kinds[0];
        assert!(!v1.namespaced && v1.subresources.status && v1.subresources.scale.is_some());
        assert_eq!(v1.storage.api_version, "x.io/v1");
        assert_eq!(kinds[1].storage.api_version, "x.io/v1");
        assert!(!kinds[1].stores_served_form());
        assert_eq!(
            v1.columns
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>(),
            ["Name", "Replicas"]
        );
        assert_eq!(
            kinds[1]
                .columns
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>(),
            ["Name", "Age"]
        );
        assert_eq!(v1.storage.prefix, "/registry/x.io/widgets/");
        assert!(v1.schema.property("metadata").is_some());
    }
}
