//! A list's `timeoutSeconds` bounds it: an authorization webhook holds
//! one user's reviews, so the list's work outlasts its time without any
//! timing in the test.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};

use cairn_tests::Server;
use serde_json::{Value, json};

use crate::CONFIGMAPS;

/// An authorization webhook allowing everyone, whose reviews for user
/// `slow` are held until `release`.
struct Gate {
    url: String,
    released: Arc<(Mutex<bool>, Condvar)>,
}

impl Gate {
    fn start() -> Gate {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!(
            "http://127.0.0.1:{}/authorize",
            listener.local_addr().expect("addr").port()
        );
        let released = Arc::new((Mutex::new(false), Condvar::new()));
        let shared = Arc::clone(&released);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let shared = Arc::clone(&shared);
                std::thread::spawn(move || review(stream, &shared));
            }
        });
        Gate { url, released }
    }

    fn release(&self) {
        let (lock, changed) = &*self.released;
        *lock.lock().expect("lock") = true;
        changed.notify_all();
    }
}

fn review(stream: TcpStream, released: &(Mutex<bool>, Condvar)) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut writer = stream;
    loop {
        let mut length = 0usize;
        let mut line = String::new();
        loop {
            line.clear();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if line == "\r\n" {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let asked: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        if asked["spec"]["user"] == "slow" {
            let (lock, changed) = released;
            let mut open = lock.lock().expect("lock");
            while !*open {
                open = changed.wait(open).expect("wait");
            }
        }
        let answer = json!({"apiVersion": asked["apiVersion"], "kind": "SubjectAccessReview",
            "status": {"allowed": true}})
        .to_string();
        let response = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{answer}",
            answer.len()
        );
        if writer.write_all(response.as_bytes()).is_err() {
            return;
        }
    }
}

/// A secure server authorizing through `gate` (never cached), with users
/// `slow` and `alice`.
fn gated_server(dir: &Path, gate: &Gate) -> Server {
    let tokens = dir.join("tokens.csv");
    std::fs::write(&tokens, "slow-token,slow,1\nalice-token,alice,2\n").expect("tokens");
    let kubeconfig = dir.join("gate.kubeconfig");
    let doc = json!({
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": "gate", "cluster": {"server": gate.url}}],
        "contexts": [{"name": "gate", "context": {"cluster": "gate"}}],
        "current-context": "gate"
    });
    std::fs::write(&kubeconfig, doc.to_string()).expect("kubeconfig");
    // The webhook's own timeout is far beyond the lists' timeoutSeconds: a
    // list not bounded by it would end 403 (failure policy), not 504.
    let config = json!({
        "apiVersion": "apiserver.config.k8s.io/v1",
        "kind": "AuthorizationConfiguration",
        "authorizers": [{
            "type": "Webhook", "name": "gate",
            "webhook": {
                "timeout": "30s", "authorizedTTL": "1ns", "unauthorizedTTL": "1ns",
                "cacheAuthorizedRequests": false, "cacheUnauthorizedRequests": false,
                "subjectAccessReviewVersion": "v1",
                "matchConditionSubjectAccessReviewVersion": "v1",
                "failurePolicy": "Deny",
                "connectionInfo": {"type": "KubeConfigFile",
                                   "kubeConfigFile": kubeconfig.to_str().expect("path")}
            }
        }]
    });
    let file = dir.join("authz.json");
    std::fs::write(&file, config.to_string()).expect("config");
    Server::start_secure(&[
        "--token-auth-file",
        tokens.to_str().expect("path"),
        "--authorization-config",
        file.to_str().expect("path"),
    ])
}

#[test]
fn a_list_is_bounded_by_its_timeout_seconds() {
    let gate = Gate::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let server = gated_server(dir.path(), &gate);
    let client = server.tls_client(None);
    let list = |token: &str, query: &str| {
        let bearer = format!("Bearer {token}");
        server.https(
            &client,
            "GET",
            &format!("{CONFIGMAPS}?{query}"),
            &[("Authorization", bearer.as_str())],
            None,
        )
    };
    assert_eq!(list("alice-token", "timeoutSeconds=1").status, 200);

    // The review of `slow` is held: the list's own time runs out first.
    let r = list("slow-token", "timeoutSeconds=1");
    assert_eq!(r.status, 504, "{}", r.text());
    let status = r.json();
    assert_eq!(status["kind"], "Status");
    assert_eq!(status["reason"], "Timeout");
    assert_eq!(status["code"], 504);
    assert_eq!(
        status["message"],
        "Timeout: request did not complete within the allotted timeout"
    );

    gate.release();
    assert_eq!(list("slow-token", "timeoutSeconds=30").status, 200);
    assert_eq!(list("slow-token", "timeoutSeconds=0").status, 200);
}
