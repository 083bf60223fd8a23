//! TokenRequest (POST `serviceaccounts/<name>/token`): a token for an
//! existing ServiceAccount, optionally bound to an existing Pod, Secret or
//! Node of the same namespace, with Kubernetes' errors when they are
//! missing or their uid is not the one asked for.

use std::time::SystemTime;

use serde_json::Value;

use super::TokenIssuer;
use super::claims::{KubernetesClaims, ObjectRef};
use crate::api::bodies::token_request::{self, BoundObject};
use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::object;
use crate::api::store::Store;

fn core_kind(store: &Store, resource: &str) -> std::sync::Arc<KindSpec> {
    store
        .registry
        .lookup("", "v1", resource)
        .expect("core kinds are built in")
}

fn reference(obj: &Value) -> ObjectRef {
    ObjectRef {
        name: object::name(obj).to_string(),
        uid: object::uid(obj).to_string(),
    }
}

/// The service account a pod runs as (`default` when it names none).
fn pod_service_account(pod: &Value) -> &str {
    ["/spec/serviceAccountName", "/spec/serviceAccount"]
        .iter()
        .map(|p| object::str_at(pod, p))
        .find(|s| !s.is_empty())
        .unwrap_or("default")
}

/// Names the bound object in `claims`, or refuses the binding.
async fn bind(
    store: &Store,
    service_account: &str,
    namespace: &str,
    bound: &BoundObject,
    claims: &mut KubernetesClaims,
) -> Result<(), ApiError> {
    let (group, version) = bound
        .api_version
        .rsplit_once('/')
        .unwrap_or(("", bound.api_version.as_str()));
    let uid = match (group, bound.kind.as_str()) {
        ("", "Pod") => {
            let pod = store
                .get(
                    &core_kind(store, "pods"),
                    Some(namespace),
                    &bound.name,
                    None,
                )
                .await?;
            if pod_service_account(&pod) != service_account {
                return Err(ApiError::BadRequest(format!(
                    "cannot bind token for serviceaccount {service_account:?} to pod running with different serviceaccount name."
                )));
            }
            // The pod's node is named for information; a node that is
            // gone leaves it out rather than failing the request.
            let node_name = object::str_at(&pod, "/spec/nodeName");
            if !node_name.is_empty() {
                match store
                    .get(&core_kind(store, "nodes"), None, node_name, None)
                    .await
                {
                    Ok(node) => claims.node = Some(reference(&node)),
                    Err(ApiError::NotFound { .. }) => {}
                    Err(e) => return Err(e),
                }
            }
            let pod = reference(&pod);
            let uid = pod.uid.clone();
            claims.pod = Some(pod);
            uid
        }
        ("", "Secret") => {
            let secret = store
                .get(
                    &core_kind(store, "secrets"),
                    Some(namespace),
                    &bound.name,
                    None,
                )
                .await?;
            let secret = reference(&secret);
            let uid = secret.uid.clone();
            claims.secret = Some(secret);
            uid
        }
        ("", "Node") => {
            let node = store
                .get(&core_kind(store, "nodes"), None, &bound.name, None)
                .await?;
            let node = reference(&node);
            let uid = node.uid.clone();
            claims.node = Some(node);
            uid
        }
        _ => {
            return Err(ApiError::BadRequest(format!(
                "cannot bind token for serviceaccount {service_account:?} to object of type {group}/{version}, Kind={}",
                bound.kind
            )));
        }
    };
    if !bound.uid.is_empty() && bound.uid != uid {
        return Err(ApiError::Conflict {
            group: String::new(),
            resource: bound.kind.clone(),
            name: bound.name.clone(),
            cause: format!(
                "the UID in the bound object reference ({}) does not match the UID in record. The object might have been deleted and then recreated",
                bound.uid
            ),
        });
    }
    Ok(())
}

/// Answers a TokenRequest `body` for service account `name` in
/// `namespace`: the TokenRequest with its token.
pub async fn create(
    store: &Store,
    issuer: &TokenIssuer,
    namespace: &str,
    name: &str,
    body: &Value,
    domain: &str,
) -> Result<Value, ApiError> {
    let request = token_request::decode(body, name, namespace, issuer.api_audiences(), domain)?;
    let service_account = store
        .get(
            &core_kind(store, "serviceaccounts"),
            Some(namespace),
            name,
            None,
        )
        .await?;
    let mut claims = KubernetesClaims {
        namespace: namespace.to_string(),
        serviceaccount: reference(&service_account),
        ..KubernetesClaims::default()
    };
    if let Some(bound) = &request.bound {
        bind(store, name, namespace, bound, &mut claims).await?;
    }
    let granted = issuer.granted_seconds(request.expiration_seconds);
    let minted = issuer.mint(
        claims,
        request.audiences.clone(),
        granted,
        SystemTime::now(),
    )?;
    Ok(request.answer(name, namespace, granted, &minted.token, minted.expires))
}
