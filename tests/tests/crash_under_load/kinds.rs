//! The kinds the campaign writes, and their bodies: a ConfigMap (content in
//! `data.v`), a custom resource (`spec.v`) and a Pod bound to a node
//! (`metadata.annotations.v`; its deletion is graceful, ended by the server
//! when the grace period is over).

use serde_json::{Value, json};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    ConfigMap,
    Gadget,
    Pod,
}

pub const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";
pub const GADGETS: &str = "/apis/campaign.example.com/v1/namespaces/default/gadgets";
pub const PODS: &str = "/api/v1/namespaces/default/pods";

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::ConfigMap, Kind::Gadget, Kind::Pod];

    pub fn collection(self) -> &'static str {
        match self {
            Kind::ConfigMap => CONFIGMAPS,
            Kind::Gadget => GADGETS,
            Kind::Pod => PODS,
        }
    }

    /// The object's content: the one field every write changes.
    pub fn content(self, object: &Value) -> String {
        let field = match self {
            Kind::ConfigMap => &object["data"]["v"],
            Kind::Gadget => &object["spec"]["v"],
            Kind::Pod => &object["metadata"]["annotations"]["v"],
        };
        field.as_str().unwrap_or_default().to_string()
    }
}

/// A whole object of `kind` with `content`.
pub fn manifest(kind: Kind, name: &str, content: &str) -> Value {
    match kind {
        Kind::ConfigMap => json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name}, "data": {"v": content},
        }),
        Kind::Gadget => json!({
            "apiVersion": "campaign.example.com/v1", "kind": "Gadget",
            "metadata": {"name": name}, "spec": {"v": content},
        }),
        Kind::Pod => json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "annotations": {"v": content}},
            "spec": {
                "nodeName": "node-1",
                "containers": [{"name": "main", "image": "registry.example/app:1"}],
            },
        }),
    }
}

/// A patch (merge or strategic) setting the content.
pub fn content_patch(kind: Kind, content: &str) -> Value {
    match kind {
        Kind::ConfigMap => json!({"data": {"v": content}}),
        Kind::Gadget => json!({"spec": {"v": content}}),
        Kind::Pod => json!({"metadata": {"annotations": {"v": content}}}),
    }
}
