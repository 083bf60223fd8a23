//! kube-controller-manager's `csrapproving` controller: a pending
//! `kubernetes.io/kube-apiserver-client-kubelet` request that passes the
//! kubelet client rules is approved (`AutoApproved`) when its requester may
//! `create` `certificatesigningrequests/selfnodeclient` (for a request
//! naming the requester itself) or `certificatesigningrequests/nodeclient`
//! — the permissions of Kubernetes' `…:selfnodeclient` and `…:nodeclient`
//! roles. Anything else waits for a person.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::api::informer::{Cache, Informer};
use crate::api::kind::KindSpec;
use crate::api::kinds::checks::{items_at, str_at};
use crate::api::kinds::csr_rules::{has_condition, push_condition, request_der};
use crate::api::object;
use crate::api::store::{Store, Subresource};
use crate::app::AppState;
use crate::controllers::csr_kubelet::{KUBELET_CLIENT, Subject, kubelet_client};
use crate::request::authz;
use crate::request::info::RequestInfo;
use crate::request::user::UserInfo;
use crate::util::time;

/// How often requests nobody allowed are looked at again.
const RETRY: Duration = Duration::from_secs(2);

/// (subresource asked, approval message, only for a request naming its
/// requester), tried in this order.
const RECOGNIZERS: [(&str, &str, bool); 2] = [
    (
        "selfnodeclient",
        "Auto approving self kubelet client certificate after SubjectAccessReview.",
        true,
    ),
    (
        "nodeclient",
        "Auto approving kubelet client certificate after SubjectAccessReview.",
        false,
    ),
];

/// The requester the server recorded in the request's spec.
fn requester(csr: &Value) -> UserInfo {
    let strings = |pointer: &str| -> Vec<String> {
        items_at(csr, pointer)
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    };
    let extra: BTreeMap<String, Vec<String>> = csr
        .pointer("/spec/extra")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    let values = v.as_array().into_iter().flatten();
                    let values = values.filter_map(Value::as_str).map(str::to_string);
                    (k.clone(), values.collect())
                })
                .collect()
        })
        .unwrap_or_default();
    UserInfo {
        name: str_at(csr, "/spec/username").to_string(),
        uid: str_at(csr, "/spec/uid").to_string(),
        groups: strings("/spec/groups"),
        extra,
    }
}

/// The approval message for `csr`, when one of the recognizers' checks
/// allows its requester; `None` when it is not ours or nobody allows it.
async fn approval(store: &Store, group: &str, csr: &Value) -> Option<&'static str> {
    if str_at(csr, "/spec/signerName") != KUBELET_CLIENT
        || has_condition(csr, "Approved")
        || has_condition(csr, "Denied")
        || !str_at(csr, "/status/certificate").is_empty()
    {
        return None;
    }
    let subject = Subject::of(&request_der(csr).ok()?)?;
    let usages: Vec<&str> = items_at(csr, "/spec/usages")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    kubelet_client(&subject, &usages).ok()?;
    let user = requester(csr);
    for (subresource, message, naming_itself) in RECOGNIZERS {
        if naming_itself && subject.common_name != user.name {
            continue;
        }
        let mut info =
            RequestInfo::resource_request("create", group, "certificatesigningrequests", "", "");
        if let Some(resource) = info.resource.as_mut() {
            resource.subresource = Some(subresource.to_string());
        }
        let asked = authz::Attributes {
            user: &user,
            info: &info,
        };
        if store.authorizers.decide(&asked).await.allowed {
            return Some(message);
        }
    }
    None
}

async fn approve(store: &Store, kind: &Arc<KindSpec>, name: &str, message: &'static str) {
    let now = time::rfc3339(SystemTime::now());
    let change = move |next: &mut Value| {
        push_condition(next, "Approved", "AutoApproved", message, &now);
    };
    if let Err(e) = store
        .system_edit(kind, None, name, Some(Subresource::Approval), change)
        .await
    {
        tracing::warn!(csr = %name, error = %e, "approving a kubelet client certificate request failed");
    }
}

/// A request's name and resource version.
fn version(csr: &Value) -> (String, String) {
    let rv = object::meta_str(csr, "resourceVersion").unwrap_or_default();
    (object::name(csr).to_string(), rv.to_string())
}

/// Runs until the server stops.
pub async fn run(state: Arc<AppState>) {
    let group = format!("certificates.{}", state.config.api_domain);
    let Some(kind) = state
        .store
        .registry
        .lookup(&group, "v1", "certificatesigningrequests")
    else {
        return;
    };
    let mut informer = Informer::for_kind(&state.store, &kind);
    let mut requests = Cache::new(|kv| {
        let csr = Store::decode_stored(kv).ok()?;
        (str_at(&csr, "/spec/signerName") == KUBELET_CLIENT).then_some(csr)
    });
    // Versions already looked at: a refused request is asked about again
    // only when it changes.
    let mut seen: HashSet<(String, String)> = HashSet::new();
    let mut shutdown = state.shutdown.clone();
    loop {
        tokio::select! {
            fed = informer.feed(&mut requests) => if !fed { return },
            // Refused requests are asked about again, as kube's queue
            // retries them: a binding may have come since.
            () = tokio::time::sleep(RETRY) => seen.clear(),
            _ = shutdown.changed() => return,
        }
        if !requests.is_synced() {
            continue;
        }
        let current: HashSet<(String, String)> = requests.values().map(version).collect();
        let pending: Vec<Value> = requests
            .values()
            .filter(|csr| !seen.contains(&version(csr)))
            .cloned()
            .collect();
        seen = current;
        for csr in pending {
            if let Some(message) = approval(&state.store, &group, &csr).await {
                approve(&state.store, &kind, object::name(&csr), message).await;
            }
        }
    }
}
