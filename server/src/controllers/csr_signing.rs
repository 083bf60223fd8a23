//! The signing controller of kube-controller-manager for the
//! `kubernetes.io/kube-apiserver-client`, `…-client-kubelet` and
//! `kubernetes.io/kubelet-serving` signers: an approved request with no
//! certificate is signed by the cluster CA (or `--cluster-signing-*`), or
//! marked `Failed` (`SignerValidationFailure`) when it breaks the signer's
//! rules (`csr_kubelet.rs` for the kubelet signers). Writes go through
//! `/status`.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rcgen::{CertificateParams, ExtendedKeyUsagePurpose, KeyUsagePurpose};
use serde_json::{Value, json};

use crate::api::informer::{Cache, Informer};
use crate::api::kind::KindSpec;
use crate::api::kinds::checks::{items_at, str_at};
use crate::api::kinds::csr_rules::{has_condition, parse_request, push_condition, request_der};
use crate::api::object;
use crate::api::store::{Store, Subresource};
use crate::app::AppState;
use crate::controllers::csr_kubelet::{
    KUBELET_CLIENT, KUBELET_SERVING, Subject, kubelet_client, kubelet_serving, raw_subject,
};
use crate::request::admission::certificates::KUBE_APISERVER_CLIENT;
use crate::tls::pki::ClusterCa;
use crate::util::time;

/// kube-controller-manager's `--cluster-signing-duration` default: 8760h.
pub const DEFAULT_SIGNING_DURATION: Duration = Duration::from_secs(8760 * 3600);

/// What the controller does with one request.
#[derive(Debug)]
pub enum Decision {
    /// Nothing: not ours, not approved, denied, failed or already issued.
    Skip,
    /// Sign with these usages for this long.
    Sign(Box<CertificateParams>, Duration),
    /// Mark it Failed with this message.
    Fail(String),
}

/// The usages the kube-apiserver-client signer allows: `client auth`
/// required, `digital signature` and `key encipherment` optional.
pub fn client_usages(usages: &[&str]) -> Result<(), String> {
    for usage in usages {
        if !matches!(
            *usage,
            "digital signature" | "key encipherment" | "client auth"
        ) {
            return Err(format!("invalid usage for client certificate: {usage}"));
        }
    }
    if !usages.contains(&"client auth") {
        return Err("missing required usage for client certificate: client auth".into());
    }
    Ok(())
}

/// What to do with `csr`, signing for at most `limit`.
#[must_use]
pub fn decide(csr: &Value, limit: Duration) -> Decision {
    let signer = str_at(csr, "/spec/signerName");
    if ![KUBE_APISERVER_CLIENT, KUBELET_CLIENT, KUBELET_SERVING].contains(&signer)
        || !has_condition(csr, "Approved")
        || has_condition(csr, "Denied")
        || has_condition(csr, "Failed")
        || !str_at(csr, "/status/certificate").is_empty()
    {
        return Decision::Skip;
    }
    let usages: Vec<&str> = items_at(csr, "/spec/usages")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let checked = if signer == KUBE_APISERVER_CLIENT {
        client_usages(&usages)
    } else {
        let Some(subject) = request_der(csr).ok().and_then(|der| Subject::of(&der)) else {
            return Decision::Skip;
        };
        if signer == KUBELET_CLIENT {
            kubelet_client(&subject, &usages)
        } else {
            kubelet_serving(&subject, &usages)
        }
    };
    if let Err(problem) = checked {
        return Decision::Fail(problem);
    }
    let request = match parse_request(csr) {
        Ok(request) => request,
        Err(problem) => return Decision::Fail(problem),
    };
    let mut params = CertificateParams::default();
    params.distinguished_name = request.params.distinguished_name;
    params.subject_alt_names = request.params.subject_alt_names;
    for usage in usages {
        match usage {
            "digital signature" => params.key_usages.push(KeyUsagePurpose::DigitalSignature),
            "key encipherment" => params.key_usages.push(KeyUsagePurpose::KeyEncipherment),
            "server auth" => params
                .extended_key_usages
                .push(ExtendedKeyUsagePurpose::ServerAuth),
            _ => params
                .extended_key_usages
                .push(ExtendedKeyUsagePurpose::ClientAuth),
        }
    }
    let asked = csr
        .pointer("/spec/expirationSeconds")
        .and_then(Value::as_u64)
        .map_or(limit, Duration::from_secs);
    Decision::Sign(Box::new(params), asked.min(limit))
}

/// Carries out `decision` for `csr` (its status written through `/status`).
async fn act(store: &Store, kind: &Arc<KindSpec>, ca: &ClusterCa, csr: &Value, decision: Decision) {
    let name = object::name(csr).to_string();
    let now = time::rfc3339(SystemTime::now());
    let change: Box<dyn Fn(&mut Value) + Send + Sync> = match decision {
        Decision::Skip => return,
        Decision::Sign(params, lifetime) => {
            let (Ok(mut request), Some(subject)) = (
                parse_request(csr),
                request_der(csr).ok().and_then(|der| raw_subject(&der)),
            ) else {
                return;
            };
            request.params = *params;
            match ca.issue(&mut request, &subject, lifetime) {
                Ok(pem) => {
                    let encoded = STANDARD.encode(pem.as_bytes());
                    Box::new(move |next| next["status"]["certificate"] = json!(encoded))
                }
                Err(e) => {
                    tracing::warn!(csr = %name, error = %e, "signing failed");
                    return;
                }
            }
        }
        Decision::Fail(message) => Box::new(move |next| {
            push_condition(next, "Failed", "SignerValidationFailure", &message, &now);
        }),
    };
    if let Err(e) = store
        .system_edit(kind, None, &name, Some(Subresource::Status), change)
        .await
    {
        tracing::warn!(csr = %name, error = %e, "writing a signing request's status failed");
    }
}

/// Runs until the server stops, signing approved requests as they come.
pub async fn run(state: Arc<AppState>) {
    let domain = &state.config.api_domain;
    let Some(kind) = state.store.registry.lookup(
        &format!("certificates.{domain}"),
        "v1",
        "certificatesigningrequests",
    ) else {
        return;
    };
    let signing = &state.config.cluster_signing;
    // The flags' files were checked at start.
    let given = signing.load().ok().flatten();
    let ca = match given {
        Some(pem) => ClusterCa::from_pem(&pem.cert, &pem.key).map_err(|e| e.to_string()),
        None => ClusterCa::load_or_create(&state.config.data_dir).map_err(|e| e.to_string()),
    };
    let ca = match ca {
        Ok(ca) => ca,
        Err(e) => {
            tracing::warn!(error = %e, "no signing CA: certificate signing requests are not signed");
            return;
        }
    };
    let limit = signing.cluster_signing_duration;
    let mut informer = Informer::for_kind(&state.store, &kind);
    let mut requests = Cache::new(|kv| Store::decode_stored(kv).ok());
    let mut shutdown = state.shutdown.clone();
    loop {
        tokio::select! {
            fed = informer.feed(&mut requests) => if !fed { return },
            _ = shutdown.changed() => return,
        }
        if !requests.is_synced() {
            continue;
        }
        let pending: Vec<(Value, Decision)> = requests
            .values()
            .map(|csr| (csr.clone(), decide(csr, limit)))
            .filter(|(_, d)| !matches!(d, Decision::Skip))
            .collect();
        for (csr, decision) in pending {
            act(&state.store, &kind, &ca, &csr, decision).await;
        }
    }
}

#[cfg(test)]
#[path = "csr_signing_tests.rs"]
mod tests;
