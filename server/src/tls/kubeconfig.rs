//! `<data-dir>/admin.kubeconfig`: a kubeconfig for `system:admin` in
//! `system:masters` (a client certificate from the cluster CA), written at
//! first start, as k3s does, so kubectl works at once. Kept across starts
//! while it still fits: the same CA, server URL, and an unexpired
//! certificate.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use crate::request::user::MASTERS;
use crate::tls::TlsError;
use crate::tls::pki::{ClusterCa, still_fresh, write_private};

/// Where the admin kubeconfig lives.
#[must_use]
pub fn path(data_dir: &Path) -> PathBuf {
    data_dir.join("admin.kubeconfig")
}

/// Writes the admin kubeconfig unless the one there still fits.
/// `trust_ca` says whether clients should trust the cluster CA for the
/// server's certificate (false when the serving certificate was given).
pub fn ensure(
    data_dir: &Path,
    ca: &ClusterCa,
    server_url: &str,
    trust_ca: bool,
) -> Result<PathBuf, TlsError> {
    let path = path(data_dir);
    let ca_data = trust_ca.then(|| STANDARD.encode(&ca.cert_pem));
    if let Ok(text) = std::fs::read_to_string(&path)
        && fits(&text, ca, server_url, ca_data.as_deref())
    {
        return Ok(path);
    }
    let admin = ca.client("system:admin", Some(MASTERS))?;
    let mut cluster = json!({ "server": server_url });
    if let Some(data) = ca_data {
        cluster["certificate-authority-data"] = Value::String(data);
    }
    let doc = json!({
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{ "name": "cairn", "cluster": cluster }],
        "users": [{ "name": "system:admin", "user": {
            "client-certificate-data": STANDARD.encode(&admin.cert_pem),
            "client-key-data": STANDARD.encode(&admin.key_pem),
        }}],
        "contexts": [{ "name": "cairn", "context": { "cluster": "cairn", "user": "system:admin" } }],
        "current-context": "cairn",
        "preferences": {},
    });
    let text = serde_saphyr::to_string(&doc)
        .map_err(|e| TlsError::Generate(format!("kubeconfig: {e}")))?;
    write_private(&path, text.as_bytes())?;
    tracing::info!(path = %path.display(), "wrote the admin kubeconfig (user system:admin, group system:masters)");
    Ok(path)
}

fn fits(text: &str, ca: &ClusterCa, server_url: &str, ca_data: Option<&str>) -> bool {
    let Ok(doc) = serde_saphyr::from_str::<Value>(text) else {
        return false;
    };
    let cluster = &doc["clusters"][0]["cluster"];
    let user = &doc["users"][0]["user"];
    let cert = user["client-certificate-data"]
        .as_str()
        .and_then(|d| STANDARD.decode(d).ok())
        .and_then(|b| String::from_utf8(b).ok());
    cluster["server"].as_str() == Some(server_url)
        && cluster["certificate-authority-data"].as_str() == ca_data
        && cert.is_some_and(|pem| still_fresh(&pem) && ca.signed(&pem))
}
