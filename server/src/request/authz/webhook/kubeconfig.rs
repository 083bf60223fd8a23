//! Where a webhook lives and how to reach it: the cluster and user of a
//! kubeconfig file (its current context, or its only one), or a pod's
//! in-cluster service-account environment. File references are relative
//! to the kubeconfig's directory, as client-go reads them.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use crate::config::authz::Connection;

/// Where in-cluster credentials are mounted.
const SERVICE_ACCOUNT_DIR: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

/// What the client needs. The token and key are secrets: `Debug` hides them.
#[derive(Clone, Default)]
pub struct Settings {
    /// `https://host:port/path` or `http://...`; the review is POSTed to it.
    pub server: String,
    /// PEM roots for the server's certificate (the system's when absent).
    pub ca_pem: Option<Vec<u8>>,
    /// Accept any server certificate (`insecure-skip-tls-verify`).
    pub insecure: bool,
    /// The name the certificate is checked against when not the URL's host.
    pub tls_server_name: Option<String>,
    pub client_cert_pem: Option<Vec<u8>>,
    pub client_key_pem: Option<Vec<u8>>,
    pub token: Option<String>,
    /// HTTP basic credentials (`username`, `password`).
    pub basic: Option<(String, String)>,
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("server", &self.server)
            .field("insecure", &self.insecure)
            .field("client_cert", &self.client_cert_pem.is_some())
            .field("token", &self.token.is_some())
            .field("basic", &self.basic.is_some())
            .finish_non_exhaustive()
    }
}

/// The settings a connection describes; the error is one line.
pub fn settings(connection: &Connection) -> Result<Settings, String> {
    match connection {
        Connection::KubeConfigFile(path) => from_file(path),
        Connection::InCluster => in_cluster(),
    }
}

/// Reads a kubeconfig file.
pub fn from_file(path: &Path) -> Result<Settings, String> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the webhook kubeconfig {shown:?}: {e}"))?;
    let doc = read_yaml(&text)
        .map_err(|e| format!("the webhook kubeconfig {shown:?} is not YAML: {e}"))?;
    let base = path.parent().unwrap_or(Path::new("/"));
    parse(&doc, base).map_err(|e| format!("the webhook kubeconfig {shown:?}: {e}"))
}

/// Reads a kubeconfig's text, its file references relative to `base`.
pub fn from_text(text: &str, base: &Path) -> Result<Settings, String> {
    let doc = read_yaml(text).map_err(|e| format!("not YAML: {e}"))?;
    parse(&doc, base)
}

fn read_yaml(text: &str) -> Result<Value, String> {
    serde_saphyr::from_str(text).map_err(|e| first_line(&e.to_string()).to_owned())
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

fn parse(doc: &Value, base: &Path) -> Result<Settings, String> {
    let contexts = named(doc, "contexts", "context");
    let current = doc
        .get("current-context")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let (cluster_name, user_name) = if !current.is_empty() {
        let context = contexts
            .iter()
            .find(|(n, _)| *n == current)
            .map(|(_, c)| *c)
            .ok_or_else(|| format!("context {current:?} not found"))?;
        (field(context, "cluster"), field(context, "user"))
    } else if let [(_, only)] = contexts.as_slice() {
        (field(only, "cluster"), field(only, "user"))
    } else {
        (String::new(), String::new())
    };
    let clusters = named(doc, "clusters", "cluster");
    let cluster = pick(&clusters, &cluster_name)
        .ok_or_else(|| "no cluster for the webhook (set current-context)".to_string())?;
    let users = named(doc, "users", "user");
    let user = pick(&users, &user_name);

    let server = field(cluster, "server");
    if server.is_empty() {
        return Err("the cluster has no server".into());
    }
    let mut settings = Settings {
        server,
        ca_pem: material(cluster, "certificate-authority", base)?,
        insecure: cluster
            .get("insecure-skip-tls-verify")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        tls_server_name: Some(field(cluster, "tls-server-name")).filter(|s| !s.is_empty()),
        ..Settings::default()
    };
    if let Some(user) = user {
        apply_user(&mut settings, user, base)?;
    }
    Ok(settings)
}

/// Gives `settings` the credentials of a kubeconfig `user` entry: a client
/// certificate and key, a token (inline or `tokenFile`), or a username and
/// password.
pub fn apply_user(settings: &mut Settings, user: &Value, base: &Path) -> Result<(), String> {
    settings.client_cert_pem = material(user, "client-certificate", base)?;
    settings.client_key_pem = material(user, "client-key", base)?;
    if settings.client_cert_pem.is_some() != settings.client_key_pem.is_some() {
        return Err("the user needs both a client certificate and its key".into());
    }
    let token = field(user, "token");
    settings.token = if token.is_empty() {
        match field(user, "tokenFile") {
            f if f.is_empty() => None,
            f => Some(read_token(&resolve(base, &f))?),
        }
    } else {
        Some(token)
    };
    let username = field(user, "username");
    settings.basic = (!username.is_empty()).then(|| (username, field(user, "password")));
    Ok(())
}

/// The entries of a named list (`clusters: [{name, cluster: {...}}]`).
pub fn named<'a>(doc: &'a Value, list: &str, inner: &str) -> Vec<(&'a str, &'a Value)> {
    doc.get(list)
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|item| {
                    let name = item.get("name").and_then(Value::as_str).unwrap_or_default();
                    item.get(inner).map(|v| (name, v))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The entry named `name`, or the only entry when no name is given.
fn pick<'a>(entries: &[(&str, &'a Value)], name: &str) -> Option<&'a Value> {
    if name.is_empty() {
        return match entries {
            [(_, only)] => Some(*only),
            _ => None,
        };
    }
    entries.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
}

