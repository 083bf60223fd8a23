//! One KMS v2 provider's state and its conversations with the plugin, run
//! on the provider's own runtime: the Status probe (health, and a new DEK
//! source when the plugin's key id changes, as Kubernetes' probe does), the
//! periodic poll, and unwrapping the DEK sources of stored values.

use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RwLock};

use super::cache::{CacheKey, DekCache, TTL};
use super::envelope::{WriteState, key_id_hash};
use super::proto::{
    DecryptRequest, DecryptResponse, DekSourceType, EncryptRequest, EncryptResponse,
    EncryptedObject, SERVICE, StatusRequest, StatusResponse, validate_key_id,
};
use super::seal::Dek;
use crate::storage::grpc::GrpcClient;
use crate::util::random::uuid_v4;

/// How often the plugin is asked for its status and how long answers hold.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// Between polls while healthy.
    pub healthy_poll: Duration,
    /// Between polls while not.
    pub unhealthy_poll: Duration,
    /// How long a healthy answer serves the health check.
    pub healthy_ttl: Duration,
    /// How long an unhealthy answer serves the health check.
    pub unhealthy_ttl: Duration,
    /// How long writes go on with a DEK source the plugin has not confirmed.
    pub write_ttl: Duration,
}

impl Timing {
    /// kube-apiserver's intervals.
    pub const KUBERNETES: Timing = Timing {
        healthy_poll: Duration::from_secs(60),
        unhealthy_poll: Duration::from_secs(10),
        healthy_ttl: Duration::from_secs(20),
        unhealthy_ttl: Duration::from_secs(3),
        write_ttl: Duration::from_secs(3 * 60),
    };
}

/// The latest Status probe's verdict.
struct Health {
    result: Result<(), String>,
    checked: Option<Instant>,
    ttl: Duration,
}

/// A provider's state, shared by its handle and its runtime's tasks.
pub struct Provider {
    pub name: String,
    pub prefix: Vec<u8>,
    pub timeout: Duration,
    pub timing: Timing,
    client: GrpcClient,
    pub cache: DekCache,
    state: RwLock<Option<Arc<WriteState>>>,
    health: Mutex<Health>,
    /// The API version of the first Status answer; it may not change.
    version: Mutex<Option<String>>,
    /// One probe at a time (the poll and on-demand health checks).
    probing: tokio::sync::Mutex<()>,
    /// One Decrypt at a time, so a burst of reads of values under the same
    /// uncached DEK source asks the plugin once.
    unwrapping: tokio::sync::Mutex<()>,
}

impl Provider {
    pub fn new(name: &str, client: GrpcClient, timeout: Duration, timing: Timing) -> Provider {
        Provider {
            name: name.to_string(),
            prefix: super::envelope::prefix(name),
            timeout,
            timing,
            client,
            cache: DekCache::new(TTL),
            state: RwLock::new(None),
            health: Mutex::new(Health {
                result: Err("the KMS plugin has not been asked for its status yet".into()),
                checked: None,
                ttl: Duration::ZERO,
            }),
            version: Mutex::new(None),
            probing: tokio::sync::Mutex::new(()),
            unwrapping: tokio::sync::Mutex::new(()),
        }
    }

    /// The DEK source writes use now; reads need it too (for staleness),
    /// as Kubernetes' do.
    pub fn current_state(&self) -> Result<Arc<WriteState>, String> {
        if let Some(state) = self.state.read().as_ref() {
            return Ok(Arc::clone(state));
        }
        let why = match &self.health.lock().result {
            Err(e) => e.clone(),
            Ok(()) => "no status answer yet".into(),
        };
        Err(format!("no data-encryption key yet: {why}"))
    }

    /// The unwrapped DEK source of `key` if this process has it.
    pub fn known_dek(&self, state: &WriteState, key: &CacheKey) -> Option<Arc<Dek>> {
        if state.cache_key == *key {
            return Some(Arc::clone(&state.dek));
        }
        self.cache.get(key)
    }

    /// The latest probe's verdict while it holds.
    pub fn fresh_health(&self) -> Option<Result<(), String>> {
        let health = self.health.lock();
        let checked = health.checked?;
        (checked.elapsed() < health.ttl).then(|| health.result.clone())
    }

    /// The latest probe's verdict, however old.
    pub fn last_health(&self) -> Result<(), String> {
        self.health.lock().result.clone()
    }

    /// Polls the plugin's Status for as long as the runtime runs.
    pub async fn poll(self: Arc<Self>) {
        loop {
            let pause = if self.last_health().is_ok() {
                self.timing.healthy_poll
            } else {
                self.timing.unhealthy_poll
            };
            tokio::time::sleep(pause).await;
            if let Err(e) = Arc::clone(&self).probe().await {
                tracing::warn!(provider = %self.name, error = %e, "KMS v2 plugin failed its health check");
            }
        }
    }

    /// Asks the plugin for its status, moves to a new DEK source when its key
    /// id changed, and records the verdict.
    pub async fn probe(self: Arc<Self>) -> Result<(), String> {
        let _one_at_a_time = self.probing.lock().await;
        let result = self.check().await;
        let ttl = if result.is_ok() {
            self.timing.healthy_ttl
        } else {
            self.timing.unhealthy_ttl
        };
        *self.health.lock() = Health {
            result: result.clone(),
            checked: Some(Instant::now()),
            ttl,
        };
        result
    }

