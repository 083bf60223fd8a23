//! What extension API servers read to trust this server's clients, as
//! kube-apiserver publishes it: ConfigMap
//! `kube-system/extension-apiserver-authentication` (the client CA bundle
//! and, with `--requestheader-client-ca-file`, the front proxy's CA, names
//! and headers) and the Role `extension-apiserver-authentication-reader`
//! that lets them read it. Both kept like the `kubernetes` Service.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::api::informer::KeyValue;
use crate::api::keys;
use crate::api::store::Store;
use crate::app::AppState;
use crate::config::Config;
use crate::config::request_header::RequestHeaderConfig;
use crate::controllers::kept::Kept;
use crate::controllers::paired::Paired;
use crate::controllers::rbac::bootstrap::{
    AUTOUPDATE_ANNOTATION, BOOTSTRAPPING_LABEL, BOOTSTRAPPING_VALUE,
};
use crate::request::authz::setup::rbac_group;

const NAMESPACE: &str = "kube-system";
pub const CONFIG_MAP: &str = "extension-apiserver-authentication";
pub const READER: &str = "extension-apiserver-authentication-reader";

/// The client CA bundle as PEM: `--client-ca-file`, else the cluster CA
/// (which then signs client certificates); `None` when neither is readable
/// (no secure port).
fn client_ca_pem(config: &Config) -> Option<String> {
    let path = config
        .client_ca_file
        .clone()
        .unwrap_or_else(|| config.data_dir.join("pki").join("ca.crt"));
    std::fs::read_to_string(path).ok()
}

fn json_list(items: &[String]) -> Value {
    Value::String(serde_json::to_string(items).unwrap_or_else(|_| "[]".into()))
}

/// The ConfigMap's data.
#[must_use]
pub fn data(client_ca: Option<&str>, request_header: Option<&RequestHeaderConfig>) -> Value {
    let mut data = Map::new();
    if let Some(ca) = client_ca {
        data.insert("client-ca-file".into(), json!(ca));
    }
    if let Some(rh) = request_header {
        data.insert("requestheader-client-ca-file".into(), json!(rh.ca_pem));
        data.insert(
            "requestheader-allowed-names".into(),
            json_list(&rh.allowed_names),
        );
        data.insert(
            "requestheader-username-headers".into(),
            json_list(&rh.username_headers),
        );
        data.insert(
            "requestheader-uid-headers".into(),
            json_list(&rh.uid_headers),
        );
        data.insert(
            "requestheader-group-headers".into(),
            json_list(&rh.group_headers),
        );
        data.insert(
            "requestheader-extra-headers-prefix".into(),
            json_list(&rh.extra_headers_prefix),
        );
    }
    Value::Object(data)
}

fn config_map(data: Value) -> Value {
    json!({"metadata": {"name": CONFIG_MAP}, "data": data})
}

/// kube's bootstrap Role in `kube-system`.
fn reader_role() -> Value {
    json!({
        "metadata": {
            "name": READER,
            "labels": {BOOTSTRAPPING_LABEL: BOOTSTRAPPING_VALUE},
            "annotations": {AUTOUPDATE_ANNOTATION: "true"}
        },
        "rules": [{
            "apiGroups": [""],
            "resources": ["configmaps"],
            "resourceNames": [CONFIG_MAP],
            "verbs": ["get", "list", "watch"]
        }]
    })
}

fn named(kv: &KeyValue, name: &str) -> Option<Value> {
    if !kv.key.ends_with(format!("/{NAMESPACE}/{name}").as_bytes()) {
        return None;
    }
    Store::decode_stored(kv).ok()
}

fn the_config_map(kv: &KeyValue) -> Option<Value> {
    named(kv, CONFIG_MAP)
}

fn the_role(kv: &KeyValue) -> Option<Value> {
    named(kv, READER)
}

/// Runs until the server stops.
pub async fn run(state: Arc<AppState>) {
    let store = &state.store;
    let config_maps = store
        .registry
        .lookup("", "v1", "configmaps")
        .expect("core kinds are built in");
    let Some(roles) = store
        .registry
        .lookup(&rbac_group(&state.config.api_domain), "v1", "roles")
    else {
        return;
    };
    // A bad --requestheader-client-ca-file stops the server at start.
    let request_header = state.config.request_header.load().ok().flatten();
    let mut pair = Paired::new(
        store,
        (&config_maps, the_config_map),
        (&roles, the_role),
        state.shutdown.clone(),
        "extension-apiserver-authentication publisher",
    );
    while pair.due().await {
        let desired = config_map(data(
            client_ca_pem(&state.config).as_deref(),
            request_header.as_ref(),
        ));
        let stored_map =
            pair.first
                .get(&keys::object_key(&config_maps, Some(NAMESPACE), CONFIG_MAP));
        let stored_role = pair
            .second
            .get(&keys::object_key(&roles, Some(NAMESPACE), READER));
        let again = Kept::new(store, &config_maps, NAMESPACE, &["data"])
            .keep(stored_map, desired)
            .await
            | Kept::new(store, &roles, NAMESPACE, &["rules"])
                .keep(stored_role, reader_role())
                .await;
        pair.swept(again);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_data_lists_headers_as_json() {
        let rh = RequestHeaderConfig {
            ca_pem: "PROXY CA".into(),
            allowed_names: vec!["front-proxy-client".into()],
            username_headers: vec!["X-Remote-User".into()],
            group_headers: vec!["X-Remote-Group".into()],
            extra_headers_prefix: vec!["X-Remote-Extra-".into()],
            ..RequestHeaderConfig::default()
        };
        let d = data(Some("CLIENT CA"), Some(&rh));
        assert_eq!(d["client-ca-file"], "CLIENT CA");
        assert_eq!(d["requestheader-client-ca-file"], "PROXY CA");
        assert_eq!(d["requestheader-allowed-names"], "[\"front-proxy-client\"]");
        assert_eq!(d["requestheader-username-headers"], "[\"X-Remote-User\"]");
        assert_eq!(d["requestheader-uid-headers"], "[]");
        assert_eq!(
            d["requestheader-extra-headers-prefix"],
            "[\"X-Remote-Extra-\"]"
        );
        assert_eq!(data(Some("C"), None), json!({"client-ca-file": "C"}));
    }
}