fn field(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn resolve(base: &Path, file: &str) -> PathBuf {
    let path = Path::new(file);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

/// `<key>-data` (base64) or the file `<key>` names.
fn material(v: &Value, key: &str, base: &Path) -> Result<Option<Vec<u8>>, String> {
    let data = field(v, &format!("{key}-data"));
    if !data.is_empty() {
        return STANDARD
            .decode(data.trim())
            .map(Some)
            .map_err(|_| format!("{key}-data is not base64"));
    }
    match field(v, key) {
        f if f.is_empty() => Ok(None),
        f => std::fs::read(resolve(base, &f))
            .map(Some)
            .map_err(|e| format!("cannot read {key} {f:?}: {e}")),
    }
}

fn read_token(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path)
        .map(|t| t.trim().to_owned())
        .map_err(|e| {
            format!(
                "cannot read the token file {:?}: {e}",
                path.display().to_string()
            )
        })
}

/// A pod's view of its cluster: the service host and port from the
/// environment, the mounted token and CA.
fn in_cluster() -> Result<Settings, String> {
    let host = std::env::var("KUBERNETES_SERVICE_HOST").unwrap_or_default();
    let port = std::env::var("KUBERNETES_SERVICE_PORT").unwrap_or_default();
    if host.is_empty() || port.is_empty() {
        return Err("unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined".into());
    }
    let host = if host.contains(':') {
        format!("[{host}]")
    } else {
        host
    };
    let dir = Path::new(SERVICE_ACCOUNT_DIR);
    let ca = std::fs::read(dir.join("ca.crt"))
        .map_err(|e| format!("cannot read the in-cluster CA: {e}"))?;
    Ok(Settings {
        server: format!("https://{host}:{port}"),
        ca_pem: Some(ca),
        token: Some(read_token(&dir.join("token"))?),
        ..Settings::default()
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_current_context_chooses_cluster_and_user() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("ca.pem"), "CA").expect("write");
        std::fs::write(dir.path().join("token"), "s3cret\n").expect("write");
        let doc = json!({
            "clusters": [
                {"name": "other", "cluster": {"server": "https://other"}},
                {"name": "hook", "cluster": {"server": "https://hook:8443/authz", "certificate-authority": "ca.pem"}}
            ],
            "users": [{"name": "me", "user": {"tokenFile": "token"}}],
            "contexts": [{"name": "c", "context": {"cluster": "hook", "user": "me"}}],
            "current-context": "c"
        });
        let s = parse(&doc, dir.path()).expect("settings");
        assert_eq!(s.server, "https://hook:8443/authz");
        assert_eq!(s.ca_pem.as_deref(), Some(&b"CA"[..]));
        assert_eq!(s.token.as_deref(), Some("s3cret"));
        assert!(!format!("{s:?}").contains("s3cret"));
    }

    #[test]
    fn one_cluster_needs_no_context_and_data_is_base64() {
        let doc = json!({
            "clusters": [{"name": "x", "cluster": {"server": "http://127.0.0.1:1", "certificate-authority-data": STANDARD.encode("PEM")}}],
            "users": [{"name": "u", "user": {"client-certificate-data": STANDARD.encode("C"), "client-key-data": STANDARD.encode("K")}}]
        });
        let s = parse(&doc, Path::new("/")).expect("settings");
        assert_eq!(s.ca_pem.as_deref(), Some(&b"PEM"[..]));
        assert_eq!(s.client_cert_pem.as_deref(), Some(&b"C"[..]));
        assert_eq!(s.client_key_pem.as_deref(), Some(&b"K"[..]));
    }

    #[test]
    fn missing_pieces_are_one_line_errors() {
        let no_server = json!({"clusters": [{"name": "x", "cluster": {}}]});
        assert_eq!(
            parse(&no_server, Path::new("/")).unwrap_err(),
            "the cluster has no server"
        );
        let bad_context = json!({"current-context": "gone", "contexts": []});
        assert_eq!(
            parse(&bad_context, Path::new("/")).unwrap_err(),
            "context \"gone\" not found"
        );
        let half = json!({
            "clusters": [{"name": "x", "cluster": {"server": "https://x"}}],
            "users": [{"name": "u", "user": {"client-certificate-data": STANDARD.encode("C")}}]
        });
        assert!(parse(&half, Path::new("/")).unwrap_err().contains("both"));
    }
}
