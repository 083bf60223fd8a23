//! Waiting until a started server's controllers have published what every
//! namespace gets (the `kube-root-ca.crt` ConfigMap, as
//! kube-controller-manager publishes it), so that tests which count, list
//! or watch a namespace's objects, or the store's revision, start from a
//! settled store. A server whose controllers do not run here (a follower)
//! is waited for a few seconds at most.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::Server;
use crate::client::Response;

const ROOT_CA: &str = "kube-root-ca.crt";

fn names(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| {
            i.pointer("/metadata/namespace")
                .or(i.pointer("/metadata/name"))
        })
        .filter_map(Value::as_str)
        .map(String::from)
        .collect()
}

impl Server {
    /// A GET as the admin, over whichever port the server has.
    fn admin_get(&self, path: &str) -> Option<Response> {
        if self.port != 0 {
            return crate::client::request(self.port, "GET", path, &[], None).ok();
        }
        // A server given its own serving certificate writes a kubeconfig
        // without the CA: nothing here can ask it.
        let kubeconfig = std::fs::read_to_string(self.admin_kubeconfig()).ok()?;
        if !kubeconfig.contains("certificate-authority-data") {
            return None;
        }
        let client = self.admin_client();
        client
            .request(self.https_port(), "GET", path, &[], None)
            .ok()
    }

    /// Whether every namespace (or only `namespace`) has its root CA;
    /// `None` when the server cannot be asked.
    fn root_ca_everywhere(&self, namespace: Option<&str>) -> Option<bool> {
        let ok = |r: Response| (r.status == 200).then(|| r.json());
        let wanted = match namespace {
            Some(ns) => vec![ns.to_string()],
            None => match ok(self.admin_get("/api/v1/namespaces")?) {
                Some(list) => names(&list),
                None => return Some(false),
            },
        };
        let path = format!("/api/v1/configmaps?fieldSelector=metadata.name%3D{ROOT_CA}");
        let Some(published) = ok(self.admin_get(&path)?).map(|l| names(&l)) else {
            return Some(false);
        };
        Some(wanted.iter().all(|ns| published.contains(ns)))
    }

    /// Waits (a few seconds at most) until every namespace has its root CA.
    pub(crate) fn settle(&self) {
        let deadline = Instant::now() + Duration::from_secs(8);
        while Instant::now() < deadline && self.root_ca_everywhere(None) == Some(false) {
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Waits until `namespace`, just created, has its root CA, so that its
    /// ConfigMaps and the store's revision stand still for the test.
    pub fn settle_namespace(&self, namespace: &str) {
        crate::wait_until(&format!("kube-root-ca.crt in {namespace}"), || {
            self.root_ca_everywhere(Some(namespace)) == Some(true)
        });
    }
}
