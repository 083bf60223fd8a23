//! One request's audit: the `Trail` the request boundary carries from
//! arrival to answer, and the `AuditContext` handlers may annotate or
//! hand request objects to. Both do nothing (and cost nothing beyond the
//! audit ID) when auditing is off or the policy's level is None.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::SystemTime;

use http::HeaderMap;
use parking_lot::Mutex;
use serde_json::Value;

use crate::request::authz::Verdict;
use crate::request::info::RequestInfo;
use crate::request::user::UserInfo;

use super::event::{Event, ObjectRef, ResponseStatus};
use super::json;
use super::policy::{Level, Stage};
use super::{AUDIT_ID_HEADER, Auditor, Decision};

/// The audit of one request, shared by the handlers that serve it.
#[derive(Clone, Default)]
pub struct AuditContext(Option<Arc<Active>>);

struct Active {
    auditor: Arc<Auditor>,
    decision: Decision,
    event: Mutex<Event>,
}

impl AuditContext {
    /// Adds an annotation to the request's event (kube's
    /// `AddAuditAnnotation`: the first value set for a key stays).
    pub fn annotate(&self, key: &str, value: &str) {
        let Some(active) = &self.0 else { return };
        let mut event = active.event.lock();
        match event.annotations.get(key) {
            Some(old) if old != value => {
                tracing::warn!(key, value, old = %old, audit_id = %event.audit_id, "audit annotation already set");
            }
            Some(_) => {}
            None => {
                event.annotations.insert(key.to_string(), value.to_string());
            }
        }
    }

    /// The policy's level for this request (None when not audited).
    #[must_use]
    pub fn level(&self) -> Level {
        self.0.as_ref().map_or(Level::None, |a| a.decision.level)
    }

    /// Whether the request's body is recorded (level Request and above).
    #[must_use]
    pub fn wants_request_object(&self) -> bool {
        self.level() >= Level::Request
    }

    /// A create, update, patch or delete body as the client sent it (JSON,
    /// or YAML for apply): completes the objectRef from its metadata, as
    /// kube does, and is recorded from level Request.
    pub fn record_request_body(&self, body: &[u8]) {
        let Some(active) = &self.0 else { return };
        let wanted = active.decision.level >= Level::Request;
        let recorded = wanted
            .then(|| json::compact(body, active.decision.omit_managed_fields))
            .flatten();
        let identity = json::identity(body);
        let mut event = active.event.lock();
        complete_object_ref(&mut event, &identity);
        if let Some(bytes) = recorded {
            event.request_object = Some(secret_free(&event, bytes));
        }
    }

    /// A body that arrived in a binary form (protobuf), once decoded.
    pub fn record_request_value(&self, value: &Value) {
        let Some(active) = &self.0 else { return };
        let wanted = active.decision.level >= Level::Request;
        let recorded = wanted
            .then(|| json::compact_value(value, active.decision.omit_managed_fields))
            .flatten();
        let mut event = active.event.lock();
        complete_object_ref(&mut event, &json::identity_of(value));
        if let Some(bytes) = recorded {
            event.request_object = Some(secret_free(&event, bytes));
        }
    }

    fn emit(&self, stage: Stage) {
        let Some(active) = &self.0 else { return };
        if active.decision.omit_stages.contains(stage) {
            return;
        }
        let event = active.event.lock();
        active.auditor.write(&event, stage);
    }
}

/// A recorded body without the bearer token its kind may carry.
fn secret_free(event: &Event, bytes: Vec<u8>) -> Vec<u8> {
    match &event.object_ref {
        Some(r) => json::without_tokens(&r.resource, &r.subresource, bytes),
        None => bytes,
    }
}

/// Fills the objectRef's empty fields from the request object's metadata.
fn complete_object_ref(event: &mut Event, identity: &json::Identity) {
    let Some(r) = &mut event.object_ref else {
        return;
    };
    for (field, value) in [
        (&mut r.namespace, &identity.namespace),
        (&mut r.name, &identity.name),
        (&mut r.uid, &identity.uid),
        (&mut r.resource_version, &identity.resource_version),
    ] {
        if field.is_empty() {
            field.clone_from(value);
        }
    }
}