    async fn check(&self) -> Result<(), String> {
        let status: StatusResponse = self.client.call(SERVICE, "Status", &StatusRequest {}).await.map_err(|e| {
            format!(
                "failed to perform status section of the healthz check for KMS Provider {}, error: {e}",
                self.name
            )
        })?;
        let mut errors = Vec::new();
        if status.healthz != "ok" {
            errors.push(format!("got unexpected healthz status: {}", status.healthz));
        }
        if status.version != "v2" && status.version != "v2beta1" {
            errors.push(format!(
                "expected KMSv2 API version v2, got {}",
                status.version
            ));
        } else {
            let mut first = self.version.lock();
            match first.as_deref() {
                None => *first = Some(status.version.clone()),
                Some(v) if v != status.version => errors.push(format!(
                    "KMSv2 API version should not change after the initial status response version {v}, got {}",
                    status.version
                )),
                Some(_) => {}
            }
        }
        match validate_key_id(&status.key_id) {
            Err(e) => errors.push(format!(
                "got invalid KMSv2 KeyID hash {:?}: {e}",
                key_id_hash(&status.key_id)
            )),
            Ok(()) => {
                if let Err(e) = self.rotate_on_key_id_change(&status.key_id).await {
                    errors.push(e);
                }
            }
        }
        match errors.as_slice() {
            [] => Ok(()),
            [one] => Err(format!(
                "kmsv2 Provider {} is not healthy, error: {one}",
                self.name
            )),
            many => Err(format!(
                "kmsv2 Provider {} is not healthy, error: [{}]",
                self.name,
                many.join(", ")
            )),
        }
    }

    /// Keeps the current DEK source while the plugin's key id is unchanged
    /// (extending how long writes may use it); otherwise wraps a new seed.
    /// On failure the old source stays, usable for writes until it expires.
    async fn rotate_on_key_id_change(&self, status_key_id: &str) -> Result<(), String> {
        // Counted from before the call: the write window is an upper bound.
        let expires = Instant::now() + self.timing.write_ttl;
        let current = self.state.read().clone();
        if let Some(state) = &current
            && state.key_id == status_key_id
        {
            *state.expires.lock() = expires;
            return Ok(());
        }
        let uid = uuid_v4();
        let failed = |why: String| {
            format!(
                "failed to rotate DEK uid={uid:?}, statusKeyIDHash={:?}, stateKeyIDHash={:?}, error: {why}",
                key_id_hash(status_key_id),
                current
                    .as_ref()
                    .map(|s| key_id_hash(&s.key_id))
                    .unwrap_or_default()
            )
        };
        let (seed, dek) = Dek::generate_seed().map_err(&failed)?;
        let request = EncryptRequest {
            plaintext: seed,
            uid: uid.clone(),
        };
        let reply: EncryptResponse = self
            .client
            .call(SERVICE, "Encrypt", &request)
            .await
            .map_err(|e| failed(format!("failed to encrypt DEK, error: {e}")))?;
        drop(request);
        if reply.key_id != status_key_id {
            return Err(failed(format!(
                "Encrypt answered keyID hash {:?}",
                key_id_hash(&reply.key_id)
            )));
        }
        let state = WriteState::new(dek, reply, expires).map_err(&failed)?;
        self.cache.insert(state.cache_key, Arc::clone(&state.dek));
        tracing::info!(
            provider = %self.name,
            uid = %uid,
            key_id_hash = %key_id_hash(&state.key_id),
            "KMS v2 provider has a new data-encryption key"
        );
        *self.state.write() = Some(Arc::new(state));
        Ok(())
    }

    /// The plugin's Decrypt of a stored value's DEK source, remembered.
    pub async fn unwrap_dek(
        self: Arc<Self>,
        object: EncryptedObject,
        source_type: DekSourceType,
        key: CacheKey,
    ) -> Result<Arc<Dek>, String> {
        let unwrap = async {
            let _one_at_a_time = self.unwrapping.lock().await;
            if let Some(dek) = self.cache.get(&key) {
                return Ok(dek);
            }
            let request = DecryptRequest {
                ciphertext: object.encrypted_dek_source,
                uid: uuid_v4(),
                key_id: object.key_id,
                annotations: object.annotations,
            };
            let reply: DecryptResponse = self
                .client
                .call(SERVICE, "Decrypt", &request)
                .await
                .map_err(|e| format!("failed to decrypt DEK, error: {e}"))?;
            let dek = Arc::new(
                Dek::new(source_type, &reply.plaintext)
                    .map_err(|e| format!("failed to use the decrypted DEK: {e}"))?,
            );
            self.cache.insert(key, Arc::clone(&dek));
            Ok(dek)
        };
        // Waiting behind another Decrypt counts against the same timeout.
        match tokio::time::timeout(self.timeout, unwrap).await {
            Ok(result) => result,
            Err(_) => Err(
                "failed to decrypt DEK, error: rpc error: code = DeadlineExceeded desc = context deadline exceeded"
                    .into(),
            ),
        }
    }
}
