//! Command-line flags (kube-apiserver's names) and the `Config` they make.

pub mod authn;
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
    /// AuthenticationConfiguration file (YAML or JSON): JWT issuers and the
    /// anonymous section; re-read when it changes.
    #[arg(long)]
    pub authentication_config: Option<PathBuf>,
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
    pub authentication_config: Option<PathBuf>,
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
            authentication_config: f.authentication_config,
            bound: Mutex::new(None),
        }
    }
}

impl Config {
    /// `host:port` clients reach this server at.
    #[must_use]
    pub fn advertise_address(&self) -> String {
        self.bound.lock().map_or_else(
            || format!("{}:{}", self.insecure_bind_address, self.insecure_port),
            |a| a.to_string(),
        )
    }
}
