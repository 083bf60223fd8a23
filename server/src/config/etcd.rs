//! The etcd flags, kube-apiserver's names. With `--etcd-servers` the
//! objects live in etcd and the embedded store is not opened.

use std::path::PathBuf;

use clap::Args;

use crate::storage::etcd::EtcdOptions;

#[derive(Args, Debug, Clone)]
pub struct EtcdFlags {
    /// etcd servers to store objects in (`http(s)://host:port`,
    /// comma-separated); without it the embedded store in `--data-dir` is used.
    #[arg(long, value_delimiter = ',')]
    pub etcd_servers: Vec<String>,
    /// The etcd key prefix objects are stored under.
    #[arg(long, default_value = "/registry")]
    pub etcd_prefix: String,
    /// CA bundle (PEM) etcd's serving certificate must chain to.
    #[arg(long)]
    pub etcd_cafile: Option<PathBuf>,
    /// Client certificate (PEM) presented to etcd.
    #[arg(long)]
    pub etcd_certfile: Option<PathBuf>,
    /// Private key (PEM) of `--etcd-certfile`.
    #[arg(long)]
    pub etcd_keyfile: Option<PathBuf>,
    /// With `--etcd-servers`: serve watches, and lists the cache can
    /// answer, from an in-memory cache fed by one etcd watch (as
    /// kube-apiserver's watch cache); `false` sends every call to etcd.
    /// The embedded store is its own cache and ignores it.
    #[arg(long, default_value_t = true, num_args = 0..=1, default_missing_value = "true", action = clap::ArgAction::Set)]
    pub watch_cache: bool,
}

impl EtcdFlags {
    /// The backend's options when etcd is the store.
    #[must_use]
    pub fn options(&self) -> Option<EtcdOptions> {
        let servers: Vec<String> = self
            .etcd_servers
            .iter()
            .filter(|s| !s.trim().is_empty())
            .cloned()
            .collect();
        (!servers.is_empty()).then(|| EtcdOptions {
            servers,
            prefix: self.etcd_prefix.clone(),
            ca_file: self.etcd_cafile.clone(),
            cert_file: self.etcd_certfile.clone(),
            key_file: self.etcd_keyfile.clone(),
        })
    }
}
