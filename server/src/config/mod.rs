//! Command-line flags (kube-apiserver's names) and the `Config` they make.

pub mod admission;
pub mod audit;
pub mod authn;
pub mod authorization;
pub mod authz;
pub mod cluster_signing;
pub mod document;
pub mod encryption;
pub mod etcd;
pub mod feature_gates;
pub mod file_pair;
pub mod leader_election;
pub mod logging;
pub mod overload;
pub mod proxy_client;
pub mod request_header;
pub mod runtime_config;
pub mod service_accounts;
pub mod service_ranges;
pub mod tracing;

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;
use parking_lot::Mutex;

use crate::util::duration;
pub use admission::AdmissionFlags;
pub use audit::AuditFlags;
pub use authorization::AuthorizationFlags;
pub use cluster_signing::ClusterSigningFlags;
pub use encryption::EncryptionFlags;
pub use etcd::EtcdFlags;
pub use feature_gates::FeatureGates;
pub use leader_election::LeaderElectionFlags;
pub use logging::LoggingFlags;
pub use overload::OverloadFlags;
pub use proxy_client::ProxyClientFlags;
pub use request_header::RequestHeaderFlags;
pub use runtime_config::RuntimeConfig;
pub use service_accounts::{ServiceAccountConfig, ServiceAccountFlags};
pub use service_ranges::ServiceRangeFlags;

/// cairn-apiserver: a Kubernetes-compatible API server on cairn's own storage engine.
#[derive(Parser, Debug)]
#[command(name = "cairn-apiserver", version, about, long_about = None)]
pub struct Flags {
    /// Directory of the embedded store (created if missing).
    #[arg(long, default_value = "./cairn-data")]
    pub data_dir: PathBuf,
    /// Address of the HTTPS port.
    #[arg(long, default_value = "0.0.0.0")]
    pub bind_address: IpAddr,
    /// HTTPS port; every request on it is authenticated (0 disables it).
    #[arg(long, default_value_t = 6443)]
    pub secure_port: u16,
    /// Serving certificate (PEM, with intermediates). Without it a cluster CA
    /// and a serving certificate are generated into `<data-dir>/pki`.
    #[arg(long)]
    pub tls_cert_file: Option<PathBuf>,
    /// Private key (PEM) of `--tls-cert-file`.
    #[arg(long)]
    pub tls_private_key_file: Option<PathBuf>,
    /// Extra names (DNS names or IP addresses) of the generated serving
    /// certificate, comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub tls_sans: Vec<String>,
    /// Address clients reach this server at (added to the generated serving
    /// certificate's names).
    #[arg(long)]
    pub advertise_address: Option<IpAddr>,
    /// CA bundle (PEM) that client certificates must chain to (default: the
    /// cluster CA in `<data-dir>/pki/ca.crt`).
    #[arg(long)]
    pub client_ca_file: Option<PathBuf>,
    /// Address of the plain-HTTP port.
    #[arg(long, default_value = "127.0.0.1")]
    pub insecure_bind_address: IpAddr,
    /// Plain-HTTP port, off by default (0). Every request on it acts as user
    /// system:admin in group system:masters: for local tools and tests only.
    #[arg(long, default_value_t = 0)]
    pub insecure_port: u16,
    /// Domain of API group names, media-type parameters and annotations
    /// (`svc.io` serves the spec's literal domain).
    #[arg(long, default_value = "k8s.io")]
    pub api_domain: String,
    /// How long Events are kept after their last write.
    #[arg(long, default_value = "1h", value_parser = duration::parse)]
    pub event_ttl: Duration,
    #[arg(long, default_value = "", hide_default_value = true, value_parser = FeatureGates::parse, help = FeatureGates::help())]
    pub feature_gates: FeatureGates,
    /// Built-in API versions and resources to serve or not: comma-separated
    /// `<group>/<version>[=true|false]`, `<group>/<version>/<resource>[=…]`
    /// (`v1` or `v1/<resource>` for the core group), or `api/all`, `api/ga`,
    /// `api/beta`, `api/alpha` `=true|false`.
    #[arg(long, value_parser = RuntimeConfig::parse)]
    pub runtime_config: Vec<RuntimeConfig>,
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
    /// History kept for watches and old reads before compaction (0 disables
    /// compaction); kube-apiserver's `--etcd-compaction-interval` is the same.
    #[arg(long, alias = "etcd-compaction-interval", default_value = "5m", value_parser = duration::parse)]
    pub compaction_interval: Duration,
    /// Static bearer tokens: a CSV file of `token,user,uid[,"group1,group2"]`.
    #[arg(long)]
    pub token_auth_file: Option<PathBuf>,
    /// Whether requests no authenticator recognises are served as
    /// system:anonymous in system:unauthenticated (default true).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", require_equals = false)]
    pub anonymous_auth: Option<bool>,
    #[command(flatten)]
    pub service_accounts: ServiceAccountFlags,
    /// AuthenticationConfiguration file (YAML or JSON): JWT issuers and the
    /// anonymous section; re-read when it changes.
    #[arg(long)]
    pub authentication_config: Option<PathBuf>,
    #[command(flatten)]
    pub authorization: AuthorizationFlags,
    #[command(flatten)]
    pub encryption: EncryptionFlags,
    #[command(flatten)]
    pub etcd: EtcdFlags,
    #[command(flatten)]
    pub leader_election: LeaderElectionFlags,
    #[command(flatten)]
    pub logging: LoggingFlags,
    #[command(flatten)]
    pub overload: OverloadFlags,
    #[command(flatten)]
    pub audit: AuditFlags,
    #[command(flatten)]
    pub service_ranges: ServiceRangeFlags,
    #[command(flatten)]
    pub admission: AdmissionFlags,
    #[command(flatten)]
    pub proxy_client: ProxyClientFlags,
    #[command(flatten)]
    pub cluster_signing: ClusterSigningFlags,
    #[command(flatten)]
    pub request_header: RequestHeaderFlags,
    /// TracingConfiguration file (YAML or JSON): the OTLP collector spans
    /// are exported to and the sampling rate. Without it nothing is traced.
    #[arg(long)]
    pub tracing_config_file: Option<PathBuf>,
    /// The previous minor version (the only value accepted) for which to show
    /// metrics hidden by their deprecation, e.g. `1.31`.
    #[arg(long, default_value = "", value_parser = show_hidden_metrics_version)]
    pub show_hidden_metrics_for_version: String,
}

