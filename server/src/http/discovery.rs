//! Discovery documents generated from the registry: `/api`, `/api/v1`,
//! `/apis`, `/apis/{group}`, `/apis/{group}/{version}`, `/version`.

use serde_json::{Value, json};

use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::registry::Registry;

fn resource(kind: &KindSpec) -> Value {
    let mut r = json!({
        "name": kind.resource,
        "singularName": kind.singular,
        "namespaced": kind.namespaced,
        "kind": kind.kind,
        "verbs": kind.verbs(),
    });
    if !kind.short_names.is_empty() {
        r["shortNames"] = json!(kind.short_names);
    }
    if !kind.categories.is_empty() {
        r["categories"] = json!(kind.categories);
    }
    r
}

/// A subresource a kind serves, as discovery and OpenAPI describe it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subresource {
    pub name: &'static str,
    /// The kind read and written there (`Scale`, or the kind itself).
    pub kind: String,
    /// The group/version of `kind` when it is not the parent's.
    pub group_version: Option<(&'static str, &'static str)>,
    pub verbs: &'static [&'static str],
}

/// The subresources of a kind.
#[must_use]
pub fn subresources(kind: &KindSpec) -> Vec<Subresource> {
    const READ_WRITE: &[&str] = &["get", "patch", "update"];
    let mut out = Vec::new();
    if kind.subresources.status {
        out.push(Subresource {
            name: "status",
            kind: kind.kind.clone(),
            group_version: None,
            verbs: READ_WRITE,
        });
    }
    if kind.subresources.approval {
        out.push(Subresource {
            name: "approval",
            kind: kind.kind.clone(),
            group_version: None,
            verbs: READ_WRITE,
        });
    }
    if kind.subresources.scale.is_some() {
        out.push(Subresource {
            name: "scale",
            kind: "Scale".into(),
            group_version: Some(("autoscaling", "v1")),
            verbs: READ_WRITE,
        });
    }
    if kind.subresources.eviction {
        out.push(Subresource {
            name: "eviction",
            kind: "Eviction".into(),
            group_version: Some(("policy", "v1")),
            verbs: &["create"],
        });
    }
    if kind.subresources.binding {
        out.push(Subresource {
            name: "binding",
            kind: "Binding".into(),
            // core/v1: the parent's group, a type of its own.
            group_version: Some(("", "v1")),
            verbs: &["create"],
        });
    }
    if kind.subresources.token_request {
        out.push(Subresource {
            name: "token",
            kind: "TokenRequest".into(),
            group_version: Some(("authentication.k8s.io", "v1")),
            verbs: &["create"],
        });
    }
    if kind.group.is_empty() && kind.resource == "namespaces" {
        out.push(Subresource {
            name: "finalize",
            kind: "Namespace".into(),
            group_version: None,
            verbs: &["update"],
        });
    }
    out
}

/// A kind's resource and its subresources, as discovery lists them.
fn resources_of(kind: &KindSpec) -> Vec<Value> {
    let mut out = vec![resource(kind)];
    for sub in subresources(kind) {
        let mut r = json!({
            "name": format!("{}/{}", kind.resource, sub.name),
            "singularName": "",
            "namespaced": kind.namespaced,
            "kind": sub.kind,
            "verbs": sub.verbs,
        });
        if let Some((g, v)) = sub.group_version.filter(|(g, _)| !g.is_empty()) {
            r["group"] = json!(g);
            r["version"] = json!(v);
        }
        out.push(r);
    }
    out
}

/// `/api`
#[must_use]
pub fn core_versions(server_address: &str) -> Value {
    json!({"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}]})
}

/// `/api/{version}` and `/apis/{group}/{version}`.
pub fn resources(registry: &Registry, group: &str, version: &str) -> Result<Value, ApiError> {
    let kinds: Vec<Value> = registry
        .in_group_version(group, version)
        .iter()
        .flat_map(|k| resources_of(k))
        .collect();
    if kinds.is_empty() {
        return Err(ApiError::PathNotFound);
    }
    let group_version = if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    };
    let mut doc =
        json!({"kind": "APIResourceList", "groupVersion": group_version, "resources": kinds});
    if !group.is_empty() {
        doc["apiVersion"] = json!("v1");
    }
    Ok(doc)
}

fn group_entry(name: &str, versions: &[String]) -> Value {
    let vs: Vec<Value> = versions
        .iter()
        .map(|v| json!({"groupVersion": format!("{name}/{v}"), "version": v}))
        .collect();
    json!({"name": name, "versions": vs, "preferredVersion": vs[0]})
}

/// `/apis`
#[must_use]
pub fn groups(registry: &Registry) -> Value {
    let groups: Vec<Value> = registry
        .groups()
        .iter()
        .map(|(g, vs)| group_entry(g, vs))
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `/apis/{group}`
pub fn group(registry: &Registry, name: &str) -> Result<Value, ApiError> {
    let (g, vs) = registry
        .groups()
        .into_iter()
        .find(|(g, _)| g == name)
        .ok_or(ApiError::PathNotFound)?;
    let mut doc = group_entry(&g, &vs);
    let map = doc.as_object_mut().expect("an object");
    let mut out = serde_json::Map::new();
    out.insert("kind".into(), json!("APIGroup"));
    out.insert("apiVersion".into(), json!("v1"));
    out.append(map);
    Ok(Value::Object(out))
}

/// `/version`
#[must_use]
pub fn version() -> Value {
    json!({
        "major": "1",
        "minor": "32",
        "gitVersion": concat!("v1.32.0-cairn.", env!("CARGO_PKG_VERSION")),
        "gitCommit": "",
        "gitTreeState": "clean",
        "buildDate": "",
        "goVersion": "",
        "compiler": "rustc",
        "platform": format!("{}/{}", std::env::consts::OS, std::env::consts::ARCH),
    })
}
