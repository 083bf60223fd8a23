//! kube-apiserver's `--requestheader-*` flags: the front proxy (an
//! aggregating or authenticating proxy) whose client certificate chains to
//! `--requestheader-client-ca-file` names the user in request headers.

use std::path::PathBuf;

use clap::Args;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

#[derive(Args, Debug, Clone, Default)]
pub struct RequestHeaderFlags {
    /// CA bundle (PEM) a front proxy's client certificate must chain to
    /// before its `--requestheader-username-headers` are believed.
    #[arg(long)]
    pub requestheader_client_ca_file: Option<PathBuf>,
    /// CommonNames a front proxy's certificate may have, comma-separated
    /// (empty: any certificate of the CA).
    #[arg(long, value_delimiter = ',')]
    pub requestheader_allowed_names: Vec<String>,
    /// Headers naming the user, first non-empty wins (X-Remote-User is common).
    #[arg(long, value_delimiter = ',')]
    pub requestheader_username_headers: Vec<String>,
    /// Headers naming the user's uid (X-Remote-Uid is suggested).
    #[arg(long, value_delimiter = ',')]
    pub requestheader_uid_headers: Vec<String>,
    /// Headers naming the user's groups, every value (X-Remote-Group is suggested).
    #[arg(long, value_delimiter = ',')]
    pub requestheader_group_headers: Vec<String>,
    /// Header prefixes of the user's extra values (X-Remote-Extra- is suggested).
    #[arg(long, value_delimiter = ',')]
    pub requestheader_extra_headers_prefix: Vec<String>,
}

/// What the front-proxy authenticator needs, read from the flags.
#[derive(Clone, Debug, Default)]
pub struct RequestHeaderConfig {
    /// The CA bundle as given (PEM), for the published ConfigMap.
    pub ca_pem: String,
    pub cas: Vec<CertificateDer<'static>>,
    pub allowed_names: Vec<String>,
    pub username_headers: Vec<String>,
    pub uid_headers: Vec<String>,
    pub group_headers: Vec<String>,
    pub extra_headers_prefix: Vec<String>,
}

fn trimmed(list: &[String]) -> Vec<String> {
    list.iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

impl RequestHeaderFlags {
    /// The configuration (`None` without `--requestheader-client-ca-file`,
    /// as kube-apiserver then has no front-proxy authenticator); the error
    /// is one line naming the flag.
    pub fn load(&self) -> Result<Option<RequestHeaderConfig>, String> {
        let Some(path) = &self.requestheader_client_ca_file else {
            return Ok(None);
        };
        let flag = "--requestheader-client-ca-file";
        let pem = std::fs::read_to_string(path)
            .map_err(|e| format!("{flag}: {}: {e}", path.display()))?;
        let cas = CertificateDer::pem_slice_iter(pem.as_bytes())
            .collect::<Result<Vec<_>, _>>()
            .ok()
            .filter(|c| !c.is_empty())
            .ok_or_else(|| format!("{flag}: {}: no PEM certificate", path.display()))?;
        Ok(Some(RequestHeaderConfig {
            ca_pem: pem,
            cas,
            allowed_names: trimmed(&self.requestheader_allowed_names),
            username_headers: trimmed(&self.requestheader_username_headers),
            uid_headers: trimmed(&self.requestheader_uid_headers),
            group_headers: trimmed(&self.requestheader_group_headers),
            extra_headers_prefix: trimmed(&self.requestheader_extra_headers_prefix),
        }))
    }
}
