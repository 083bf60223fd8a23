//! The group versions served by extension API servers: each APIService
//! that names a service, as the APIService controller last saw it. The
//! request path reads it for every `/apis/{group}/{version}` request, so
//! it is a shared in-memory table, never a storage read.

use std::collections::BTreeMap;
use std::sync::Arc;

use parking_lot::RwLock;
use serde_json::Value;

use super::super::kinds::api_service::DEFAULT_SERVICE_PORT;
use crate::api::kinds::checks::str_at;

/// One aggregated group version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    pub group: String,
    pub version: String,
    pub namespace: String,
    pub service: String,
    pub port: u16,
    /// PEM roots for the extension server's certificate.
    pub ca_bundle: Option<Vec<u8>>,
    pub insecure_skip_tls_verify: bool,
    pub group_priority_minimum: i64,
    pub version_priority: i64,
    /// The `Available` condition's status is `True`.
    pub available: bool,
}

impl Route {
    /// The route an APIService object describes; `None` for a local one.
    #[must_use]
    pub fn of(obj: &Value) -> Option<Route> {
        let service = obj.pointer("/spec/service").filter(|s| s.is_object())?;
        let ca_bundle = match str_at(obj, "/spec/caBundle") {
            "" => None,
            b64 => {
                use base64::Engine;
                base64::engine::general_purpose::STANDARD.decode(b64).ok()
            }
        };
        let int = |p: &str| obj.pointer(p).and_then(Value::as_i64).unwrap_or(0);
        let available = obj
            .pointer("/status/conditions")
            .and_then(Value::as_array)
            .is_some_and(|cs| {
                cs.iter()
                    .any(|c| str_at(c, "/type") == "Available" && str_at(c, "/status") == "True")
            });
        Some(Route {
            group: str_at(obj, "/spec/group").to_string(),
            version: str_at(obj, "/spec/version").to_string(),
            namespace: str_at(service, "/namespace").to_string(),
            service: str_at(service, "/name").to_string(),
            port: service
                .get("port")
                .and_then(Value::as_u64)
                .and_then(|p| u16::try_from(p).ok())
                .unwrap_or(DEFAULT_SERVICE_PORT),
            ca_bundle,
            insecure_skip_tls_verify: obj
                .pointer("/spec/insecureSkipTLSVerify")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            group_priority_minimum: int("/spec/groupPriorityMinimum"),
            version_priority: int("/spec/versionPriority"),
            available,
        })
    }
}

/// Every aggregated group version, by `(group, version)`.
#[derive(Default)]
pub struct Routes {
    table: RwLock<Arc<BTreeMap<(String, String), Route>>>,
    /// The `APIResourceList` each extension server last answered for its
    /// group version (merged into aggregated discovery).
    discovered: RwLock<BTreeMap<(String, String), Value>>,
}

impl Routes {
    /// Replaces the table with the routes of `objects` (APIServices).
    pub fn replace<'a>(&self, objects: impl Iterator<Item = &'a Value>) {
        let table: BTreeMap<_, _> = objects
            .filter_map(Route::of)
            .map(|r| ((r.group.clone(), r.version.clone()), r))
            .collect();
        if **self.table.read() != table {
            *self.table.write() = Arc::new(table);
        }
    }

    /// The route of `group`/`version`, if an extension server serves it.
    #[must_use]
    pub fn get(&self, group: &str, version: &str) -> Option<Route> {
        let table = self.table.read();
        if table.is_empty() {
            return None;
        }
        table
            .get(&(group.to_string(), version.to_string()))
            .cloned()
    }

    /// Every route, highest group priority first (then by name), as
    /// kube-aggregator orders groups.
    #[must_use]
    pub fn all(&self) -> Vec<Route> {
        let mut all: Vec<Route> = self.table.read().values().cloned().collect();
        all.sort_by(|a, b| {
            b.group_priority_minimum
                .cmp(&a.group_priority_minimum)
                .then_with(|| a.group.cmp(&b.group))
                .then_with(|| b.version_priority.cmp(&a.version_priority))
        });
        all
    }

    /// Whether storage key `key` (`.../{namespace}/{name}`) is the
    /// Service or Endpoints of an aggregated group version.
    #[must_use]
    pub fn names_service_at(&self, key: &[u8]) -> bool {
        let key = String::from_utf8_lossy(key);
        self.table
            .read()
            .values()
            .any(|r| key.ends_with(&format!("/{}/{}", r.namespace, r.service)))
    }

    /// Records the resources an extension server lists for its group version.
    pub fn set_discovered(&self, group: &str, version: &str, list: Value) {
        let key = (group.to_string(), version.to_string());
        let mut discovered = self.discovered.write();
        if discovered.get(&key) != Some(&list) {
            discovered.insert(key, list);
        }
    }

    /// The resources last listed for `group`/`version`.
    #[must_use]
    pub fn discovered(&self, group: &str, version: &str) -> Option<Value> {
        self.discovered
            .read()
            .get(&(group.to_string(), version.to_string()))
            .cloned()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_apiservices_with_a_service_route() {
        let routes = Routes::default();
        let remote = json!({"spec": {"group": "m.io", "version": "v1", "caBundle": "QUJD",
            "groupPriorityMinimum": 100, "versionPriority": 10,
            "service": {"namespace": "ns", "name": "svc"}},
            "status": {"conditions": [{"type": "Available", "status": "True"}]}});
        let local = json!({"spec": {"group": "apps", "version": "v1"}});
        routes.replace([&remote, &local].into_iter());
        let r = routes.get("m.io", "v1").expect("routed");
        assert_eq!((r.port, r.available), (443, true));
        assert_eq!(r.ca_bundle.as_deref(), Some(&b"ABC"[..]));
        assert!(routes.get("apps", "v1").is_none());
        assert_eq!(routes.all().len(), 1);
    }
}