/// What is known of a request before it is authenticated.
struct Arrival {
    request_uri: String,
    source_ips: Vec<String>,
    user_agent: Option<String>,
    received: SystemTime,
}

/// A request's audit from arrival to answer.
pub struct Trail {
    id: String,
    auditor: Option<Arc<Auditor>>,
    arrival: Option<Arrival>,
    context: AuditContext,
    /// The request was refused before it was authenticated: its one event
    /// is written at ResponseStarted.
    unauthenticated: bool,
    finished: bool,
}

impl Trail {
    /// Starts the trail of a request: its audit ID, and when auditing is
    /// on, what the event needs of the request itself.
    #[must_use]
    pub fn begin(
        auditor: Option<&Arc<Auditor>>,
        headers: &HeaderMap,
        request_uri: &str,
        remote: Option<IpAddr>,
    ) -> Trail {
        let id = headers
            .get(AUDIT_ID_HEADER)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .filter(|v| !v.is_empty())
            .unwrap_or_else(crate::util::random::uuid_v4);
        let arrival = auditor.map(|_| Arrival {
            request_uri: request_uri.to_string(),
            source_ips: source_ips(headers, remote),
            user_agent: headers
                .get(http::header::USER_AGENT)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned()),
            received: SystemTime::now(),
        });
        Trail {
            id,
            auditor: auditor.cloned(),
            arrival,
            context: AuditContext::default(),
            unauthenticated: false,
            finished: false,
        }
    }

    /// The request's audit ID.
    #[must_use]
    pub fn id(&self) -> &str {
        &self.id
    }

    /// What handlers annotate and record to.
    #[must_use]
    pub fn context(&self) -> &AuditContext {
        &self.context
    }

    /// Applies the policy for the authenticated `requester` and writes the
    /// RequestReceived stage.
    pub fn authenticated(&mut self, requester: &Arc<UserInfo>, info: &RequestInfo) {
        self.open(requester, info);
        self.context.emit(Stage::RequestReceived);
    }

    /// The request was not authenticated: the policy is applied for no user.
    pub fn authentication_failed(&mut self, info: &RequestInfo) {
        self.open(&Arc::new(UserInfo::default()), info);
        self.unauthenticated = true;
    }

    fn open(&mut self, user: &Arc<UserInfo>, info: &RequestInfo) {
        let (Some(auditor), Some(arrival)) = (&self.auditor, self.arrival.take()) else {
            return;
        };
        let decision = auditor.policy.evaluate(user, info);
        if decision.level == Level::None {
            return;
        }
        let object_ref = info.resource.as_ref().map(|r| ObjectRef {
            resource: r.resource.clone(),
            namespace: info.namespace().to_string(),
            name: info.name().to_string(),
            api_group: r.group.clone(),
            api_version: r.version.clone(),
            subresource: r.subresource.clone().unwrap_or_default(),
            ..ObjectRef::default()
        });
        let event = Event {
            level: decision.level,
            audit_id: self.id.clone(),
            request_uri: arrival.request_uri,
            verb: info.verb.to_string(),
            user: Arc::clone(user),
            impersonated: None,
            source_ips: arrival.source_ips,
            user_agent: arrival.user_agent,
            object_ref,
            response_status: None,
            request_object: None,
            response_object: None,
            received: arrival.received,
            annotations: Default::default(),
        };
        self.context = AuditContext(Some(Arc::new(Active {
            auditor: Arc::clone(auditor),
            decision,
            event: Mutex::new(event),
        })));
    }

    /// The request acts as `user` (impersonation).
    pub fn impersonated(&self, user: &Arc<UserInfo>) {
        if let Some(active) = &self.context.0 {
            active.event.lock().impersonated = Some(Arc::clone(user));
        }
    }

    /// The authorizer chain's decision, as kube's annotations
    /// `authorization.{domain}/decision` and `…/reason`.
    pub fn authorized(&self, verdict: &Verdict) {
        let Some(active) = &self.context.0 else {
            return;
        };
        let prefix = &active.auditor.authorization_prefix;
        if verdict.allowed {
            self.context.annotate(&format!("{prefix}decision"), "allow");
            self.context
                .annotate(&format!("{prefix}reason"), &verdict.reason);
        } else if !verdict.denied && !verdict.evaluation_error.is_empty() {
            self.context
                .annotate(&format!("{prefix}reason"), "internal error");
        } else {
            self.context
                .annotate(&format!("{prefix}decision"), "forbid");
            self.context
                .annotate(&format!("{prefix}reason"), &verdict.reason);
        }
    }

    /// Whether the response's body is recorded (level RequestResponse).
    #[must_use]
    pub fn wants_response_object(&self) -> bool {
        self.context.level() >= Level::RequestResponse
    }

    fn respond(&self, code: u16, status: Option<&Value>, body: Option<&[u8]>) {
        let Some(active) = &self.context.0 else {
            return;
        };
        let recorded = body
            .filter(|_| active.decision.level >= Level::RequestResponse)
            .and_then(|b| json::compact(b, active.decision.omit_managed_fields));
        let mut event = active.event.lock();
        event.response_status = Some(ResponseStatus {
            code,
            status: status.cloned(),
        });
        if let Some(bytes) = recorded {
            event.response_object = Some(secret_free(&event, bytes));
        }
    }

    /// The answer was sent whole: its code, its `Status` if it is one, its
    /// JSON body (for level RequestResponse); writes ResponseComplete (or
    /// ResponseStarted for a request refused before authentication).
    pub fn complete(mut self, code: u16, status: Option<&Value>, body: Option<&[u8]>) {
        self.finished = true;
        self.respond(code, status, body);
        let stage = if self.unauthenticated {
            Stage::ResponseStarted
        } else {
            Stage::ResponseComplete
        };
        self.context.emit(stage);
    }

    /// A long-running answer (a watch) started: writes ResponseStarted;
    /// ResponseComplete follows when the returned guard is dropped, as the
    /// stream ends.
    #[must_use]
    pub fn started(mut self, code: u16, status: Option<&Value>) -> Completion {
        self.finished = true;
        self.respond(code, status, None);
        self.context.emit(Stage::ResponseStarted);
        Completion(self.context.clone())
    }
}

