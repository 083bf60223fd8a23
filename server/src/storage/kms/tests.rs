//! KMS v2 providers against the test plugin over a real unix socket.

#[path = "../../../../tests/src/kms_plugin.rs"]
mod plugin;

use std::sync::Arc;
use std::time::{Duration, Instant};

use cairn_transform::Transformer;
use plugin::KmsPlugin;

use super::{KmsSpec, KmsV2, Timing};

/// No background polls and no cached verdicts: tests ask for probes.
const ON_DEMAND: Timing = Timing {
    healthy_poll: Duration::from_secs(3600),
    unhealthy_poll: Duration::from_secs(3600),
    healthy_ttl: Duration::ZERO,
    unhealthy_ttl: Duration::ZERO,
    write_ttl: Duration::from_secs(3600),
};

const KEY: &[u8] = b"/registry/secrets/default/s1";
const VALUE: &[u8] = b"{\"data\":{\"password\":\"hunter2-plaintext\"}}";

struct Fixture {
    _dir: tempfile::TempDir,
    plugin: KmsPlugin,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("kms.sock");
    let plugin = KmsPlugin::start(&socket);
    Fixture { _dir: dir, plugin }
}

fn spec(endpoint: String, timeout: Duration) -> KmsSpec {
    KmsSpec {
        name: "vault".into(),
        endpoint,
        timeout,
    }
}

