//! One audit `Event` and its two line forms: JSON (kube's field order,
//! fields left out when empty, objects embedded as the compact JSON bytes
//! already in hand) and kube's `legacy` text line.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::SystemTime;

use serde_json::Value;

use crate::request::user::UserInfo;
use crate::util::time::rfc3339_micro;

use super::policy::{Level, Stage};

/// The object a resource request addresses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ObjectRef {
    pub resource: String,
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub api_group: String,
    pub api_version: String,
    pub resource_version: String,
    pub subresource: String,
}

/// What the response said: its code, and for a `Status` answer that
/// status (kube copies status, message, reason, details and code).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResponseStatus {
    pub code: u16,
    pub status: Option<Value>,
}

/// Everything an event carries except its stage and stage time.
#[derive(Clone, Debug)]
pub struct Event {
    pub level: Level,
    pub audit_id: String,
    pub request_uri: String,
    pub verb: String,
    pub user: Arc<UserInfo>,
    pub impersonated: Option<Arc<UserInfo>>,
    pub source_ips: Vec<String>,
    pub user_agent: Option<String>,
    pub object_ref: Option<ObjectRef>,
    pub response_status: Option<ResponseStatus>,
    /// Compact JSON, one line.
    pub request_object: Option<Vec<u8>>,
    /// Compact JSON, one line.
    pub response_object: Option<Vec<u8>>,
    pub received: SystemTime,
    pub annotations: BTreeMap<String, String>,
}

fn push_str(out: &mut String, s: &str) {
    // Serialising a &str cannot fail.
    out.push_str(&serde_json::to_string(s).unwrap_or_default());
}

/// `,"key":"value"` when the value is not empty.
fn field(out: &mut String, key: &str, value: &str) {
    if !value.is_empty() {
        let _ = write!(out, ",\"{key}\":");
        push_str(out, value);
    }
}

fn string_list(out: &mut String, items: &[String]) {
    out.push('[');
    for (i, s) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_str(out, s);
    }
    out.push(']');
}

fn user(out: &mut String, key: &str, u: &UserInfo) {
    let _ = write!(out, ",\"{key}\":{{");
    let mut inner = String::new();
    field(&mut inner, "username", &u.name);
    field(&mut inner, "uid", &u.uid);
    if !u.groups.is_empty() {
        inner.push_str(",\"groups\":");
        string_list(&mut inner, &u.groups);
    }
    if !u.extra.is_empty() {
        inner.push_str(",\"extra\":{");
        for (i, (k, v)) in u.extra.iter().enumerate() {
            if i > 0 {
                inner.push(',');
            }
            push_str(&mut inner, k);
            inner.push(':');
            string_list(&mut inner, v);
        }
        inner.push('}');
    }
    out.push_str(inner.strip_prefix(',').unwrap_or(&inner));
    out.push('}');
}

fn object_ref(out: &mut String, r: &ObjectRef) {
    let mut inner = String::new();
    field(&mut inner, "resource", &r.resource);
    field(&mut inner, "namespace", &r.namespace);
    field(&mut inner, "name", &r.name);
    field(&mut inner, "uid", &r.uid);
    field(&mut inner, "apiGroup", &r.api_group);
    field(&mut inner, "apiVersion", &r.api_version);
    field(&mut inner, "resourceVersion", &r.resource_version);
    field(&mut inner, "subresource", &r.subresource);
    let _ = write!(
        out,
        ",\"objectRef\":{{{}}}",
        inner.strip_prefix(',').unwrap_or(&inner)
    );
}

fn response_status(out: &mut String, s: &ResponseStatus) {
    out.push_str(",\"responseStatus\":{\"metadata\":{}");
    if let Some(status) = &s.status {
        for key in ["status", "message", "reason"] {
            if let Some(v) = status.get(key).and_then(Value::as_str) {
                field(out, key, v);
            }
        }
        if let Some(details) = status.get("details").filter(|d| !d.is_null()) {
            let _ = write!(out, ",\"details\":{details}");
        }
    }
    let _ = write!(out, ",\"code\":{}}}", s.code);
}

fn raw(out: &mut String, key: &str, bytes: &[u8]) {
    // Bytes recorded are valid compact JSON, hence UTF-8.
    if let Ok(text) = std::str::from_utf8(bytes) {
        let _ = write!(out, ",\"{key}\":{text}");
    }
}

