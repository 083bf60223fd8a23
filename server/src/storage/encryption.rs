//! Encryption at rest as the server runs it: `--encryption-provider-config`
//! read before anything is written, its KMS v2 providers connected, the
//! transformers put in force, the `kms-providers` health check, and — with
//! `--encryption-provider-config-automatic-reload` — the file re-read when
//! it changes (a valid file replaces the transformers at once, an invalid
//! one is logged and the previous configuration stays).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cairn_transform::Transformers;
use cairn_transform::config::{self, EncryptionConfig, KmsProvider};
use parking_lot::Mutex;
use tokio::sync::watch;

use crate::storage::kms::{KmsSpec, KmsV2};
use crate::storage::transform::SharedTransformers;
use crate::util::file_watch::{FileWatch, POLL_INTERVAL};

/// The name of the health check of the KMS plugins.
pub const KMS_CHECK: &str = "kms-providers";

/// The encryption configuration in force.
pub struct Encryption {
    path: PathBuf,
    domain: String,
    transformers: Arc<SharedTransformers>,
    /// The connected KMS providers of the configuration in force.
    kms: Mutex<Vec<(KmsProvider, Arc<KmsV2>)>>,
}

impl Encryption {
    /// Reads the file at `path` and connects its KMS providers; the error
    /// is one line naming the field (or the provider that failed).
    pub async fn load(path: &Path, domain: &str) -> Result<Encryption, String> {
        let parsed = config::load(path, domain)?;
        let kms = connect(&parsed, &[]).await?;
        let transformers = build(&parsed, &kms);
        Ok(Encryption {
            path: path.to_path_buf(),
            domain: domain.to_string(),
            transformers: Arc::new(SharedTransformers::new(transformers)),
            kms: Mutex::new(kms),
        })
    }

    /// The transformers storage applies (replaced on reload).
    #[must_use]
    pub fn transformers(&self) -> Arc<SharedTransformers> {
        Arc::clone(&self.transformers)
    }

    /// The `kms-providers` check: every KMS provider's plugin is healthy.
    pub fn kms_health(&self) -> Result<(), String> {
        let problems: Vec<String> = self
            .kms
            .lock()
            .iter()
            .filter_map(|(spec, p)| p.health().err().map(|e| format!("{}: {e}", spec.name)))
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("; "))
        }
    }

    /// Whether the configuration has KMS providers (then the health check
    /// is registered).
    #[must_use]
    pub fn has_kms(&self) -> bool {
        !self.kms.lock().is_empty()
    }

    /// Re-reads the file whenever it changes, until `stop`.
    pub fn spawn_reload(
        self: Arc<Self>,
        stop: watch::Receiver<bool>,
    ) -> tokio::task::JoinHandle<()> {
        let file = FileWatch::new(&self.path);
        tokio::spawn(self.reload_loop(file, stop))
    }

    async fn reload_loop(self: Arc<Self>, mut file: FileWatch, mut stop: watch::Receiver<bool>) {
        loop {
            tokio::select! {
                () = tokio::time::sleep(POLL_INTERVAL) => {}
                changed = stop.changed() => {
                    if changed.is_err() || *stop.borrow() {
                        return;
                    }
                }
            }
            if file.changed() {
                match self.reload().await {
                    Ok(()) => tracing::info!(
                        path = %self.path.display(),
                        "encryption provider configuration reloaded"
                    ),
                    Err(e) => tracing::warn!(
                        path = %self.path.display(),
                        "encryption provider configuration not reloaded, the previous one stays: {e}"
                    ),
                }
            }
        }
    }

    async fn reload(&self) -> Result<(), String> {
        let parsed = config::load(&self.path, &self.domain)?;
        let connected = self.kms.lock().clone();
        let kms = connect(&parsed, &connected).await?;
        self.transformers.replace(build(&parsed, &kms));
        *self.kms.lock() = kms;
        Ok(())
    }
}

/// The KMS providers of `parsed`, reusing those of `connected` with the
/// same settings.
async fn connect(
    parsed: &EncryptionConfig,
    connected: &[(KmsProvider, Arc<KmsV2>)],
) -> Result<Vec<(KmsProvider, Arc<KmsV2>)>, String> {
    let mut out = Vec::new();
    for spec in parsed.kms_providers() {
        if let Some((_, p)) = connected.iter().find(|(s, _)| s == spec) {
            out.push((spec.clone(), Arc::clone(p)));
            continue;
        }
        let provider = KmsV2::connect(&KmsSpec {
            name: spec.name.clone(),
            endpoint: spec.endpoint.clone(),
            timeout: spec.timeout,
        })
        .await?;
        out.push((spec.clone(), provider));
    }
    Ok(out)
}

fn build(parsed: &EncryptionConfig, kms: &[(KmsProvider, Arc<KmsV2>)]) -> Transformers {
    parsed.transformers(&mut |spec| {
        let (_, provider) = kms
            .iter()
            .find(|(s, _)| s.name == spec.name)
            .expect("every KMS provider was connected");
        Arc::clone(provider) as Arc<dyn cairn_transform::Transformer>
    })
}