async fn connect(f: &Fixture, timeout: Duration) -> Arc<KmsV2> {
    KmsV2::connect_with(&spec(f.plugin.endpoint(), timeout), ON_DEMAND)
        .await
        .unwrap()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_round_trip_sealed_locally_after_one_encrypt() {
    let f = fixture();
    let kms = connect(&f, Duration::from_secs(3)).await;
    assert_eq!(kms.health(), Ok(()));
    assert_eq!(f.plugin.encrypt_calls(), 1);
    let mut stored_values = Vec::new();
    for i in 0..50 {
        let key = format!("/registry/secrets/default/s{i}");
        let stored = kms
            .transform_to_storage(key.as_bytes(), VALUE)
            .unwrap()
            .into_owned();
        assert!(stored.starts_with(b"k8s:enc:kms:v2:vault:"));
        assert!(!contains(&stored, b"hunter2-plaintext"));
        stored_values.push((key, stored));
    }
    assert_eq!(
        f.plugin.encrypt_calls(),
        1,
        "one Encrypt per start, not per write"
    );
    for (key, stored) in &stored_values {
        let plain = kms.transform_from_storage(key.as_bytes(), stored).unwrap();
        assert_eq!(&plain.value[..], VALUE);
        assert!(!plain.stale);
    }
    assert_eq!(f.plugin.decrypt_calls(), 0, "this start's DEK is known");
    // Bound to its storage key.
    let (_, stored) = &stored_values[0];
    let err = kms
        .transform_from_storage(b"/registry/secrets/default/other", stored)
        .unwrap_err();
    assert!(
        err.reason.contains("kms provider \"vault\": decrypt"),
        "{}",
        err.reason
    );
    assert!(!err.reason.contains("hunter2"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_start_unwraps_old_seeds_once() {
    let f = fixture();
    let first = connect(&f, Duration::from_secs(3)).await;
    let stored: Vec<_> = (0..20)
        .map(|_| first.transform_to_storage(KEY, VALUE).unwrap().into_owned())
        .collect();
    drop(first);
    let second = connect(&f, Duration::from_secs(3)).await;
    assert_eq!(f.plugin.encrypt_calls(), 2, "each start wraps its own seed");
    for value in &stored {
        let plain = second.transform_from_storage(KEY, value).unwrap();
        assert_eq!(&plain.value[..], VALUE);
        assert!(!plain.stale, "same key id: not stale");
    }
    assert_eq!(
        f.plugin.decrypt_calls(),
        1,
        "the old seed is unwrapped once, then cached"
    );
    assert_eq!(second.cached_deks(), 2);
    let newer = second
        .transform_to_storage(KEY, VALUE)
        .unwrap()
        .into_owned();
    let wrapped_seed = |stored: &[u8]| {
        super::envelope::parse(second.prefix(), stored)
            .unwrap()
            .0
            .encrypted_dek_source
    };
    assert_ne!(
        wrapped_seed(&newer),
        wrapped_seed(&stored[0]),
        "a seed per start"
    );
    assert_eq!(wrapped_seed(&stored[0]), wrapped_seed(&stored[19]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_key_id_means_a_new_seed_and_stale_old_values() {
    let f = fixture();
    let kms = connect(&f, Duration::from_secs(3)).await;
    let old = kms.transform_to_storage(KEY, VALUE).unwrap().into_owned();
    kms.check().await.unwrap();
    assert_eq!(f.plugin.encrypt_calls(), 1, "same key id: the seed stays");
    assert_eq!(f.plugin.key_id(), "key-1");
    let new_id = f.plugin.rotate_key();
    kms.check().await.unwrap();
    assert_eq!(
        f.plugin.encrypt_calls(),
        2,
        "a changed key id wraps a new seed"
    );
    let read_old = kms.transform_from_storage(KEY, &old).unwrap();
    assert_eq!(&read_old.value[..], VALUE);
    assert!(read_old.stale, "written under the old key id");
    let new = kms.transform_to_storage(KEY, VALUE).unwrap().into_owned();
    assert!(contains(&new, new_id.as_bytes()));
    assert!(!kms.transform_from_storage(KEY, &new).unwrap().stale);
    assert_eq!(f.plugin.decrypt_calls(), 0, "both seeds were made here");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_plugin_times_out_and_fails_health() {
    let f = fixture();
    let timeout = Duration::from_millis(300);
    let writer = connect(&f, timeout).await;
    let stored = writer
        .transform_to_storage(KEY, VALUE)
        .unwrap()
        .into_owned();
    let reader = connect(&f, timeout).await;
    f.plugin.hang(true);
    let started = Instant::now();
    let err = reader.transform_from_storage(KEY, &stored).unwrap_err();
    assert!(started.elapsed() >= timeout);
    assert!(
        err.reason.contains("kms provider \"vault\": decrypt"),
        "{}",
        err.reason
    );
    assert!(err.reason.contains("DeadlineExceeded"), "{}", err.reason);
    let health = reader.health().unwrap_err();
    assert!(health.contains("DeadlineExceeded"), "{health}");
    // Writes need no plugin call.
    assert!(reader.transform_to_storage(KEY, VALUE).is_ok());
    f.plugin.hang(false);
    assert_eq!(reader.health(), Ok(()));
    assert_eq!(
        &reader.transform_from_storage(KEY, &stored).unwrap().value[..],
        VALUE
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unhealthy_plugin_fails_health_with_its_reason() {
    let f = fixture();
    let kms = connect(&f, Duration::from_secs(3)).await;
    f.plugin.set_healthz("key vault sealed");
    let asked = f.plugin.status_calls();
    let err = kms.health().unwrap_err();
    assert_eq!(
        f.plugin.status_calls(),
        asked + 1,
        "an expired verdict asks again"
    );
    assert_eq!(
        err,
        "kmsv2 Provider vault is not healthy, error: got unexpected healthz status: key vault sealed"
    );
    f.plugin.set_healthz("ok");
    assert_eq!(kms.health(), Ok(()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plugin_that_is_down_gives_clear_errors_until_it_comes() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("later.sock");
    let endpoint = format!("unix://{}", socket.display());
    let kms = KmsV2::connect_with(&spec(endpoint, Duration::from_secs(3)), ON_DEMAND)
        .await
        .unwrap();
    let health = kms.health().unwrap_err();
    assert!(health.contains("code = Unavailable"), "{health}");
    assert!(health.contains("later.sock"), "{health}");
    let err = kms.transform_to_storage(KEY, VALUE).unwrap_err();
    assert!(
        err.reason
            .starts_with("kms provider \"vault\": encrypt: no data-encryption key yet"),
        "{}",
        err.reason
    );
    let mut plugin = KmsPlugin::start(&socket);
    kms.check().await.unwrap();
    let stored = kms.transform_to_storage(KEY, VALUE).unwrap().into_owned();
    // The connection dies with the plugin and is made again when it returns.
    plugin.stop();
    assert!(kms.check().await.unwrap_err().contains("Unavailable"));
    plugin.resume();
    kms.check().await.unwrap();
    assert_eq!(
        &kms.transform_from_storage(KEY, &stored).unwrap().value[..],
        VALUE
    );
}

#[test]
fn reads_that_call_the_plugin_work_from_a_single_threaded_runtime() {
    let f = fixture();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let writer = connect(&f, Duration::from_secs(3)).await;
        let stored = writer
            .transform_to_storage(KEY, VALUE)
            .unwrap()
            .into_owned();
        let reader = connect(&f, Duration::from_secs(3)).await;
        let plain = reader.transform_from_storage(KEY, &stored).unwrap();
        assert_eq!(&plain.value[..], VALUE);
        assert_eq!(reader.health(), Ok(()));
    });
    assert_eq!(f.plugin.decrypt_calls(), 1);
}

#[tokio::test]
async fn writes_stop_when_the_plugin_has_not_confirmed_the_key_for_too_long() {
    let f = fixture();
    let timing = Timing {
        write_ttl: Duration::ZERO,
        ..ON_DEMAND
    };
    let kms = KmsV2::connect_with(&spec(f.plugin.endpoint(), Duration::from_secs(3)), timing)
        .await
        .unwrap();
    let err = kms.transform_to_storage(KEY, VALUE).unwrap_err();
    assert!(err.reason.contains("expired"), "{}", err.reason);
}

#[tokio::test]
async fn endpoints_other_than_unix_sockets_are_refused() {
    let err = KmsV2::connect(&spec("tcp://127.0.0.1:1".into(), Duration::from_secs(1)))
        .await
        .err()
        .unwrap();
    assert_eq!(
        err,
        "kms provider \"vault\": invalid endpoint \"tcp://127.0.0.1:1\" for remote KMS provider, error: unsupported scheme \"tcp\" for remote KMS provider"
    );
    let err = KmsV2::connect(&spec("unix://".into(), Duration::from_secs(1)))
        .await
        .err()
        .unwrap();
    assert!(err.contains("path is not specified"), "{err}");
}

#[tokio::test]
async fn values_of_another_provider_or_damaged_ones_fail_by_name() {
    let f = fixture();
    let kms = connect(&f, Duration::from_secs(3)).await;
    let err = kms
        .transform_from_storage(KEY, b"k8s:enc:kms:v2:other:xyz")
        .unwrap_err();
    assert!(
        err.reason.starts_with("kms provider \"vault\": decode:"),
        "{}",
        err.reason
    );
    let err = kms
        .transform_from_storage(KEY, b"k8s:enc:kms:v2:vault:\x0a\x01")
        .unwrap_err();
    assert!(err.reason.contains("decode"), "{}", err.reason);
}
