//! A cache of bearer-token answers, so a client sending the same token again
//! and again is verified once per TTL (a service-account JWT's signature
//! check costs far more than a lookup). As kube-apiserver's token cache:
//! recognised tokens are kept 10 s, refusals not at all by default; answers
//! are keyed by the audiences asked as well as the token, so an answer for
//! one audience never serves another. Keys are HMAC-SHA256 digests under a
//! key drawn at start, never the token itself; the cache is bounded
//! (sharded, oldest entries dropped first when a shard is full). Users are
//! kept in `system:authenticated`, as every reader reports them.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use ring::hmac;

use crate::api::error::ApiError;
use crate::request::authn::token::{Audiences, TokenAuthenticator, TokenUser};
use crate::request::user::with_authenticated_group;
use crate::util::maybe_async::MaybeAsync;

/// How long a recognised token's answer is kept (kube-apiserver's default).
pub const SUCCESS_TTL: Duration = Duration::from_secs(10);
/// How long an unrecognised or refused token's answer is kept
/// (kube-apiserver's default: not at all).
pub const FAILURE_TTL: Duration = Duration::ZERO;
/// Answers kept at most, over all shards.
pub const CAPACITY: usize = 4096;

/// Shards, so that concurrent requests rarely wait for one another.
const SHARDS: usize = 16;

type Key = [u8; 32];

/// What the wrapped authenticator answered.
#[derive(Clone)]
enum Outcome {
    Recognised(TokenUser),
    Unknown,
    /// The refusal's message (what a TokenReview reports).
    Refused(String),
}

impl Outcome {
    fn of(answer: &Result<Option<TokenUser>, ApiError>) -> Outcome {
        match answer {
            Ok(Some(found)) => Outcome::Recognised(found.clone()),
            Ok(None) => Outcome::Unknown,
            Err(e) => Outcome::Refused(e.to_string()),
        }
    }

    fn answer(self) -> Result<Option<TokenUser>, ApiError> {
        match self {
            Outcome::Recognised(found) => Ok(Some(found)),
            Outcome::Unknown => Ok(None),
            // Refusals become 401s on requests; only the message is
            // seen (in a TokenReview's status.error).
            Outcome::Refused(message) => Err(ApiError::BadRequest(message)),
        }
    }
}

struct Entry {
    outcome: Outcome,
    expires: Instant,
    /// Which insertion this is, so that `order` can tell stale positions.
    stamp: u64,
}

#[derive(Default)]
struct Shard {
    entries: HashMap<Key, Entry>,
    /// Keys in insertion order (with their stamp), oldest first.
    order: VecDeque<(Key, u64)>,
    next_stamp: u64,
}

impl Shard {
    fn get(&self, key: &Key, now: Instant) -> Option<Outcome> {
        self.entries
            .get(key)
            .filter(|e| e.expires > now)
            .map(|e| e.outcome.clone())
    }

    fn insert(&mut self, key: Key, outcome: Outcome, expires: Instant, capacity: usize) {
        let stamp = self.next_stamp;
        self.next_stamp += 1;
        self.entries.insert(
            key,
            Entry {
                outcome,
                expires,
                stamp,
            },
        );
        self.order.push_back((key, stamp));
        let now = Instant::now();
        while let Some(&(oldest, oldest_stamp)) = self.order.front() {
            let current = self.entries.get(&oldest);
            let stale = current.is_none_or(|e| e.stamp != oldest_stamp);
            let expired = current.is_some_and(|e| e.expires <= now);
            if !(stale || expired || self.entries.len() > capacity) {
                break;
            }
            self.order.pop_front();
            if !stale {
                self.entries.remove(&oldest);
            }
        }
    }
}

/// Caches the answers of one token authenticator (usually the `Tokens`
/// union, or one expensive authenticator).
pub struct TokenCache {
    inner: Arc<dyn TokenAuthenticator>,
    key: hmac::Key,
    success_ttl: Duration,
    failure_ttl: Duration,
    shards: Vec<Mutex<Shard>>,
    per_shard: usize,
}

