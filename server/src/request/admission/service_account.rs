//! kube-apiserver's ServiceAccount admission plugin, for pod creates:
//! a pod without `serviceAccountName` runs as `default`; the account must
//! exist (the `default` one is waited for briefly, since a controller
//! makes it); unless the pod or its account turns automounting off, every
//! container and init container mounts a projected `kube-api-access-*`
//! volume (a bound token, the `kube-root-ca.crt` CA bundle and the
//! namespace) at `/var/run/secrets/kubernetes.io/serviceaccount`; an
//! account annotated `kubernetes.io/enforce-mountable-secrets: "true"`
//! limits the pod to the Secrets it lists. Mirror pods are never changed
//! and may name neither a service account nor a Secret.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::api::error::ApiError;
use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::api::kinds::checks::{items_at, str_at};
use crate::api::store::storage_error;
use crate::request::admission::{
    Attributes, MutatingAdmission, Operation, Pins, ValidatingAdmission,
};
use crate::storage::Storage;
use crate::util::maybe_async::MaybeAsync;

pub const SERVICE_ACCOUNT: &str = "ServiceAccount";

const DEFAULT_ACCOUNT: &str = "default";
const MOUNT_PATH: &str = "/var/run/secrets/kubernetes.io/serviceaccount";
const VOLUME_PREFIX: &str = "kube-api-access-";
const MIRROR_ANNOTATION: &str = "kubernetes.io/config.mirror";
const ENFORCE_ANNOTATION: &str = "kubernetes.io/enforce-mountable-secrets";
/// kube's bound token lifetime for the projected volume (one hour and
/// seven seconds, which marks it as such).
const TOKEN_SECONDS: u64 = 3607;
/// Reads of a missing `default` account before the pod is refused.
const DEFAULT_ATTEMPTS: u32 = 10;

/// The plugin: reads service accounts from storage.
pub struct ServiceAccountAdmission {
    storage: Arc<dyn Storage>,
    accounts: Arc<KindSpec>,
}

fn is_pod_create(attrs: &Attributes<'_>) -> bool {
    attrs.operation == Operation::Create
        && attrs.kind.group.is_empty()
        && attrs.kind.resource == "pods"
        && attrs.subresource.is_none()
}

fn is_mirror(pod: &Value) -> bool {
    pod.pointer("/metadata/annotations")
        .and_then(|a| a.get(MIRROR_ANNOTATION))
        .is_some()
}

impl ServiceAccountAdmission {
    #[must_use]
    pub fn new(storage: Arc<dyn Storage>, accounts: Arc<KindSpec>) -> ServiceAccountAdmission {
        ServiceAccountAdmission { storage, accounts }
    }

    /// The account `ns/name`, read as kube's plugin reads it: the
    /// `default` account a few times over two seconds at most.
    async fn account(&self, ns: &str, name: &str) -> Result<Option<Value>, ApiError> {
        let key = keys::object_key(&self.accounts, Some(ns), name);
        let attempts = if name == DEFAULT_ACCOUNT {
            DEFAULT_ATTEMPTS
        } else {
            1
        };
        for attempt in 0..attempts {
            if attempt > 0 {
                let pause = 100 + (crate::util::random::unit_fraction() * 100.0) as u64;
                tokio::time::sleep(Duration::from_millis(pause)).await;
            }
            // As recently known (a watch cache's copy; a miss asks the
            // backend), as kube's admission reads its lister first.
            let read = self.storage.get_recent(&key).await.map_err(storage_error)?;
            if let Some(kv) = read.kv {
                let account = serde_json::from_slice(&kv.value).map_err(|e| {
                    ApiError::Internal(format!("service account {ns}/{name} is invalid JSON: {e}"))
                })?;
                return Ok(Some(account));
            }
        }
        Ok(None)
    }

    /// The pod's account, or the refusal kube gives when it is missing.
    async fn required_account(
        &self,
        attrs: &Attributes<'_>,
        pod: &Value,
    ) -> Result<Value, ApiError> {
        let ns = attrs.namespace.unwrap_or_default();
        let name = str_at(pod, "/spec/serviceAccountName");
        self.account(ns, name).await?.ok_or_else(|| {
            attrs.forbidden(format!(
                "error looking up service account {ns}/{name}: serviceaccount {name:?} not found"
            ))
        })
    }

    async fn admit_pod(&self, attrs: &Attributes<'_>, pod: &mut Value) -> Result<(), ApiError> {
        if is_mirror(pod) {
            return mirror_rules(attrs, pod);
        }
        if str_at(pod, "/spec/serviceAccountName").is_empty()
            && let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut)
        {
            spec.insert("serviceAccountName".into(), DEFAULT_ACCOUNT.into());
        }
        let account = self.required_account(attrs, pod).await?;
        mountable_secrets(attrs, &account, pod)?;
        if automounts(&account, pod) {
            mount_token(pod);
        }
        Ok(())
    }

    async fn validate_pod(&self, attrs: &Attributes<'_>, pod: &Value) -> Result<(), ApiError> {
        if is_mirror(pod) {
            return mirror_rules(attrs, pod);
        }
        if str_at(pod, "/spec/serviceAccountName").is_empty() {
            let (ns, name) = (attrs.namespace.unwrap_or_default(), attrs.name);
            return Err(
                attrs.forbidden(format!("no service account specified for pod {ns}/{name}"))
            );
        }
        let account = self.required_account(attrs, pod).await?;
        mountable_secrets(attrs, &account, pod)
    }
}

/// Whether the pod gets the token volume: the pod's say, else the
/// account's, else yes.
fn automounts(account: &Value, pod: &Value) -> bool {
    pod.pointer("/spec/automountServiceAccountToken")
        .and_then(Value::as_bool)
        .or_else(|| {
            account
                .get("automountServiceAccountToken")
                .and_then(Value::as_bool)
        })
        .unwrap_or(true)
}

