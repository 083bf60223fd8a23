//! Unwrapped DEK sources by their wrapped form, so reading values written by
//! an earlier start asks the plugin to Decrypt once per DEK source rather
//! than once per value. Entries live a day, as Kubernetes keeps them.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::RwLock;

use super::proto::DekSourceType;
use super::seal::Dek;

/// How long an unwrapped DEK source stays without being asked for again.
pub const TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// The identity of a wrapped DEK source: a digest of everything the plugin
/// is given to unwrap it (type, ciphertext, key id, annotations).
pub type CacheKey = [u8; 32];

/// The cache key of a wrapped DEK source.
#[must_use]
pub fn cache_key(
    source_type: DekSourceType,
    encrypted_dek_source: &[u8],
    key_id: &str,
    annotations: &BTreeMap<String, Vec<u8>>,
) -> CacheKey {
    // Length-prefixed parts, so no two different inputs share a digest input.
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
    let mut part = |bytes: &[u8]| {
        ctx.update(&(bytes.len() as u64).to_be_bytes());
        ctx.update(bytes);
    };
    part(&(source_type as i32).to_be_bytes());
    part(encrypted_dek_source);
    part(key_id.as_bytes());
    for (key, value) in annotations {
        part(key.as_bytes());
        part(value);
    }
    let mut out = [0u8; 32];
    out.copy_from_slice(ctx.finish().as_ref());
    out
}

struct Entry {
    dek: Arc<Dek>,
    expires: Instant,
}

/// The cache of one provider.
pub struct DekCache {
    entries: RwLock<HashMap<CacheKey, Entry>>,
    ttl: Duration,
}

impl DekCache {
    /// An empty cache whose entries live `ttl`.
    #[must_use]
    pub fn new(ttl: Duration) -> DekCache {
        DekCache {
            entries: RwLock::new(HashMap::new()),
            ttl,
        }
    }

    /// The unwrapped DEK source for `key`, if cached and not expired.
    pub fn get(&self, key: &CacheKey) -> Option<Arc<Dek>> {
        let entries = self.entries.read();
        let entry = entries.get(key)?;
        (entry.expires > Instant::now()).then(|| Arc::clone(&entry.dek))
    }

    /// Remembers `dek` under `key`, dropping expired entries.
    pub fn insert(&self, key: CacheKey, dek: Arc<Dek>) {
        let now = Instant::now();
        let mut entries = self.entries.write();
        entries.retain(|_, entry| entry.expires > now);
        entries.insert(
            key,
            Entry {
                dek,
                expires: now + self.ttl,
            },
        );
    }

    /// How many DEK sources are cached.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.read().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_differ_by_every_part() {
        let none = BTreeMap::new();
        let seed = DekSourceType::HkdfSha256XnonceAesGcmSeed;
        let base = cache_key(seed, b"wrapped", "k1", &none);
        assert_eq!(base, cache_key(seed, b"wrapped", "k1", &none));
        assert_ne!(
            base,
            cache_key(DekSourceType::AesGcmKey, b"wrapped", "k1", &none)
        );
        assert_ne!(base, cache_key(seed, b"wrappee", "k1", &none));
        assert_ne!(base, cache_key(seed, b"wrapped", "k2", &none));
        let annotated = BTreeMap::from([("a.b".to_string(), vec![1])]);
        assert_ne!(base, cache_key(seed, b"wrapped", "k1", &annotated));
        // The boundary between parts is part of the key.
        assert_ne!(
            cache_key(seed, b"ab", "c", &none),
            cache_key(seed, b"a", "bc", &none)
        );
    }

    #[test]
    fn entries_expire() {
        let (_, dek) = Dek::generate_seed().unwrap();
        let cache = DekCache::new(Duration::ZERO);
        cache.insert([1; 32], Arc::new(dek));
        assert!(cache.get(&[1; 32]).is_none());
        let (_, dek) = Dek::generate_seed().unwrap();
        let cache = DekCache::new(TTL);
        cache.insert([1; 32], Arc::new(dek));
        assert!(cache.get(&[1; 32]).is_some());
        assert!(cache.get(&[2; 32]).is_none());
        assert_eq!(cache.len(), 1);
    }
}
