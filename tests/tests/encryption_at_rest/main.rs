//! Encryption at rest (issue 21): `--encryption-provider-config` refusals,
//! every provider round-tripping with no plaintext in the data files,
//! rotation with kubectl, unreadable objects and their unsafe delete,
//! reload while serving, and `cairn-store` reading encrypted values.

mod config;
mod providers;
mod reload;
mod rotation;
mod store_tool;
mod unreadable;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cairn_tests::Server;
use serde_json::{Value, json};

/// 32 bytes, base64.
pub const KEY_A: &str = "MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTI=";
/// Another 32 bytes, base64.
pub const KEY_B: &str = "YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXphYmNkZWY=";
/// 16 bytes, base64.
pub const KEY_16: &str = "MTIzNDU2Nzg5MDEyMzQ1Ng==";

/// A Secret value no encrypted data file may contain.
pub const PLAINTEXT: &str = "tell-no-one-7f3c2a";

/// An EncryptionConfiguration for `secrets` with `providers` (YAML list
/// items, indented by four), at the tests' API domain.
pub fn config_text(domain: &str, providers: &str) -> String {
    format!(
        "apiVersion: apiserver.config.{domain}/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: [secrets]\n    providers:\n{providers}"
    )
}

/// A provider list item with one key.
pub fn keyed(provider: &str, name: &str, secret: &str) -> String {
    format!(
        "    - {provider}:\n        keys:\n          - name: {name}\n            secret: {secret}\n"
    )
}

pub const IDENTITY: &str = "    - identity: {}\n";

/// Writes the configuration file of a test.
pub fn write_config(dir: &Path, providers: &str) -> PathBuf {
    let path = dir.join("encryption.yaml");
    std::fs::write(&path, config_text("svc.io", providers)).expect("write config");
    path
}

/// A server on `data` with the configuration at `config` and `extra` flags.
pub fn start(data: &Path, config: &Path, extra: &[&str]) -> Server {
    let mut args = vec![
        "--encryption-provider-config",
        config.to_str().expect("utf8"),
    ];
    args.extend_from_slice(extra);
    Server::start_on(data, &args)
}

pub fn secret(name: &str, value: &str) -> Value {
    use base64::Engine;
    json!({
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name},
        "data": {"token": base64::engine::general_purpose::STANDARD.encode(value)},
    })
}

pub fn secrets(ns: &str) -> String {
    format!("/api/v1/namespaces/{ns}/secrets")
}

/// The value of a Secret's `token` as the API returns it.
pub fn token(obj: &Value) -> String {
    use base64::Engine;
    let b64 = obj["data"]["token"].as_str().expect("data.token");
    String::from_utf8(
        base64::engine::general_purpose::STANDARD
            .decode(b64)
            .expect("base64"),
    )
    .expect("utf8")
}

pub fn create_namespace(s: &Server, ns: &str) {
    let r = s.post("/api/v1/namespaces", &json!({"metadata": {"name": ns}}));
    assert_eq!(r.status, 201, "{}", r.text());
}

/// Whether any file under `dir` contains `needle`.
pub fn files_contain(dir: &Path, needle: &[u8]) -> bool {
    std::fs::read_dir(dir).expect("read dir").any(|e| {
        let path = e.expect("entry").path();
        if path.is_dir() {
            return files_contain(&path, needle);
        }
        std::fs::read(&path).is_ok_and(|b| b.windows(needle.len()).any(|w| w == needle))
    })
}

fn store_bin() -> PathBuf {
    cairn_tests::binary().with_file_name("cairn-store")
}

/// Runs cairn-store.
pub fn store(args: &[&str]) -> Output {
    Command::new(store_bin())
        .args(args)
        .output()
        .expect("run cairn-store")
}

/// The stored form of `key` as `cairn-store get --raw` shows it (without
/// a configuration: encrypted values as `<prefix><encrypted, N bytes>`).
pub fn stored(data: &Path, key: &str) -> String {
    let out = store(&[
        "get",
        key,
        "--raw",
        "--data-dir",
        data.to_str().expect("utf8"),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
