//! An authorization webhook served by a test that allows everyone but holds
//! user `slow`'s reviews until released: a request of `slow` then stays
//! in the server (its in-flight place taken, its deadline running) for as
//! long as the test wants, with no timing in the test.

use std::io::{BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};

use serde_json::{Value, json};

/// An authorization webhook allowing everyone; reviews for user `slow`
/// wait until `release`.
pub struct Gate {
    pub url: String,
    /// (reviews of `slow` waiting, released)
    state: Arc<(Mutex<(usize, bool)>, Condvar)>,
}

impl Gate {
    #[must_use]
    pub fn start() -> Gate {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!(
            "http://127.0.0.1:{}/authorize",
            listener.local_addr().expect("addr").port()
        );
        let state = Arc::new((Mutex::new((0, false)), Condvar::new()));
        let shared = Arc::clone(&state);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let shared = Arc::clone(&shared);
                std::thread::spawn(move || answer(stream, &shared));
            }
        });
        Gate { url, state }
    }

    /// Waits until a review of `slow` is held.
    pub fn wait_held(&self) {
        let (lock, changed) = &*self.state;
        let mut s = lock.lock().expect("lock");
        while s.0 == 0 {
            s = changed.wait(s).expect("wait");
        }
    }

    pub fn release(&self) {
        let (lock, changed) = &*self.state;
        let mut s = lock.lock().expect("lock");
        s.1 = true;
        changed.notify_all();
    }

    /// A kubeconfig naming the webhook, written in `dir`; its path.
    #[must_use]
    pub fn kubeconfig(&self, dir: &Path) -> String {
        let path = dir.join("gate.kubeconfig");
        let doc = json!({
            "apiVersion": "v1", "kind": "Config",
            "clusters": [{"name": "gate", "cluster": {"server": self.url}}],
            "contexts": [{"name": "gate", "context": {"cluster": "gate"}}],
            "current-context": "gate"
        });
        std::fs::write(&path, doc.to_string()).expect("write kubeconfig");
        path.display().to_string()
    }
}

fn answer(stream: TcpStream, state: &(Mutex<(usize, bool)>, Condvar)) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut writer = stream;
    loop {
        let Some(body) = crate::http_request::read_body(&mut reader) else {
            return;
        };
        let review: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        if review["spec"]["user"] == "slow" {
            let (lock, changed) = state;
            let mut s = lock.lock().expect("lock");
            s.0 += 1;
            changed.notify_all();
            while !s.1 {
                s = changed.wait(s).expect("wait");
            }
        }
        let answer = json!({"apiVersion": review["apiVersion"], "kind": "SubjectAccessReview",
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