impl TokenCache {
    /// Kubernetes' defaults: recognised tokens for `SUCCESS_TTL`, refusals
    /// not kept, at most `CAPACITY` answers.
    #[must_use]
    pub fn new(inner: Arc<dyn TokenAuthenticator>) -> TokenCache {
        TokenCache::with_ttls(inner, SUCCESS_TTL, FAILURE_TTL, CAPACITY)
    }

    /// A cache keeping successes and failures for the given times (zero:
    /// not kept), at most `capacity` answers.
    #[must_use]
    pub fn with_ttls(
        inner: Arc<dyn TokenAuthenticator>,
        success_ttl: Duration,
        failure_ttl: Duration,
        capacity: usize,
    ) -> TokenCache {
        let key = hmac::Key::generate(hmac::HMAC_SHA256, &ring::rand::SystemRandom::new())
            .expect("the operating system's random source is available");
        TokenCache {
            inner,
            key,
            success_ttl,
            failure_ttl,
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            per_shard: capacity.div_ceil(SHARDS).max(1),
        }
    }

    /// The digest of the audiences asked and the token, each length-prefixed
    /// so that no two different questions share a key.
    fn key_of(&self, token: &str, audiences: &[String]) -> Key {
        let mut ctx = hmac::Context::with_key(&self.key);
        ctx.update(&(audiences.len() as u64).to_le_bytes());
        for audience in audiences {
            ctx.update(&(audience.len() as u64).to_le_bytes());
            ctx.update(audience.as_bytes());
        }
        ctx.update(token.as_bytes());
        let mut key = [0u8; 32];
        key.copy_from_slice(ctx.sign().as_ref());
        key
    }

    fn shard(&self, key: &Key) -> &Mutex<Shard> {
        &self.shards[usize::from(key[0]) % SHARDS]
    }

    fn remember(&self, key: Key, answer: &Result<Option<TokenUser>, ApiError>) {
        let ttl = match answer {
            Ok(Some(_)) => self.success_ttl,
            _ => self.failure_ttl,
        };
        if ttl.is_zero() {
            return;
        }
        let expires = Instant::now() + ttl;
        self.shard(&key)
            .lock()
            .insert(key, Outcome::of(answer), expires, self.per_shard);
    }
}

