//! A small HTTP/1.1 server on loopback (plain or TLS) that records every
//! request it is sent and answers with what a test's function decides:
//! the far end of proxied and aggregated requests.

use std::io::{BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;

use parking_lot::Mutex;

pub use crate::http_request::Seen;
use crate::http_request::read_request;

/// An answer: status, content type, body. A redirect (3xx) is sent with
/// its body as the `Location` and no body; every answer allows any CORS
/// origin, as a permissive web backend does.
pub type Answer = (u16, &'static str, Vec<u8>);

/// A running server.
pub struct EchoServer {
    pub port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl EchoServer {
    /// Serves plain HTTP (`tls` `None`) or TLS on 127.0.0.1, answering with
    /// `answer`.
    #[must_use]
    pub fn start(
        tls: Option<Arc<rustls::ServerConfig>>,
        answer: fn(&Seen) -> Answer,
    ) -> EchoServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (log, tls) = (Arc::clone(&log), tls.clone());
                std::thread::spawn(move || match tls {
                    None => serve(stream, answer, &log),
                    Some(config) => {
                        let Ok(conn) = rustls::ServerConnection::new(config) else {
                            return;
                        };
                        serve(rustls::StreamOwned::new(conn, stream), answer, &log);
                    }
                });
            }
        });
        EchoServer { port, seen }
    }

    /// Every request so far.
    #[must_use]
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().clone()
    }

    /// The requests so far whose target starts with `prefix`.
    #[must_use]
    pub fn seen_at(&self, prefix: &str) -> Vec<Seen> {
        self.seen()
            .into_iter()
            .filter(|s| s.target.starts_with(prefix))
            .collect()
    }
}

/// An answer echoing the request as JSON: method, target, body; or, for
/// a target under `/redirect`, a redirect to the rest of its path.
#[must_use]
pub fn echo(seen: &Seen) -> Answer {
    if let Some(to) = seen.target.strip_prefix("/redirect") {
        return (302, "text/plain", to.as_bytes().to_vec());
    }
    let doc = serde_json::json!({
        "method": seen.method,
        "target": seen.target,
        "body": String::from_utf8_lossy(&seen.body),
    });
    (200, "application/json", doc.to_string().into_bytes())
}

fn serve<S: Read + Write>(stream: S, answer: fn(&Seen) -> Answer, log: &Mutex<Vec<Seen>>) {
    let mut reader = BufReader::new(stream);
    while let Some(seen) = read_request(&mut reader) {
        log.lock().push(seen.clone());
        let (status, content_type, mut body) = answer(&seen);
        let mut extra = String::from("Access-Control-Allow-Origin: *\r\n");
        if (300..400).contains(&status) {
            extra += &format!("Location: {}\r\n", String::from_utf8_lossy(&body));
            body.clear();
        }
        let head = format!(
            "HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\n{extra}Content-Length: {}\r\n\r\n",
            body.len()
        );
        let out = reader.get_mut();
        if out.write_all(head.as_bytes()).is_err() || out.write_all(&body).is_err() {
            return;
        }
        let _ = out.flush();
    }
}

/// Whether something listens on `port` of 127.0.0.1 (a closed port makes
/// an unreachable target).
#[must_use]
pub fn listening(port: u16) -> bool {
    TcpStream::connect(("127.0.0.1", port)).is_ok()
}
