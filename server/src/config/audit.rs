//! The audit flags, kube-apiserver's names: the policy, the log file, its
//! format, mode and rotation.

use std::path::PathBuf;

use clap::Args;

#[derive(Args, Debug, Clone, Default)]
pub struct AuditFlags {
    /// Audit policy file (audit.k8s.io/v1 Policy, YAML or JSON). Without it
    /// no audit events are recorded.
    #[arg(long)]
    pub audit_policy_file: Option<PathBuf>,
    /// Where audit events are written, one per line (`-` is standard out).
    /// Without it no audit log is written.
    #[arg(long)]
    pub audit_log_path: Option<String>,
    /// Format of the audit log: `json` (an Event per line) or `legacy`
    /// (one line of text per event).
    #[arg(long, default_value = "json")]
    pub audit_log_format: String,
    /// `blocking` (requests wait for a full queue to drain) or `batch`
    /// (events beyond a full queue are dropped and counted);
    /// `blocking-strict` behaves as `blocking`.
    #[arg(long, default_value = "blocking")]
    pub audit_log_mode: String,
    /// Events queued for the log writer before the mode applies.
    #[arg(long, default_value_t = 10_000, allow_negative_numbers = true)]
    pub audit_log_batch_buffer_size: i64,
    /// API group and version of the events written (only audit.k8s.io/v1,
    /// with the configured API domain).
    #[arg(long)]
    pub audit_log_version: Option<String>,
    /// Largest size in megabytes of the audit log before it is rotated
    /// (0: 100, as kube's log rotation has it).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    pub audit_log_maxsize: i64,
    /// Rotated audit log files kept (0: all).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    pub audit_log_maxbackup: i64,
    /// Days a rotated audit log file is kept, by the time in its name (0: forever).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    pub audit_log_maxage: i64,
    /// Gzip rotated audit log files.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", require_equals = false)]
    pub audit_log_compress: Option<bool>,
}

/// The log's line format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    Json,
    Legacy,
}

/// What the writer does when its queue is full.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogMode {
    Blocking,
    Batch,
}

/// Rotation of the log file, kube's (lumberjack's) rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rotation {
    pub max_bytes: u64,
    /// 0 keeps every backup.
    pub max_backups: usize,
    /// 0 keeps backups of any age.
    pub max_age_days: u64,
    pub compress: bool,
}

/// Megabytes of the log before rotation when `--audit-log-maxsize` is 0.
const DEFAULT_MAX_MEGABYTES: u64 = 100;

/// kube's batch buffer size default, also the queue of blocking mode.
const DEFAULT_BUFFER_SIZE: usize = 10_000;

impl AuditFlags {
    /// The format, or the line kube-apiserver refuses it with.
    pub fn format(&self) -> Result<LogFormat, String> {
        match self.audit_log_format.as_str() {
            "json" => Ok(LogFormat::Json),
            "legacy" => Ok(LogFormat::Legacy),
            other => Err(format!(
                "--audit-log-format: invalid audit log format {other}, allowed formats are \"legacy,json\""
            )),
        }
    }

    /// The mode, or the line kube-apiserver refuses it with.
    pub fn mode(&self) -> Result<LogMode, String> {
        match self.audit_log_mode.as_str() {
            "blocking" | "blocking-strict" => Ok(LogMode::Blocking),
            "batch" => Ok(LogMode::Batch),
            other => Err(format!(
                "--audit-log-mode: invalid audit log mode {other}, allowed modes are \"batch,blocking,blocking-strict\""
            )),
        }
    }

    /// The queue's capacity: the batch buffer size, checked (as kube
    /// checks it) only in batch mode.
    pub fn buffer_size(&self, mode: LogMode) -> Result<usize, String> {
        match usize::try_from(self.audit_log_batch_buffer_size) {
            Ok(n) if n > 0 => Ok(n),
            _ if mode == LogMode::Blocking => Ok(DEFAULT_BUFFER_SIZE),
            _ => Err(format!(
                "--audit-log-batch-buffer-size: invalid audit batch log buffer size {}, must be a positive number",
                self.audit_log_batch_buffer_size
            )),
        }
    }

    /// The event version, which must be `audit.{domain}/v1`.
    pub fn check_version(&self, domain: &str) -> Result<(), String> {
        let wanted = format!("audit.{domain}/v1");
        match self.audit_log_version.as_deref() {
            None => Ok(()),
            Some(v) if v == wanted => Ok(()),
            Some(_) => Err(format!(
                "--audit-log-version: invalid group version, allowed versions are \"[{wanted}]\""
            )),
        }
    }

    /// The rotation settings; negative values are refused as kube refuses them.
    pub fn rotation(&self) -> Result<Rotation, String> {
        let non_negative = |flag: &str, v: i64| {
            u64::try_from(v).map_err(|_| format!("--{flag} {v} can't be a negative number"))
        };
        let megabytes = non_negative("audit-log-maxsize", self.audit_log_maxsize)?;
        let megabytes = if megabytes == 0 {
            DEFAULT_MAX_MEGABYTES
        } else {
            megabytes
        };
        let backups = non_negative("audit-log-maxbackup", self.audit_log_maxbackup)?;
        Ok(Rotation {
            max_bytes: megabytes.saturating_mul(1024 * 1024),
            max_backups: usize::try_from(backups).unwrap_or(usize::MAX),
            max_age_days: non_negative("audit-log-maxage", self.audit_log_maxage)?,
            compress: self.audit_log_compress == Some(true),
        })
    }
}
