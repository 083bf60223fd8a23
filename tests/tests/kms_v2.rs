//! Encryption at rest through a KMS v2 plugin (`--encryption-provider-config`
//! with a `kms` provider, `apiVersion: v2`), the plugin being the tests'
//! own gRPC server on a unix socket: Secrets are sealed on disk, one
//! Encrypt per server start, a restart unwraps the old seed once, and a
//! hung plugin fails reads that need it and the `kms-providers` check.

use std::path::Path;
use std::time::{Duration, Instant};

use cairn_tests::Server;
use cairn_tests::kms_plugin::KmsPlugin;
use serde_json::{Value, json};

/// base64 of the value below, as a Secret's `data` holds it.
const PLAIN: &str = "kms-plaintext-value-7";
const PLAIN_B64: &str = "a21zLXBsYWludGV4dC12YWx1ZS03";

fn encryption_config(dir: &Path, plugin: &KmsPlugin, timeout: &str) -> String {
    let path = dir.join("encryption.yaml");
    let text = format!(
        "apiVersion: apiserver.config.svc.io/v1\n\
         kind: EncryptionConfiguration\n\
         resources:\n\
         - resources: [secrets]\n\
         \x20 providers:\n\
         \x20 - kms:\n\
         \x20     apiVersion: v2\n\
         \x20     name: testkms\n\
         \x20     endpoint: {}\n\
         \x20     timeout: {timeout}\n\
         \x20 - identity: {{}}\n",
        plugin.endpoint()
    );
    std::fs::write(&path, text).expect("write the encryption configuration");
    path.to_str().expect("utf8").to_string()
}

fn secret(name: &str) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name},
        "data": {"password": PLAIN_B64},
    })
}

/// Every byte under the data directory.
fn raw_bytes(dir: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read the data directory") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            out.extend(raw_bytes(&path));
        } else if let Ok(bytes) = std::fs::read(&path) {
            out.extend(bytes);
        }
    }
    out
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Polls until `done`, for checks whose verdict Kubernetes caches (20 s).
fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn secrets_are_sealed_by_the_plugin_and_readable_after_a_restart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let plugin = KmsPlugin::start(&dir.path().join("kms.sock"));
    let config = encryption_config(dir.path(), &plugin, "3s");
    let data = dir.path().join("data");
    let flags = ["--encryption-provider-config", config.as_str()];

    let mut first = Server::start_on(&data, &flags);
    for i in 0..5 {
        let created = first.post(
            "/api/v1/namespaces/default/secrets",
            &secret(&format!("db-{i}")),
        );
        assert_eq!(created.status, 201, "{}", created.text());
    }
    let got = first.get("/api/v1/namespaces/default/secrets/db-0").json();
    assert_eq!(got["data"]["password"], PLAIN_B64);
    assert_eq!(
        plugin.encrypt_calls(),
        1,
        "one Encrypt per start, not per write"
    );
    assert_eq!(plugin.decrypt_calls(), 0);
    first.stop();

    let raw = raw_bytes(&data);
    assert!(contains(&raw, b"k8s:enc:kms:v2:testkms:"));
    assert!(!contains(&raw, PLAIN_B64.as_bytes()));
    assert!(!contains(&raw, PLAIN.as_bytes()));

    let second = Server::start_on(&data, &flags);
    assert_eq!(plugin.encrypt_calls(), 2);
    let list = second.get("/api/v1/namespaces/default/secrets").json();
    let items = list["items"].as_array().expect("items");
    let ours: Vec<&Value> = items
        .iter()
        .filter(|s| {
            s["metadata"]["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("db-"))
        })
        .collect();
    assert_eq!(ours.len(), 5, "{list}");
    assert!(ours.iter().all(|s| s["data"]["password"] == PLAIN_B64));
    assert_eq!(
        plugin.decrypt_calls(),
        1,
        "the first start's seed is unwrapped once"
    );
}

#[test]
fn a_hung_plugin_fails_the_kms_check_while_cached_seeds_keep_reads_working() {
    let dir = tempfile::tempdir().expect("tempdir");
    let plugin = KmsPlugin::start(&dir.path().join("kms.sock"));
    let config = encryption_config(dir.path(), &plugin, "1s");
    let data = dir.path().join("data");
    let flags = ["--encryption-provider-config", config.as_str()];

    let mut first = Server::start_on(&data, &flags);
    let created = first.post("/api/v1/namespaces/default/secrets", &secret("old"));
    assert_eq!(created.status, 201, "{}", created.text());
    first.stop();

    let second = Server::start_on(&data, &flags);
    let ready = second.get("/readyz?verbose");
    assert_eq!(ready.status, 200);
    assert!(
        ready.text().contains("[+]kms-providers ok"),
        "{}",
        ready.text()
    );

    plugin.hang(true);
    // The start's informers already read the old value, so its seed is
    // cached: reads need no plugin call (as Kubernetes' DEK cache).
    let read = second.get("/api/v1/namespaces/default/secrets/old");
    assert_eq!(read.status, 200, "{}", read.text());
    assert_eq!(read.json()["data"]["password"], PLAIN_B64);
    // Writes seal locally with this start's seed.
    let created = second.post("/api/v1/namespaces/default/secrets", &secret("new"));
    assert_eq!(created.status, 201, "{}", created.text());

    eventually("/readyz to fail on the hung plugin", || {
        let r = second.get("/readyz?verbose");
        r.status == 500 && r.text().contains("[-]kms-providers failed")
    });
    assert_eq!(second.get("/healthz").status, 500);

    plugin.hang(false);
    eventually("/readyz to recover", || second.get("/readyz").status == 200);
    let read = second.get("/api/v1/namespaces/default/secrets/old").json();
    assert_eq!(read["data"]["password"], PLAIN_B64);
}
