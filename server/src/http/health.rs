//! `/healthz`, `/livez`, `/readyz`: named checks, `verbose`, `exclude`, and
//! per-check paths, in Kubernetes' text format.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use http::Response;
use parking_lot::Mutex;

use crate::http::body::Body;
use crate::http::params::Query;
use crate::http::respond::{add_warnings, text};
use crate::storage::Storage;

/// A named check of /healthz and /readyz beyond the built-in ones (e.g.
/// `kms-providers`).
pub type Check = Box<dyn Fn() -> Result<(), String> + Send + Sync>;

/// Server state the checks read.
pub struct Health {
    started: Instant,
    livez_grace: Duration,
    shutting_down: AtomicBool,
    /// Post-start hooks, and whether each has finished.
    hooks: Mutex<Vec<(String, bool)>>,
    /// Checks added by components, asked on /healthz and /readyz.
    added: Mutex<Vec<(String, Arc<Check>)>>,
}

impl Health {
    #[must_use]
    pub fn new(livez_grace: Duration, hooks: &[&str]) -> Health {
        Health {
            started: Instant::now(),
            livez_grace,
            shutting_down: AtomicBool::new(false),
            hooks: Mutex::new(hooks.iter().map(|h| ((*h).to_string(), false)).collect()),
            added: Mutex::new(Vec::new()),
        }
    }

    /// Adds the check `name` to /healthz and /readyz.
    pub fn add_check(&self, name: &str, check: Check) {
        self.added.lock().push((name.to_string(), Arc::new(check)));
    }

    /// Marks a post-start hook finished.
    pub fn hook_done(&self, name: &str) {
        if let Some(h) = self.hooks.lock().iter_mut().find(|(n, _)| n == name) {
            h.1 = true;
        }
    }

    /// readyz fails from now on.
    pub fn begin_shutdown(&self) {
        self.shutting_down.store(true, Ordering::Release);
    }

    /// The checks of an endpoint, in order, with their result.
    fn checks(&self, endpoint: &str, storage: &dyn Storage) -> Vec<(String, Result<(), String>)> {
        let mut out = vec![
            ("ping".to_string(), Ok(())),
            ("log".to_string(), Ok(())),
            ("storage".to_string(), storage.health()),
        ];
        if endpoint != "livez" {
            let added: Vec<(String, Arc<Check>)> = self.added.lock().clone();
            out.extend(added.into_iter().map(|(name, check)| (name, check())));
        }
        let in_grace = endpoint == "livez" && self.started.elapsed() < self.livez_grace;
        for (name, done) in self.hooks.lock().iter() {
            let result = if *done || in_grace {
                Ok(())
            } else {
                Err("not finished".to_string())
            };
            out.push((format!("poststarthook/{name}"), result));
        }
        if endpoint == "readyz" {
            let down = self.shutting_down.load(Ordering::Acquire);
            out.push((
                "shutdown".to_string(),
                if down {
                    Err("process is shutting down".to_string())
                } else {
                    Ok(())
                },
            ));
        }
        out
    }

    /// Answers a health request.
    pub fn respond(
        &self,
        endpoint: &str,
        check: Option<&str>,
        query: &Query,
        storage: &dyn Storage,
    ) -> Response<Body> {
        let checks = self.checks(endpoint, storage);
        if let Some(name) = check {
            return match checks.iter().find(|(n, _)| n == name) {
                Some((_, Ok(()))) => text(200, "ok"),
                Some((_, Err(e))) => text(500, &format!("internal server error: {e}\n")),
                None => text(404, "404 page not found\n"),
            };
        }
        let excluded: BTreeSet<&str> = query.all("exclude").iter().map(String::as_str).collect();
        let unknown: Vec<String> = excluded
            .iter()
            .filter(|e| !checks.iter().any(|(n, _)| n == *e))
            .map(|e| format!("{e:?}"))
            .collect();
        let failed = checks
            .iter()
            .any(|(n, r)| r.is_err() && !excluded.contains(n.as_str()));
        let verbose = query.has("verbose") || failed;
        let mut resp = if verbose {
            let mut body = String::new();
            for (name, result) in &checks {
                match (excluded.contains(name.as_str()), result) {
                    (true, _) => body.push_str(&format!("[+]{name} excluded: ok\n")),
                    (false, Ok(())) => body.push_str(&format!("[+]{name} ok\n")),
                    (false, Err(_)) => {
                        body.push_str(&format!("[-]{name} failed: reason withheld\n"))
                    }
                }
            }
            if !unknown.is_empty() {
                body.push_str(&format!(
                    "warn: some health checks cannot be excluded: no matches for {}\n",
                    unknown.join(",")
                ));
            }
            if failed {
                body.push_str(&format!("{endpoint} check failed\n"));
                text(500, &body)
            } else {
                body.push_str(&format!("{endpoint} check passed\n"));
                text(200, &body)
            }
        } else {
            text(200, "ok")
        };
        if endpoint == "healthz" {
            add_warnings(
                &mut resp,
                &["/healthz is deprecated; use /livez and /readyz".to_string()],
            );
        }
        resp
    }
}