fn show_hidden_metrics_version(value: &str) -> Result<String, String> {
    crate::metrics::definition::validate_show_hidden(value, crate::metrics::definition::CURRENT)
        .map(|()| value.to_string())
}

/// The running configuration.
#[derive(Debug)]
pub struct Config {
    pub data_dir: PathBuf,
    pub bind_address: IpAddr,
    pub secure_port: u16,
    pub tls_cert_file: Option<PathBuf>,
    pub tls_private_key_file: Option<PathBuf>,
    pub tls_sans: Vec<String>,
    pub advertise_address: Option<IpAddr>,
    pub client_ca_file: Option<PathBuf>,
    pub insecure_bind_address: IpAddr,
    pub insecure_port: u16,
    pub api_domain: String,
    pub event_ttl: Duration,
    pub feature_gates: FeatureGates,
    /// `--runtime-config`, every occurrence in order.
    pub runtime_config: RuntimeConfig,
    pub max_request_bytes: u64,
    pub shutdown_delay: Duration,
    pub livez_grace_period: Duration,
    pub compaction_interval: Duration,
    pub token_auth_file: Option<PathBuf>,
    /// `--anonymous-auth` as given; `None` when absent (anonymous requests
    /// are then allowed unless an AuthenticationConfiguration says
    /// otherwise; giving both is an error).
    pub anonymous_auth: Option<bool>,
    pub service_accounts: ServiceAccountConfig,
    pub authentication_config: Option<PathBuf>,
    pub authorization: AuthorizationFlags,
    pub encryption: EncryptionFlags,
    pub etcd: EtcdFlags,
    pub leader_election: LeaderElectionFlags,
    pub overload: OverloadFlags,
    pub audit: AuditFlags,
    pub service_ranges: ServiceRangeFlags,
    pub admission: AdmissionFlags,
    pub proxy_client: ProxyClientFlags,
    pub cluster_signing: ClusterSigningFlags,
    pub request_header: RequestHeaderFlags,
    pub tracing_config_file: Option<PathBuf>,
    /// `--show-hidden-metrics-for-version` was given (validated at parse).
    pub show_hidden_metrics: bool,
    /// The address clients are told to use: the HTTPS port's when it
    /// serves, else the plain port's (port 0 picks one).
    pub bound: Mutex<Option<SocketAddr>>,
}

impl From<Flags> for Config {
    fn from(f: Flags) -> Config {
        Config {
            data_dir: f.data_dir,
            bind_address: f.bind_address,
            secure_port: f.secure_port,
            tls_cert_file: f.tls_cert_file,
            tls_private_key_file: f.tls_private_key_file,
            tls_sans: f.tls_sans,
            advertise_address: f.advertise_address,
            client_ca_file: f.client_ca_file,
            insecure_bind_address: f.insecure_bind_address,
            insecure_port: f.insecure_port,
            api_domain: f.api_domain,
            event_ttl: f.event_ttl,
            feature_gates: f.feature_gates,
            runtime_config: RuntimeConfig::merged(&f.runtime_config),
            max_request_bytes: f.max_request_bytes,
            shutdown_delay: f.shutdown_delay_duration,
            livez_grace_period: f.livez_grace_period,
            compaction_interval: f.compaction_interval,
            token_auth_file: f.token_auth_file,
            anonymous_auth: f.anonymous_auth,
            service_accounts: f.service_accounts.into(),
            authentication_config: f.authentication_config,
            authorization: f.authorization,
            encryption: f.encryption,
            etcd: f.etcd,
            leader_election: f.leader_election,
            overload: f.overload,
            audit: f.audit,
            service_ranges: f.service_ranges,
            admission: f.admission,
            proxy_client: f.proxy_client,
            cluster_signing: f.cluster_signing,
            request_header: f.request_header,
            tracing_config_file: f.tracing_config_file,
            show_hidden_metrics: !f.show_hidden_metrics_for_version.is_empty(),
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
        let bound = *self.bound.lock();
        match (self.advertise_address, bound) {
            (Some(ip), Some(a)) => SocketAddr::new(ip, a.port()).to_string(),
            (None, Some(a)) => a.to_string(),
            (_, None) => format!("{}:{}", self.insecure_bind_address, self.insecure_port),
        }
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
