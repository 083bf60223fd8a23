//! TLS for connections cairn opens to servers behind it (extension API
//! servers, `https` proxy targets): trusting a CA bundle or, when told to,
//! any certificate, and presenting `--proxy-client-cert-file` when set.

use std::sync::Arc;

use rustls::ClientConfig;

use crate::config::Config;
use crate::request::authz::webhook::kubeconfig::Settings;
use crate::request::authz::webhook::tls::client_config;

/// The client configuration; the error is one line without key material.
pub fn client(
    config: &Config,
    ca_pem: Option<Vec<u8>>,
    insecure: bool,
) -> Result<Arc<ClientConfig>, String> {
    let (client_cert_pem, client_key_pem) = match config.proxy_client.load()? {
        Some(pem) => (Some(pem.cert), Some(pem.key)),
        None => (None, None),
    };
    let settings = Settings {
        server: String::new(),
        ca_pem,
        insecure,
        tls_server_name: None,
        client_cert_pem,
        client_key_pem,
        ..Settings::default()
    };
    client_config(&settings).map(Arc::new)
}
