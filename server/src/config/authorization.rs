//! The authorization flags, kube-apiserver's names: the mode list, or an
//! AuthorizationConfiguration file, and the legacy webhook flags that go
//! with mode `Webhook`.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::util::duration;

/// The modes `--authorization-mode` accepts.
pub const MODES: [&str; 4] = ["RBAC", "Webhook", "AlwaysAllow", "AlwaysDeny"];

#[derive(Args, Debug, Clone)]
pub struct AuthorizationFlags {
    /// Ordered authorizers on the secure port, comma-separated: RBAC,
    /// Webhook, AlwaysAllow, AlwaysDeny (default RBAC). Not with
    /// `--authorization-config`.
    #[arg(long, value_delimiter = ',')]
    pub authorization_mode: Option<Vec<String>>,
    /// AuthorizationConfiguration file (YAML or JSON): ordered authorizers
    /// with webhook settings; re-read when it changes.
    #[arg(long)]
    pub authorization_config: Option<PathBuf>,
    /// Kubeconfig of the webhook authorizer of mode `Webhook`.
    #[arg(long)]
    pub authorization_webhook_config_file: Option<PathBuf>,
    /// SubjectAccessReview version the mode-`Webhook` authorizer sends (v1 or v1beta1).
    #[arg(long, default_value = "v1beta1")]
    pub authorization_webhook_version: String,
    /// How long the mode-`Webhook` authorizer caches allowed answers.
    #[arg(long, default_value = "5m", value_parser = duration::parse)]
    pub authorization_webhook_cache_authorized_ttl: Duration,
    /// How long the mode-`Webhook` authorizer caches denied answers.
    #[arg(long, default_value = "30s", value_parser = duration::parse)]
    pub authorization_webhook_cache_unauthorized_ttl: Duration,
}

impl AuthorizationFlags {
    /// The modes in order (`RBAC` when none were given); an unknown mode,
    /// a repeated one, or the mode list together with a configuration file
    /// is an error line.
    pub fn modes(&self) -> Result<Vec<String>, String> {
        let default = vec!["RBAC".to_string()];
        let modes = match &self.authorization_mode {
            None => &default,
            Some(_) if self.authorization_config.is_some() => {
                return Err(
                    "--authorization-config and --authorization-mode cannot both be set".into(),
                );
            }
            Some(modes) => modes,
        };
        let mut seen: Vec<String> = Vec::new();
        for mode in modes.iter().map(|m| m.trim()) {
            if !MODES.contains(&mode) {
                return Err(format!(
                    "--authorization-mode: authorization mode {mode:?} is not a valid mode (valid: {})",
                    MODES.join(", ")
                ));
            }
            if seen.iter().any(|m| m == mode) {
                return Err(format!(
                    "--authorization-mode: {mode:?} is specified more than once"
                ));
            }
            seen.push(mode.to_string());
        }
        if seen.is_empty() {
            return Err(
                "--authorization-mode: at least one authorization mode must be passed".into(),
            );
        }
        if seen.iter().any(|m| m == "Webhook") != self.authorization_webhook_config_file.is_some() {
            return Err(if self.authorization_webhook_config_file.is_some() {
                "--authorization-webhook-config-file is set but --authorization-mode does not contain Webhook".into()
            } else {
                "--authorization-mode Webhook requires --authorization-webhook-config-file".into()
            });
        }
        Ok(seen)
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Only {
        #[command(flatten)]
        flags: AuthorizationFlags,
    }

    fn modes(args: &[&str]) -> Result<Vec<String>, String> {
        let mut all = vec!["cairn-apiserver"];
        all.extend_from_slice(args);
        Only::parse_from(all).flags.modes()
    }

    #[test]
    fn modes_default_to_rbac_and_keep_their_order() {
        assert_eq!(modes(&[]).unwrap(), ["RBAC"]);
        assert_eq!(
            modes(&["--authorization-mode=AlwaysDeny,RBAC"]).unwrap(),
            ["AlwaysDeny", "RBAC"]
        );
    }

    #[test]
    fn bad_mode_lists_are_refused_with_one_line() {
        assert!(
            modes(&["--authorization-mode=ABAC"])
                .unwrap_err()
                .contains("\"ABAC\"")
        );
        assert!(
            modes(&["--authorization-mode=RBAC,RBAC"])
                .unwrap_err()
                .contains("more than once")
        );
        assert!(
            modes(&["--authorization-mode=Webhook"])
                .unwrap_err()
                .contains("requires")
        );
        assert!(
            modes(&["--authorization-mode=RBAC", "--authorization-config=/x"])
                .unwrap_err()
                .contains("cannot both be set")
        );
        assert!(
            modes(&["--authorization-webhook-config-file=/k"])
                .unwrap_err()
                .contains("does not contain Webhook")
        );
    }
}