/// The Secrets a pod names, each with what names it in kube's words:
/// volumes, and its containers' env and envFrom.
fn secret_references(pod: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for volume in items_at(pod, "/spec/volumes") {
        let name = str_at(volume, "/secret/secretName");
        if !name.is_empty() {
            out.push(("volume with secret.secretName".into(), name.to_string()));
        }
    }
    for (list, which) in [
        ("initContainers", "init container "),
        ("containers", ""),
        ("ephemeralContainers", "ephemeral container "),
    ] {
        for container in items_at(pod, &format!("/spec/{list}")) {
            for from in items_at(container, "/envFrom") {
                let name = str_at(from, "/secretRef/name");
                if !name.is_empty() {
                    out.push((format!("{which}envFrom with secretRef.name"), name.into()));
                }
            }
            for env in items_at(container, "/env") {
                let name = str_at(env, "/valueFrom/secretKeyRef/name");
                if !name.is_empty() {
                    out.push((
                        format!("{which}env with valueFrom.secretKeyRef.name"),
                        name.into(),
                    ));
                }
            }
        }
    }
    out
}

/// With `kubernetes.io/enforce-mountable-secrets: "true"`, only the
/// account's own Secrets.
fn mountable_secrets(attrs: &Attributes<'_>, account: &Value, pod: &Value) -> Result<(), ApiError> {
    let enforced = account
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(ENFORCE_ANNOTATION))
        .and_then(Value::as_str)
        == Some("true");
    if !enforced {
        return Ok(());
    }
    let allowed: Vec<&str> = items_at(account, "/secrets")
        .iter()
        .map(|s| str_at(s, "/name"))
        .collect();
    let account_name = str_at(account, "/metadata/name");
    match secret_references(pod)
        .into_iter()
        .find(|(_, name)| !allowed.contains(&name.as_str()))
    {
        Some((what, name)) => Err(attrs.forbidden(format!(
                "{what}=\"{name}\" is not allowed because service account {account_name} does not reference that secret"
            ),
        )),
        None => Ok(()),
    }
}

/// Mirror pods come from a kubelet's static files: they may reference no
/// service account and no Secret.
fn mirror_rules(attrs: &Attributes<'_>, pod: &Value) -> Result<(), ApiError> {
    if !str_at(pod, "/spec/serviceAccountName").is_empty() {
        return Err(attrs.forbidden("a mirror pod may not reference service accounts".into()));
    }
    if !secret_references(pod).is_empty() {
        return Err(attrs.forbidden("a mirror pod may not reference secrets".into()));
    }
    Ok(())
}

/// The projected volume kube gives a pod for its account's token.
fn token_volume(name: &str) -> Value {
    json!({"name": name, "projected": {"defaultMode": 420, "sources": [
        {"serviceAccountToken": {"expirationSeconds": TOKEN_SECONDS, "path": "token"}},
        {"configMap": {"name": crate::controllers::root_ca::NAME,
            "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace",
            "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}
    ]}})
}

/// Mounts the token volume in every container and init container that
/// has nothing at the mount path, adding the volume when one needs it.
fn mount_token(pod: &mut Value) {
    let existing = items_at(pod, "/spec/volumes")
        .iter()
        .map(|v| str_at(v, "/name"))
        .find(|n| n.starts_with(VOLUME_PREFIX))
        .map(String::from);
    let volume = existing
        .clone()
        .unwrap_or_else(|| crate::util::random::generated_name(VOLUME_PREFIX));
    let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    let mut needed = false;
    for list in ["initContainers", "containers"] {
        let Some(containers) = spec.get_mut(list).and_then(Value::as_array_mut) else {
            continue;
        };
        for container in containers {
            let mounted = items_at(container, "/volumeMounts")
                .iter()
                .any(|m| str_at(m, "/mountPath") == MOUNT_PATH);
            let Some(container) = container.as_object_mut().filter(|_| !mounted) else {
                continue;
            };
            let mounts = container
                .entry("volumeMounts")
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Some(mounts) = mounts.as_array_mut() {
                mounts.push(json!({"name": volume, "readOnly": true, "mountPath": MOUNT_PATH}));
                needed = true;
            }
        }
    }
    if needed && existing.is_none() {
        let volumes = spec
            .entry("volumes")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Some(volumes) = volumes.as_array_mut() {
            volumes.push(token_volume(&volume));
        }
    }
}

impl MutatingAdmission for ServiceAccountAdmission {
    fn name(&self) -> &'static str {
        SERVICE_ACCOUNT
    }

    fn handles(&self, operation: Operation) -> bool {
        operation == Operation::Create
    }

    fn admit<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
        object: Option<&'a mut Value>,
    ) -> MaybeAsync<'a, Result<(), ApiError>> {
        match object.filter(|_| is_pod_create(attrs)) {
            Some(pod) => MaybeAsync::pending(self.admit_pod(attrs, pod)),
            None => MaybeAsync::Ready(Ok(())),
        }
    }
}

impl ValidatingAdmission for ServiceAccountAdmission {
    fn name(&self) -> &'static str {
        SERVICE_ACCOUNT
    }

    fn handles(&self, operation: Operation) -> bool {
        operation == Operation::Create
    }

    fn validate<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
        object: Option<&'a Value>,
        _pins: &'a mut Pins,
    ) -> MaybeAsync<'a, Result<(), ApiError>> {
        match object.filter(|_| is_pod_create(attrs)) {
            Some(pod) => MaybeAsync::pending(self.validate_pod(attrs, pod)),
            None => MaybeAsync::Ready(Ok(())),
        }
    }
}

#[cfg(test)]
#[path = "service_account_tests.rs"]
mod tests;
