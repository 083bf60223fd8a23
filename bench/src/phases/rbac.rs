//! The RBAC policy the auth phase measures under, made on the plain port
//! before it: 1,000 Roles and 1,000 RoleBindings spread over the Event
//! namespaces (one binding in twenty names `system:authenticated`, so each
//! request looks up and evaluates several bindings that grant nothing it
//! asks; the rest name other users), the `edit` ClusterRole bound to the
//! measured service account and RBAC user cluster-wide, and — as `edit`
//! does not cover Events — a RoleBinding per Event namespace to a role
//! that may create them.

use std::time::Duration;

use bytes::Bytes;
use http::{Method, StatusCode};

use crate::Result;
use crate::cairn::Endpoint;
use crate::cairn::client::Conn;
use crate::cairn::secure::RBAC_USER;
use crate::event::{NAMESPACES, namespace};

/// Roles and RoleBindings of the policy (each).
pub const OBJECTS: u64 = 1_000;
/// One noise binding in this many names every authenticated user.
const SHARED_EVERY: u64 = 20;
const RBAC_API: &str = "/apis/rbac.authorization.svc.io/v1";
/// The service account whose tokens the auth phase presents.
pub const SERVICE_ACCOUNT: (&str, &str) = ("default", "default");

async fn create(conn: &mut Conn, path: &str, body: String) -> Result<()> {
    let (status, resp) = conn
        .call(Method::POST, path, Some(Bytes::from(body)))
        .await?;
    if status == StatusCode::CREATED || status == StatusCode::CONFLICT {
        return Ok(());
    }
    Err(format!(
        "POST {path}: {status} {}",
        String::from_utf8_lossy(&resp[..resp.len().min(300)])
    )
    .into())
}

/// The subjects the measured identities are bound as.
fn measured_subjects() -> String {
    let (ns, sa) = SERVICE_ACCOUNT;
    format!(
        r#"[{{"kind":"ServiceAccount","name":"{sa}","namespace":"{ns}"}},{{"kind":"User","apiGroup":"rbac.authorization.svc.io","name":"{RBAC_USER}"}}]"#
    )
}

fn binding(name: &str, role_kind: &str, role: &str, subjects: &str) -> String {
    format!(
        r#"{{"metadata":{{"name":"{name}"}},"roleRef":{{"apiGroup":"rbac.authorization.svc.io","kind":"{role_kind}","name":"{role}"}},"subjects":{subjects}}}"#
    )
}

/// Makes the policy; returns a line describing it for the report.
pub async fn setup(plain: &Endpoint) -> Result<String> {
    let mut conn = Conn::open(plain).await?;
    create(
        &mut conn,
        &format!("{RBAC_API}/clusterroles"),
        r#"{"metadata":{"name":"cairn-bench-events"},"rules":[{"verbs":["create"],"apiGroups":[""],"resources":["events"]}]}"#.into(),
    )
    .await?;
    create(
        &mut conn,
        &format!("{RBAC_API}/clusterrolebindings"),
        binding(
            "cairn-bench-edit",
            "ClusterRole",
            "edit",
            &measured_subjects(),
        ),
    )
    .await?;
    for k in 0..NAMESPACES {
        let ns = namespace(k);
        create(
            &mut conn,
            &format!("{RBAC_API}/namespaces/{ns}/rolebindings"),
            binding(
                "cairn-bench-events",
                "ClusterRole",
                "cairn-bench-events",
                &measured_subjects(),
            ),
        )
        .await?;
    }
    for i in 0..OBJECTS {
        let ns = namespace(i);
        let role = format!(
            r#"{{"metadata":{{"name":"noise-{i}"}},"rules":[{{"verbs":["get","list","watch"],"apiGroups":[""],"resources":["configmaps","secrets"]}},{{"verbs":["update"],"apiGroups":["apps"],"resources":["deployments/scale"],"resourceNames":["app-{i}"]}},{{"verbs":["*"],"apiGroups":["batch"],"resources":["jobs"]}}]}}"#
        );
        create(
            &mut conn,
            &format!("{RBAC_API}/namespaces/{ns}/roles"),
            role,
        )
        .await?;
        let subjects = if i % SHARED_EVERY == 0 {
            r#"[{"kind":"Group","apiGroup":"rbac.authorization.svc.io","name":"system:authenticated"}]"#.to_string()
        } else {
            format!(
                r#"[{{"kind":"User","apiGroup":"rbac.authorization.svc.io","name":"user-{i}"}}]"#
            )
        };
        create(
            &mut conn,
            &format!("{RBAC_API}/namespaces/{ns}/rolebindings"),
            binding(
                &format!("noise-{i}"),
                "Role",
                &format!("noise-{i}"),
                &subjects,
            ),
        )
        .await?;
    }
    Ok(format!(
        "rbac: {OBJECTS} Roles and {OBJECTS} RoleBindings over {NAMESPACES} namespaces \
         (1 in {SHARED_EVERY} bound to system:authenticated); the service account \
         {}/{} and user {RBAC_USER} bound to ClusterRole edit cluster-wide and to \
         create Events in each Event namespace",
        SERVICE_ACCOUNT.0, SERVICE_ACCOUNT.1
    ))
}

/// Waits until `endpoint`'s identity may create an Event (the server's
/// RBAC caches have caught up with the policy).
pub async fn await_allowed(endpoint: &Endpoint) -> Result<()> {
    let mut conn = Conn::open(endpoint).await?;
    let path = format!("/api/v1/namespaces/{}/events?dryRun=All", namespace(0));
    let body = crate::event::body(0);
    let mut last = String::new();
    for _ in 0..100 {
        let (status, resp) = conn.call(Method::POST, &path, Some(body.clone())).await?;
        if status != StatusCode::FORBIDDEN {
            return Ok(());
        }
        last = String::from_utf8_lossy(&resp[..resp.len().min(200)]).into_owned();
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Err(format!("still forbidden after the RBAC policy was made: {last}").into())
}