impl TokenAuthenticator for TokenCache {
    fn authenticate_token<'a>(
        &'a self,
        token: &'a str,
        audiences: Audiences<'a>,
    ) -> MaybeAsync<'a, Result<Option<TokenUser>, ApiError>> {
        let key = self.key_of(token, audiences);
        if let Some(known) = self.shard(&key).lock().get(&key, Instant::now()) {
            return MaybeAsync::Ready(known.answer());
        }
        self.inner
            .authenticate_token(token, audiences)
            .map(move |answer| {
                // Kept in `system:authenticated`, as the request chain and
                // TokenReview both report the user: a cached user is then
                // passed on as it is, not copied on every request.
                let answer = answer.map(|found| {
                    found.map(|f| TokenUser {
                        user: with_authenticated_group(f.user),
                        ..f
                    })
                });
                self.remember(key, &answer);
                answer
            })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::request::user::UserInfo;

    /// Knows "good" (for any audience), refuses "bad", counts the questions.
    #[derive(Default)]
    struct Counting(AtomicUsize);

    impl TokenAuthenticator for Counting {
        fn authenticate_token<'a>(
            &'a self,
            token: &'a str,
            audiences: Audiences<'a>,
        ) -> MaybeAsync<'a, Result<Option<TokenUser>, ApiError>> {
            self.0.fetch_add(1, Ordering::SeqCst);
            MaybeAsync::Ready(match token {
                "good" => Ok(Some(TokenUser {
                    user: Arc::new(UserInfo::new("jane", &[])),
                    audiences: audiences.to_vec(),
                })),
                "bad" => Err(ApiError::BadRequest("token has expired".into())),
                _ => Ok(None),
            })
        }
    }

    async fn ask(
        cache: &TokenCache,
        token: &str,
        audiences: &[&str],
    ) -> Result<Option<Vec<String>>, String> {
        let audiences: Vec<String> = audiences.iter().map(|s| (*s).to_string()).collect();
        cache
            .authenticate_token(token, &audiences)
            .resolve()
            .await
            .map(|f| f.map(|f| f.audiences))
            .map_err(|e| e.to_string())
    }

    #[tokio::test]
    async fn successes_are_kept_per_audience_and_failures_by_default_not() {
        let inner = Arc::new(Counting::default());
        let cache = TokenCache::new(Arc::clone(&inner) as Arc<dyn TokenAuthenticator>);
        let calls = || inner.0.load(Ordering::SeqCst);
        assert_eq!(
            ask(&cache, "good", &["a"]).await,
            Ok(Some(vec!["a".to_string()]))
        );
        assert_eq!(
            ask(&cache, "good", &["a"]).await,
            Ok(Some(vec!["a".to_string()]))
        );
        assert_eq!(calls(), 1, "the second answer came from the cache");
        let user = |token: &'static str| {
            let cache = &cache;
            async move {
                cache
                    .authenticate_token(token, &[])
                    .resolve()
                    .await
                    .expect("recognised")
                    .expect("a user")
                    .user
            }
        };
        let (first, second) = (user("good").await, user("good").await);
        assert_eq!(first.groups, ["system:authenticated"]);
        assert!(
            Arc::ptr_eq(&first, &second),
            "a cached user is shared, not copied"
        );
        assert_eq!(
            ask(&cache, "good", &["b"]).await,
            Ok(Some(vec!["b".to_string()]))
        );
        assert_eq!(
            ask(&cache, "good", &["a", "b"]).await,
            Ok(Some(vec!["a".to_string(), "b".to_string()]))
        );
        assert_eq!(calls(), 4, "other audiences are other questions");
        for _ in 0..2 {
            assert_eq!(
                ask(&cache, "bad", &[]).await,
                Err("token has expired".into())
            );
            assert_eq!(ask(&cache, "unknown", &[]).await, Ok(None));
        }
        assert_eq!(calls(), 8, "failures are asked again");
    }

    #[tokio::test]
    async fn failures_kept_when_asked_and_entries_expire() {
        let inner = Arc::new(Counting::default());
        let cache = TokenCache::with_ttls(
            Arc::clone(&inner) as Arc<dyn TokenAuthenticator>,
            Duration::from_millis(30),
            Duration::from_secs(60),
            64,
        );
        let calls = || inner.0.load(Ordering::SeqCst);
        for _ in 0..3 {
            assert_eq!(
                ask(&cache, "bad", &[]).await,
                Err("token has expired".into())
            );
            assert_eq!(ask(&cache, "unknown", &[]).await, Ok(None));
            assert_eq!(ask(&cache, "good", &[]).await, Ok(Some(Vec::new())));
        }
        assert_eq!(calls(), 3);
        tokio::time::sleep(Duration::from_millis(40)).await;
        assert_eq!(ask(&cache, "good", &[]).await, Ok(Some(Vec::new())));
        assert_eq!(calls(), 4, "an expired success is asked again");
    }

    #[tokio::test]
    async fn the_cache_stays_within_its_capacity() {
        let inner = Arc::new(Counting::default());
        let cache = TokenCache::with_ttls(
            Arc::clone(&inner) as Arc<dyn TokenAuthenticator>,
            Duration::from_secs(60),
            Duration::from_secs(60),
            SHARDS,
        );
        for i in 0..1000 {
            let _ = ask(&cache, &format!("token-{i}"), &[]).await;
        }
        let held: usize = cache.shards.iter().map(|s| s.lock().entries.len()).sum();
        assert!(held <= SHARDS, "{held} answers held");
        let positions: usize = cache.shards.iter().map(|s| s.lock().order.len()).sum();
        assert!(positions <= 2 * SHARDS, "{positions} positions kept");
    }

    #[test]
    fn keys_are_digests_that_separate_audiences_and_tokens() {
        let cache = TokenCache::new(Arc::new(Counting::default()));
        let a = cache.key_of("token", &["x".to_string()]);
        assert_eq!(a, cache.key_of("token", &["x".to_string()]));
        assert_ne!(a, cache.key_of("xtoken", &[]));
        assert_ne!(a, cache.key_of("token", &["x".to_string(), String::new()]));
        assert!(!a.windows(5).any(|w| w == b"token"));
        let other = TokenCache::new(Arc::new(Counting::default()));
        assert_ne!(
            a,
            other.key_of("token", &["x".to_string()]),
            "keys differ per process"
        );
    }
}
