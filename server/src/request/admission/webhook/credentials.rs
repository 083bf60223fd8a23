//! The credentials a WebhookAdmissionConfiguration's `kubeConfigFile` gives
//! webhook calls. Its `users` are named after the hosts they are for:
//! `host:port` (a Service's `name.namespace.svc:port`), a wildcard
//! `*.domain[:port]`, the bare host when the port is 443, then `*`, and
//! last the current context's user, looked up in that order as
//! kube-apiserver does. Every user entry is read at start, so a missing
//! certificate or token file stops the server there.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::request::authz::webhook::kubeconfig::{Settings, apply_user, named};

/// The users of one webhook kubeconfig, by name.
#[derive(Debug)]
pub struct Credentials {
    pub path: PathBuf,
    users: HashMap<String, Value>,
    /// The current context's user, the last resort.
    current: Option<Value>,
    base: PathBuf,
}

impl Credentials {
    /// Reads the kubeconfig at `path`; the error is one line (it never
    /// shows a credential).
    pub fn load(path: &Path) -> Result<Credentials, String> {
        let shown = path.display().to_string();
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("cannot read {shown:?}: {e}"))?;
        let doc: Value = serde_saphyr::from_str(&text).map_err(|e| {
            format!(
                "{shown:?} is not a kubeconfig: {}",
                crate::config::document::one_line(&e.to_string())
            )
        })?;
        let base = path.parent().unwrap_or(Path::new("/")).to_path_buf();
        let users: HashMap<String, Value> = named(&doc, "users", "user")
            .into_iter()
            .map(|(name, user)| (name.to_string(), user.clone()))
            .collect();
        for (name, user) in &users {
            apply_user(&mut Settings::default(), user, &base)
                .map_err(|e| format!("{shown:?}: user {name:?}: {e}"))?;
        }
        let current = doc
            .get("current-context")
            .and_then(Value::as_str)
            .and_then(|context| {
                named(&doc, "contexts", "context")
                    .into_iter()
                    .find(|(n, _)| *n == context)
            })
            .and_then(|(_, c)| c.get("user").and_then(Value::as_str))
            .and_then(|user| users.get(user).cloned());
        Ok(Credentials {
            path: path.to_path_buf(),
            users,
            current,
            base,
        })
    }

    /// The user entry for a webhook at `host_port`, in kube's order.
    fn user_for(&self, host_port: &str) -> Option<&Value> {
        let exact_or_wildcard = |target: &str| {
            self.users.get(target).or_else(|| {
                let steps: Vec<&str> = target.split('.').collect();
                (1..steps.len())
                    .find_map(|i| self.users.get(&format!("*.{}", steps[i..].join("."))))
            })
        };
        exact_or_wildcard(host_port)
            .or_else(|| {
                let host = host_port.strip_suffix(":443")?;
                exact_or_wildcard(host)
            })
            .or_else(|| self.users.get("*"))
            .or(self.current.as_ref())
    }

    /// Gives `settings` the credentials for a webhook at `host_port`
    /// (none when no entry names it).
    pub fn apply(&self, host_port: &str, settings: &mut Settings) -> Result<(), String> {
        match self.user_for(host_port) {
            Some(user) => apply_user(settings, user, &self.base),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn credentials(yaml: &str) -> (tempfile::TempDir, Credentials) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("kubeconfig");
        std::fs::write(&path, yaml).expect("write");
        let loaded = Credentials::load(&path).expect("load");
        (dir, loaded)
    }

    fn token(c: &Credentials, host_port: &str) -> Option<String> {
        let mut settings = Settings::default();
        c.apply(host_port, &mut settings).expect("apply");
        settings
            .token
            .or(settings.basic.map(|(user, _)| format!("basic:{user}")))
    }

    #[test]
    fn users_are_found_as_kube_finds_them() {
        let (_dir, c) = credentials(
            "users:\n\
             - {name: 'hook.ns.svc:8443', user: {token: exact}}\n\
             - {name: 'hook.ns.svc', user: {token: no-port}}\n\
             - {name: '*.example.com', user: {username: ann, password: pw}}\n\
             - {name: '*', user: {token: star}}\n",
        );
        assert_eq!(token(&c, "hook.ns.svc:8443").as_deref(), Some("exact"));
        assert_eq!(token(&c, "hook.ns.svc:443").as_deref(), Some("no-port"));
        assert_eq!(token(&c, "hook.ns.svc:9443").as_deref(), Some("star"));
        assert_eq!(
            token(&c, "a.b.example.com:443").as_deref(),
            Some("basic:ann")
        );
        assert_eq!(token(&c, "10.0.0.1:443").as_deref(), Some("star"));
    }

    #[test]
    fn the_current_context_user_is_the_last_resort() {
        let (_dir, c) = credentials(
            "users:\n- {name: me, user: {token: mine}}\n\
             contexts:\n- {name: c, context: {user: me}}\ncurrent-context: c\n",
        );
        assert_eq!(token(&c, "anywhere:443").as_deref(), Some("mine"));
        let (_dir, none) = credentials("users:\n- {name: other.host, user: {token: t}}\n");
        assert_eq!(token(&none, "anywhere:443"), None);
    }

    #[test]
    fn unreadable_user_files_stop_the_load_without_secrets() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("kubeconfig");
        std::fs::write(
            &path,
            "users:\n- {name: '*', user: {tokenFile: /nonexistent/token, password: s3cret}}\n",
        )
        .expect("write");
        let e = Credentials::load(&path).unwrap_err();
        assert!(e.contains("user \"*\"") && e.contains("token file"), "{e}");
        assert!(!e.contains("s3cret"), "{e}");
    }
}
