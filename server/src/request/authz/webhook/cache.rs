//! A webhook's remembered answers, keyed by the whole review spec: allowed
//! ones for the authorized TTL, the others for the unauthorized TTL (each
//! only when that caching is on), at most `MAX_ENTRIES` at once.

use std::collections::HashMap;
use std::time::Duration;

use parking_lot::Mutex;
use tokio::time::Instant;

use super::review::Status;

/// Kubernetes' webhook cache holds this many answers.
const MAX_ENTRIES: usize = 8192;

pub struct Cache {
    authorized_ttl: Option<Duration>,
    unauthorized_ttl: Option<Duration>,
    entries: Mutex<HashMap<String, (Status, Instant)>>,
}

impl Cache {
    /// `None` turns that half of the cache off.
    #[must_use]
    pub fn new(authorized_ttl: Option<Duration>, unauthorized_ttl: Option<Duration>) -> Cache {
        Cache {
            authorized_ttl,
            unauthorized_ttl,
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// The answer remembered for `key`, if still fresh.
    pub fn get(&self, key: &str) -> Option<Status> {
        let mut entries = self.entries.lock();
        match entries.get(key) {
            Some((status, expires)) if *expires > Instant::now() => Some(status.clone()),
            Some(_) => {
                entries.remove(key);
                None
            }
            None => None,
        }
    }

    /// Remembers `status` for its TTL (not at all when that half is off).
    pub fn put(&self, key: String, status: &Status) {
        let ttl = if status.allowed {
            self.authorized_ttl
        } else {
            self.unauthorized_ttl
        };
        let Some(ttl) = ttl.filter(|t| !t.is_zero()) else {
            return;
        };
        let now = Instant::now();
        let mut entries = self.entries.lock();
        if entries.len() >= MAX_ENTRIES {
            entries.retain(|_, (_, expires)| *expires > now);
        }
        if entries.len() >= MAX_ENTRIES {
            // Still full of fresh answers: forget the one closest to expiry.
            if let Some(oldest) = entries
                .iter()
                .min_by_key(|(_, (_, expires))| *expires)
                .map(|(k, _)| k.clone())
            {
                entries.remove(&oldest);
            }
        }
        entries.insert(key, (status.clone(), now + ttl));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(allowed: bool) -> Status {
        Status {
            allowed,
            ..Status::default()
        }
    }

    #[tokio::test]
    async fn each_answer_lives_for_its_own_ttl() {
        let cache = Cache::new(
            Some(Duration::from_millis(400)),
            Some(Duration::from_millis(100)),
        );
        cache.put("yes".into(), &answer(true));
        cache.put("no".into(), &answer(false));
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(cache.get("yes"), Some(answer(true)));
        assert_eq!(cache.get("no"), None);
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(cache.get("yes"), None);
    }

    #[tokio::test]
    async fn a_half_turned_off_remembers_nothing() {
        let cache = Cache::new(None, Some(Duration::from_secs(2)));
        cache.put("yes".into(), &answer(true));
        cache.put("no".into(), &answer(false));
        assert_eq!(cache.get("yes"), None);
        assert_eq!(cache.get("no"), Some(answer(false)));
    }
}
