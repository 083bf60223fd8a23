//! Audit logging as kube-apiserver does it: every request gets an audit
//! ID (the incoming `Audit-ID` header's, else a new UUID) echoed in the
//! `Audit-Id` response header; with `--audit-policy-file` and
//! `--audit-log-path`, the policy's first matching rule (for the
//! authenticated user) picks a level, and the request's `Event` is
//! written at each stage it lives through (RequestReceived,
//! ResponseStarted for watches, ResponseComplete, Panic) unless the
//! policy omits that stage. Nothing of this costs more than the ID
//! without both flags.

mod context;
pub mod event;
pub mod json;
mod matching;
pub mod policy;
pub mod rotate;
pub mod sink;

use std::sync::Arc;

use crate::config::Config;
use crate::config::audit::LogFormat;

pub use context::{AuditContext, Completion, Trail};
pub use matching::Decision;
pub use policy::{Level, Policy, Stage};
use sink::Sink;

/// The request and response header carrying the audit ID (kube's
/// `Audit-ID`, written `Audit-Id` as Go canonicalises it).
pub const AUDIT_ID_HEADER: &str = "audit-id";

/// The configured audit: the policy and the log it writes.
pub struct Auditor {
    policy: Policy,
    sink: Sink,
    format: LogFormat,
    /// `audit.{domain}/v1`.
    api_version: String,
    /// `authorization.{domain}/`, the prefix of the decision annotations.
    authorization_prefix: String,
}

impl Auditor {
    /// The auditor the flags ask for: `None` without a log path, or with a
    /// log path but no policy (kube then records nothing). Bad flags or
    /// policy files are one line.
    pub fn from_config(config: &Config) -> Result<Option<Arc<Auditor>>, String> {
        let flags = &config.audit;
        let domain = &config.api_domain;
        let policy = match &flags.audit_policy_file {
            Some(path) => Some(Policy::load(path, domain)?),
            None => None,
        };
        // kube checks the log flags only when the log is asked for.
        let Some(path) = &flags.audit_log_path else {
            return Ok(None);
        };
        let format = flags.format()?;
        let mode = flags.mode()?;
        let capacity = flags.buffer_size(mode)?;
        let rotation = flags.rotation()?;
        flags.check_version(domain)?;
        let Some(policy) = policy else {
            tracing::info!(
                "no audit policy file provided: no events will be recorded for the log backend"
            );
            return Ok(None);
        };
        let sink = Sink::open(path, rotation, mode, capacity)?;
        Ok(Some(Arc::new(Auditor {
            policy,
            sink,
            format,
            api_version: format!("audit.{domain}/v1"),
            authorization_prefix: format!("authorization.{domain}/"),
        })))
    }

    /// Events queued for the log so far (for metrics).
    #[must_use]
    pub fn events_total(&self) -> u64 {
        self.sink.events_total()
    }

    /// Events dropped or not written (for metrics).
    #[must_use]
    pub fn errors_total(&self) -> u64 {
        self.sink.errors_total()
    }

    /// Writes what is queued and stops the writer (at shutdown).
    pub fn close(&self) {
        self.sink.close();
    }

    fn write(&self, event: &event::Event, stage: Stage) {
        let line = match self.format {
            LogFormat::Json => {
                event.json_line(&self.api_version, stage, std::time::SystemTime::now())
            }
            LogFormat::Legacy => event.legacy_line(stage),
        };
        self.sink.send(line);
    }
}