impl Event {
    /// The event at `stage`, stamped `now`, as one JSON line (with `\n`).
    #[must_use]
    pub fn json_line(&self, api_version: &str, stage: Stage, now: SystemTime) -> String {
        let mut out = String::with_capacity(512);
        let _ = write!(out, "{{\"kind\":\"Event\",\"apiVersion\":\"{api_version}\"");
        field(&mut out, "level", self.level.as_str());
        field(&mut out, "auditID", &self.audit_id);
        field(&mut out, "stage", stage.as_str());
        field(&mut out, "requestURI", &self.request_uri);
        field(&mut out, "verb", &self.verb);
        user(&mut out, "user", &self.user);
        if let Some(u) = &self.impersonated {
            user(&mut out, "impersonatedUser", u);
        }
        if !self.source_ips.is_empty() {
            out.push_str(",\"sourceIPs\":");
            string_list(&mut out, &self.source_ips);
        }
        field(
            &mut out,
            "userAgent",
            self.user_agent.as_deref().unwrap_or_default(),
        );
        if let Some(r) = &self.object_ref {
            object_ref(&mut out, r);
        }
        if let Some(s) = &self.response_status {
            response_status(&mut out, s);
        }
        if let Some(bytes) = &self.request_object {
            raw(&mut out, "requestObject", bytes);
        }
        if let Some(bytes) = &self.response_object {
            raw(&mut out, "responseObject", bytes);
        }
        field(
            &mut out,
            "requestReceivedTimestamp",
            &rfc3339_micro(self.received),
        );
        field(&mut out, "stageTimestamp", &rfc3339_micro(now));
        if !self.annotations.is_empty() {
            out.push_str(",\"annotations\":{");
            for (i, (k, v)) in self.annotations.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_str(&mut out, k);
                out.push(':');
                push_str(&mut out, v);
            }
            out.push('}');
        }
        out.push_str("}\n");
        out
    }

    /// kube's `legacy` line: `<received> AUDIT: id="…" stage="…" ip="…"
    /// method="…" user="…" groups="…" as="…" asgroups="…" user-agent="…"
    /// namespace="…" uri="…" response="…"`.
    #[must_use]
    pub fn legacy_line(&self, stage: Stage) -> String {
        let quoted_list = |items: &[String]| {
            items
                .iter()
                .map(|g| go_quote(g))
                .collect::<Vec<_>>()
                .join(",")
        };
        let (username, groups) = if self.user.name.is_empty() {
            ("<none>".to_string(), "<none>".to_string())
        } else if self.user.groups.is_empty() {
            (self.user.name.clone(), "<none>".to_string())
        } else {
            (self.user.name.clone(), quoted_list(&self.user.groups))
        };
        let (as_user, as_groups) = match &self.impersonated {
            None => ("<self>".to_string(), "<lookup>".to_string()),
            Some(u) => (u.name.clone(), quoted_list(&u.groups)),
        };
        let namespace = self
            .object_ref
            .as_ref()
            .map(|r| r.namespace.as_str())
            .filter(|ns| !ns.is_empty())
            .unwrap_or("<none>");
        let response = self
            .response_status
            .as_ref()
            .map_or("<deferred>".to_string(), |s| s.code.to_string());
        let ip = self.source_ips.first().map_or("<unknown>", String::as_str);
        format!(
            "{} AUDIT: id={} stage={} ip={} method={} user={} groups={} as={} asgroups={} user-agent={} namespace={} uri={} response=\"{response}\"\n",
            rfc3339_nano(self.received),
            go_quote(&self.audit_id),
            go_quote(stage.as_str()),
            go_quote(ip),
            go_quote(&self.verb),
            go_quote(&username),
            go_quote(&groups),
            go_quote(&as_user),
            go_quote(&as_groups),
            go_quote(self.user_agent.as_deref().unwrap_or_default()),
            go_quote(namespace),
            go_quote(&self.request_uri),
        )
    }
}

/// Go's `%q` for the printable text audit lines carry.
fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go's RFC3339Nano: trailing zeros of the fraction dropped.
fn rfc3339_nano(t: SystemTime) -> String {
    let micro = rfc3339_micro(t);
    let Some((whole, fraction)) = micro.trim_end_matches('Z').split_once('.') else {
        return micro;
    };
    match fraction.trim_end_matches('0') {
        "" => format!("{whole}Z"),
        digits => format!("{whole}.{digits}Z"),
    }
}
