//! Command-line flags (kube-apiserver's names) and the `Config` they make.

pub mod feature_gates;

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;
use parking_lot::Mutex;

use crate::util::duration;
pub use feature_gates::FeatureGates;

/// cairn-apiserver: a Kubernetes-compatible API server on cairn's own storage engine.
#[derive(Parser, Debug)]
#[command(name = "cairn-apiserver", version, about, long_about = None)]
pub struct Flags {
    /// Directory of the embedded store (created if missing).
    #[arg(long, default_value = "./cairn-data")]
    pub data_dir: PathBuf,
    /// Address of the plain-HTTP port. Every request on it acts as user
    /// system:admin in group system:masters: for local use only.
    #[arg(long, default_value = "127.0.0.1")]
    pub insecure_bind_address: IpAddr,
    /// Plain-HTTP port (0 disables it).
    #[arg(long, default_value_t = 8080)]
    pub insecure_port: u16,
    /// Domain of API group names, media-type parameters and annotations
    /// (`k8s.io` lets real Kubernetes clients use every named group).
    #[arg(long, default_value = "svc.io")]
    pub api_domain: String,
    /// How long Events are kept after their last write.
    #[arg(long, default_value = "1h", value_parser = duration::parse)]
    pub event_ttl: Duration,
    /// Feature gates, e.g. `ShardedListAndWatch=true,APIResponseCompression=false`.
    /// Known: APIResponseCompression (BETA, default true), AllowUnsafeMalformedObjectDeletion
    /// (ALPHA, default false), CBORServingAndStorage (ALPHA, default false),
    /// ShardedListAndWatch (ALPHA, default false), WatchList (BETA, default true).
    #[arg(long, default_value = "", value_parser = FeatureGates::parse)]
    pub feature_gates: FeatureGates,
    /// Largest accepted request body, in bytes.
    #[arg(long, default_value_t = 3 * 1024 * 1024)]
    pub max_request_bytes: u64,
    /// How long to keep serving after SIGTERM with readyz failing, so load
    /// balancers stop sending traffic first.
    #[arg(long, default_value = "0s", value_parser = duration::parse)]
    pub shutdown_delay_duration: Duration,
    /// How long after start-up livez ignores unfinished post-start hooks.
    #[arg(long, default_value = "0s", value_parser = duration::parse)]
    pub livez_grace_period: Duration,
    /// History kept for watches and old reads before compaction (0 disables compaction).
    #[arg(long, default_value = "5m", value_parser = duration::parse)]
    pub compaction_interval: Duration,
    /// Static bearer tokens: a CSV file of `token,user,uid[,"group1,group2"]`.
    #[arg(long)]
    pub token_auth_file: Option<PathBuf>,
    /// Whether requests no authenticator recognises are served as
    /// system:anonymous in system:unauthenticated (default true).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", require_equals = false)]
    pub anonymous_auth: Option<bool>,
}

/// The running configuration.
#[derive(Debug)]
pub struct Config {
    pub data_dir: PathBuf,
    pub insecure_bind_address: IpAddr,
    pub insecure_port: u16,
    pub api_domain: String,
    pub event_ttl: Duration,
    pub feature_gates: FeatureGates,
    pub max_request_bytes: u64,
    pub shutdown_delay: Duration,
    pub livez_grace_period: Duration,
    pub compaction_interval: Duration,
    pub token_auth_file: Option<PathBuf>,
    /// `--anonymous-auth` as given; `None` when absent (anonymous requests
    /// are then allowed unless an AuthenticationConfiguration says
    /// otherwise; giving both is an error).
    pub anonymous_auth: Option<bool>,
    /// The address actually bound (port 0 picks one).
    pub bound: Mutex<Option<SocketAddr>>,
}

impl From<Flags> for Config {
    fn from(f: Flags) -> Config {
        Config {
            data_dir: f.data_dir,
            insecure_bind_address: f.insecure_bind_address,
            insecure_port: f.insecure_port,
            api_domain: f.api_domain,
            event_ttl: f.event_ttl,
            feature_gates: f.feature_gates,
            max_request_bytes: f.max_request_bytes,
            shutdown_delay: f.shutdown_delay_duration,
            livez_grace_period: f.livez_grace_period,
            compaction_interval: f.compaction_interval,
            token_auth_file: f.token_auth_file,
            anonymous_auth: f.anonymous_auth,
            bound: Mutex::new(None),
        }
    }
}

impl Config {
    /// Whether `--anonymous-auth` allows anonymous requests (its default).
    #[must_use]
    pub fn anonymous_by_flag(&self) -> bool {
        self.anonymous_auth.unwrap_or(true)
    }

    /// `host:port` clients reach this server at.
    #[must_use]
    pub fn advertise_address(&self) -> String {
        self.bound.lock().map_or_else(
            || format!("{}:{}", self.insecure_bind_address, self.insecure_port),
            |a| a.to_string(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(args: &[&str]) -> Config {
        let all = std::iter::once("cairn-apiserver").chain(args.iter().copied());
        Config::from(Flags::try_parse_from(all).expect("valid flags"))
    }

    #[test]
    fn authentication_flags_read_as_kube_apiserver_reads_them() {
        let plain = config(&[]);
        assert_eq!(
            (plain.anonymous_auth, plain.anonymous_by_flag()),
            (None, true)
        );
        assert_eq!(plain.token_auth_file, None);
        assert!(!config(&["--anonymous-auth=false"]).anonymous_by_flag());
        assert_eq!(config(&["--anonymous-auth"]).anonymous_auth, Some(true));
        assert_eq!(
            config(&["--anonymous-auth=true"]).anonymous_auth,
            Some(true)
        );
        let tokens = config(&["--token-auth-file", "/etc/cairn/tokens.csv"]);
        assert_eq!(
            tokens.token_auth_file,
            Some(PathBuf::from("/etc/cairn/tokens.csv"))
        );
        assert!(Flags::try_parse_from(["cairn-apiserver", "--anonymous-auth=maybe"]).is_err());
    }
}