impl Drop for Trail {
    /// A handler that panicked: the Panic stage, as kube writes it.
    fn drop(&mut self) {
        if self.finished || !std::thread::panicking() {
            return;
        }
        if let Some(active) = &self.context.0 {
            active.event.lock().response_status = Some(ResponseStatus {
                code: 500,
                status: Some(serde_json::json!({
                    "status": "Failure",
                    "message": "APIServer panic'd",
                    "reason": "InternalError",
                })),
            });
        }
        self.context.emit(Stage::Panic);
    }
}

/// Writes ResponseComplete when dropped (a watch's stream ended).
pub struct Completion(AuditContext);

impl Drop for Completion {
    fn drop(&mut self) {
        self.0.emit(Stage::ResponseComplete);
    }
}

/// kube's source IPs: `X-Forwarded-For`'s addresses, `X-Real-Ip` if not
/// among them, then the peer's address unless it is the last one already.
fn source_ips(headers: &HeaderMap, remote: Option<IpAddr>) -> Vec<String> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let mut ips: Vec<IpAddr> = header("x-forwarded-for")
        .map(|list| {
            list.split(',')
                .filter_map(|p| p.trim().parse().ok())
                .collect()
        })
        .unwrap_or_default();
    if let Some(real) = header("x-real-ip").and_then(|v| v.trim().parse().ok())
        && !ips.contains(&real)
    {
        ips.push(real);
    }
    if let Some(remote) = remote
        && ips.last() != Some(&remote)
    {
        ips.push(remote);
    }
    ips.iter().map(ToString::to_string).collect()
}
