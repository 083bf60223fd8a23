//! kube-apiserver's service-account flags: the keys that sign and verify
//! service-account tokens, their issuers and audiences, and the issuer's
//! discovery documents.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::util::duration;

/// The issuer cairn names when none is given (k3s's default), so that the
/// server starts with no flags.
pub const DEFAULT_ISSUER: &str = "https://kubernetes.default.svc.cluster.local";

/// The service-account flags, as given.
#[derive(Args, Debug, Clone, Default)]
pub struct ServiceAccountFlags {
    /// PEM private key (RSA or ECDSA) that signs service-account tokens;
    /// generated into `<data-dir>/service-account.key` when absent.
    #[arg(long)]
    pub service_account_signing_key_file: Option<PathBuf>,
    /// PEM files of keys (public or private, RSA or ECDSA) that verify
    /// service-account tokens; repeatable or comma-separated, for rotation.
    #[arg(long, value_delimiter = ',')]
    pub service_account_key_file: Vec<PathBuf>,
    /// Issuer (`iss`) of service-account tokens; repeatable: the first
    /// issues, all are accepted.
    #[arg(long)]
    pub service_account_issuer: Vec<String>,
    /// Audiences a token must name to authenticate to this server
    /// (comma-separated; default: the issuers).
    #[arg(long, value_delimiter = ',')]
    pub api_audiences: Vec<String>,
    /// Longest lifetime of a requested token (longer requests are cut to it).
    #[arg(long, value_parser = duration::parse)]
    pub service_account_max_token_expiration: Option<Duration>,
    /// The `jwks_uri` the discovery document names (default:
    /// `https://<advertised address>/openid/v1/jwks`).
    #[arg(long)]
    pub service_account_jwks_uri: Option<String>,
    /// CA bundle (PEM) published as `ca.crt` in every namespace's
    /// `kube-root-ca.crt` ConfigMap, which pods' service-account volumes
    /// carry (kube-controller-manager's flag; default: the cluster CA,
    /// `<data-dir>/pki/ca.crt`).
    #[arg(long)]
    pub root_ca_file: Option<PathBuf>,
}

/// The service-account settings, with their defaults filled in.
#[derive(Debug, Clone)]
pub struct ServiceAccountConfig {
    pub signing_key_file: Option<PathBuf>,
    pub key_files: Vec<PathBuf>,
    /// Never empty: the first issues.
    pub issuers: Vec<String>,
    /// Never empty.
    pub api_audiences: Vec<String>,
    pub max_token_expiration: Option<Duration>,
    pub jwks_uri: Option<String>,
    pub root_ca_file: Option<PathBuf>,
}

impl From<ServiceAccountFlags> for ServiceAccountConfig {
    fn from(f: ServiceAccountFlags) -> ServiceAccountConfig {
        let issuers = if f.service_account_issuer.is_empty() {
            vec![DEFAULT_ISSUER.to_string()]
        } else {
            f.service_account_issuer
        };
        let api_audiences = if f.api_audiences.is_empty() {
            issuers.clone()
        } else {
            f.api_audiences
        };
        ServiceAccountConfig {
            signing_key_file: f.service_account_signing_key_file,
            key_files: f.service_account_key_file,
            issuers,
            api_audiences,
            max_token_expiration: f.service_account_max_token_expiration,
            jwks_uri: f.service_account_jwks_uri,
            root_ca_file: f.root_ca_file,
        }
    }
}

impl ServiceAccountConfig {
    /// The CA bundle pods are given to verify this server; the error is one
    /// line naming the file.
    pub fn root_ca_pem(&self, data_dir: &std::path::Path) -> Result<String, String> {
        match &self.root_ca_file {
            Some(path) => read_root_ca(path),
            None => read_root_ca(&data_dir.join("pki").join("ca.crt")),
        }
    }

    /// kube-apiserver's checks of these flags; the error is one line naming
    /// the flag.
    pub fn validate(&self) -> Result<(), String> {
        if let Some(max) = self.max_token_expiration
            && (max < Duration::from_secs(3600) || max > Duration::from_secs(1 << 32))
        {
            return Err(
                "the service-account-max-token-expiration must be between 1 hour and 2^32 seconds"
                    .into(),
            );
        }
        for issuer in &self.issuers {
            if issuer.is_empty() {
                return Err("service-account-issuer should not be an empty string".into());
            }
        }
        if let Some(uri) = &self.jwks_uri
            && !uri.starts_with("https://")
        {
            return Err(format!(
                "service-account-jwks-uri requires https scheme, parsed as: {uri}"
            ));
        }
        if let Some(path) = &self.root_ca_file {
            read_root_ca(path)?;
        }
        Ok(())
    }
}

fn read_root_ca(path: &std::path::Path) -> Result<String, String> {
    let shown = path.display();
    let pem = std::fs::read_to_string(path)
        .map_err(|e| format!("root-ca-file: cannot read {shown}: {e}"))?;
    if !pem.contains("-----BEGIN CERTIFICATE-----") {
        return Err(format!("root-ca-file: {shown} holds no PEM certificate"));
    }
    Ok(pem)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use crate::config::{Config, Flags};

    fn config(args: &[&str]) -> Config {
        let mut all = vec!["cairn-apiserver"];
        all.extend_from_slice(args);
        Config::from(Flags::parse_from(all))
    }

    #[test]
    fn with_no_flags_the_default_issuer_is_also_the_audience() {
        let c = config(&[]).service_accounts;
        assert_eq!(c.issuers, [super::DEFAULT_ISSUER]);
        assert_eq!(c.api_audiences, [super::DEFAULT_ISSUER]);
        assert!(c.validate().is_ok());
    }

    #[test]
    fn key_files_repeat_or_split_on_commas_and_issuers_repeat() {
        let c = config(&[
            "--service-account-key-file=a.pem,b.pem",
            "--service-account-key-file",
            "c.pem",
            "--service-account-issuer",
            "https://one",
            "--service-account-issuer",
            "https://two",
            "--api-audiences=x,y",
        ])
        .service_accounts;
        let files: Vec<String> = c
            .key_files
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        assert_eq!(files, ["a.pem", "b.pem", "c.pem"]);
        assert_eq!(c.issuers, ["https://one", "https://two"]);
        assert_eq!(c.api_audiences, ["x", "y"]);
    }

    #[test]
    fn a_max_expiration_below_an_hour_is_refused() {
        let c = config(&["--service-account-max-token-expiration=30m"]).service_accounts;
        assert_eq!(
            c.validate(),
            Err(
                "the service-account-max-token-expiration must be between 1 hour and 2^32 seconds"
                    .into()
            )
        );
        let c = config(&["--service-account-max-token-expiration=2h"]).service_accounts;
        assert!(c.validate().is_ok());
        let c = config(&["--service-account-jwks-uri=http://x/jwks"]).service_accounts;
        assert!(c.validate().is_err());
    }
}
