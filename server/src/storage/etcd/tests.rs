//! The backend against a real etcd (Debian's `etcd-server`, started on
//! free loopback ports with its own data directory): the conformance suite
//! and what is particular to etcd.

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use super::{Etcd, EtcdOptions};
use crate::storage::{KeyRange, RangeOptions, Revision, Storage, StorageError, Txn};

/// One etcd process, killed on drop.
struct TestEtcd {
    child: Child,
    url: String,
    _dir: tempfile::TempDir,
}

impl Drop for TestEtcd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

impl TestEtcd {
    fn start() -> TestEtcd {
        TestEtcd::start_with(tempfile::tempdir().expect("temp dir"), "http", &[])
    }

    /// etcd serving `scheme` with `extra` flags, its data in `dir`.
    fn start_with(dir: tempfile::TempDir, scheme: &str, extra: &[String]) -> TestEtcd {
        let (client, peer) = (free_port(), free_port());
        let url = format!("{scheme}://127.0.0.1:{client}");
        let peer_url = format!("http://127.0.0.1:{peer}");
        let child = Command::new(std::env::var("ETCD").unwrap_or_else(|_| "etcd".into()))
            .args(extra)
            .arg("--name=cairn-test")
            .arg(format!("--data-dir={}", dir.path().join("data").display()))
            .arg(format!("--listen-client-urls={url}"))
            .arg(format!("--advertise-client-urls={url}"))
            .arg(format!("--listen-peer-urls={peer_url}"))
            .arg(format!("--initial-advertise-peer-urls={peer_url}"))
            .arg(format!("--initial-cluster=cairn-test={peer_url}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("etcd is installed (apt-get install etcd-server)");
        TestEtcd {
            child,
            url,
            _dir: dir,
        }
    }

    async fn backend(&self) -> Arc<Etcd> {
        let etcd = Etcd::start(&EtcdOptions {
            servers: vec![self.url.clone()],
            prefix: "/registry".into(),
            ca_file: None,
            cert_file: None,
            key_file: None,
        })
        .expect("options");
        etcd.wait_healthy(Duration::from_secs(60))
            .await
            .expect("etcd answers");
        etcd
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conformance() {
    let server = TestEtcd::start();
    let etcd = server.backend().await;
    crate::storage::conformance::run_all(etcd.as_ref(), b"/registry/conformance/").await;
    etcd.close();
}

/// The watch cache in front of etcd answers as etcd does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conformance_through_the_watch_cache() {
    let server = TestEtcd::start();
    let etcd = server.backend().await;
    let ordered = Arc::clone(&etcd.probe.ordered_progress);
    let backend: Arc<dyn Storage> = etcd;
    let cache = crate::storage::cache::WatchCache::start(backend, KeyRange::prefix(b"/registry/"));
    assert!(
        cache.loaded(Duration::from_secs(30)).await,
        "the cache loads"
    );
    crate::storage::conformance::run_all(cache.as_ref(), b"/registry/conformance/").await;
    // A write outside the cached keys moves etcd's revision past the
    // cache's. An etcd that orders progress notifications tells the cache
    // it is current; an older one is not asked, and the list is etcd's.
    // Either way it sees the write before it. (The suite's reads at future
    // revisions went to etcd too.)
    let before = cache.fallbacks();
    for i in 0..20 {
        cache
            .commit(Txn::new().put(format!("/registry/late/{i}"), "x"))
            .await
            .expect("commit");
        cache
            .commit(Txn::new().put(format!("/elsewhere/{i}"), "x"))
            .await
            .expect("commit");
        let list = cache
            .range(
                KeyRange::prefix(b"/registry/late/"),
                RangeOptions::default(),
            )
            .await
            .expect("list");
        assert_eq!(list.items.len(), i + 1);
    }
    let expected = match ordered.load(std::sync::atomic::Ordering::Acquire) {
        true => before,
        false => before + 20,
    };
    assert_eq!(cache.fallbacks(), expected);
    cache.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_one_server_compacts_per_round() {
    let server = TestEtcd::start();
    let (a, b) = (server.backend().await, server.backend().await);
    let first = a
        .commit(Txn::new().put("/registry/k", "1"))
        .await
        .unwrap()
        .revision;
    let second = a
        .commit(Txn::new().put("/registry/k", "2"))
        .await
        .unwrap()
        .revision;
    // Neither has seen the key: the first to claim the round wins it.
    assert!(a.compact_round(first).await.unwrap());
    assert!(
        !b.compact_round(first).await.unwrap(),
        "the round was taken"
    );
    // b now knows the key's version and wins the next round; a does not.
    assert!(b.compact_round(second).await.unwrap());
    assert!(!a.compact_round(second).await.unwrap());
    assert_eq!(a.status().await.unwrap().compacted_revision, second);
    let old = a.get(b"/registry/k", Some(first)).await.unwrap_err();
    assert!(
        matches!(old, StorageError::Compacted { requested, compacted } if requested == first && compacted == second),
        "{old:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_live_under_the_prefix_and_etcd_down_is_unavailable() {
    let mut server = TestEtcd::start();
    let etcd = Etcd::start(&EtcdOptions {
        servers: vec![server.url.clone()],
        prefix: "/other".into(),
        ca_file: None,
        cert_file: None,
        key_file: None,
    })
    .unwrap();
    etcd.wait_healthy(Duration::from_secs(60)).await.unwrap();
    let raw = server.backend().await;
    let rev = etcd
        .commit(Txn::new().put("/registry/pods/ns/a", "v"))
        .await
        .unwrap()
        .revision;
    let seen = raw
        .get(b"/other/pods/ns/a", None)
        .await
        .unwrap()
        .kv
        .expect("stored under the prefix");
    assert_eq!((seen.mod_revision, &seen.value[..]), (rev, &b"v"[..]));
    let listed = etcd
        .range(KeyRange::prefix(b"/registry/"), RangeOptions::default())
        .await
        .unwrap();
    assert_eq!(listed.items.len(), 1);
    assert_eq!(&listed.items[0].key[..], b"/registry/pods/ns/a");
    let future = etcd
        .get(b"/registry/pods/ns/a", Some(Revision(rev.get() + 100)))
        .await
        .unwrap_err();
    assert!(
        matches!(future, StorageError::FutureRevision { current, .. } if current == rev),
        "{future:?}"
    );

    let _ = server.child.kill();
    let _ = server.child.wait();
    let down = etcd
        .commit(Txn::new().put("/registry/pods/ns/b", "v"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            down,
            StorageError::Unavailable(_) | StorageError::Timeout(_)
        ),
        "{down:?}"
    );
    while etcd.health().is_ok() {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// TLS both ways: etcd's certificate checked against `--etcd-cafile`, and
/// etcd requiring the client certificate of `--etcd-certfile`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutual_tls() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ca = crate::tls::pki::ClusterCa::load_or_create(dir.path()).expect("CA");
    let serving = ca
        .serving(dir.path(), &["127.0.0.1".into()])
        .expect("serving pair");
    let client = ca.client("cairn", None).expect("client pair");
    let write = |name: &str, pem: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, pem).expect("write");
        path
    };
    let ca_file = write("ca.pem", &ca.cert_pem);
    let server_cert = write("etcd.pem", &serving.cert_pem);
    let server_key = write("etcd-key.pem", &serving.key_pem);
    let cert_file = write("client.pem", &client.cert_pem);
    let key_file = write("client-key.pem", &client.key_pem);
    let flags = [
        format!("--cert-file={}", server_cert.display()),
        format!("--key-file={}", server_key.display()),
        format!("--trusted-ca-file={}", ca_file.display()),
        "--client-cert-auth".to_string(),
    ];
    let server = TestEtcd::start_with(dir, "https", &flags);
    let options = |cert: Option<&std::path::Path>, key: Option<&std::path::Path>| EtcdOptions {
        servers: vec![server.url.clone()],
        prefix: "/registry".into(),
        ca_file: Some(ca_file.clone()),
        cert_file: cert.map(std::path::Path::to_path_buf),
        key_file: key.map(std::path::Path::to_path_buf),
    };
    let etcd = Etcd::start(&options(Some(&cert_file), Some(&key_file))).expect("options");
    etcd.wait_healthy(Duration::from_secs(60))
        .await
        .expect("etcd answers over TLS");
    let rev = etcd
        .commit(Txn::new().put("/registry/secure", "v"))
        .await
        .expect("a write over TLS")
        .revision;
    assert!(rev > Revision::ZERO);
    let anonymous = Etcd::start(&options(None, None)).expect("options");
    assert!(
        anonymous.get(b"/registry/secure", None).await.is_err(),
        "without a client certificate etcd refuses the connection"
    );
    assert!(anonymous.health().is_err());
}
