//! A TCP forwarder standing in for the load balancer in front of several
//! API servers: every new connection goes to the current target port, and
//! the target can be switched (as a balancer drops a dead backend), so a
//! client that reconnects after its server died lands on another one.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicU16, Ordering};
use std::thread;

/// The forwarder; it lives as long as the test process.
pub struct Proxy {
    pub port: u16,
    target: Arc<AtomicU16>,
}

impl Proxy {
    /// Listens on a free loopback port and forwards to `target`.
    #[must_use]
    pub fn start(target: u16) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let target = Arc::new(AtomicU16::new(target));
        let current = Arc::clone(&target);
        thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let backend = current.load(Ordering::Relaxed);
                match TcpStream::connect(("127.0.0.1", backend)) {
                    Ok(server) => forward(client, server),
                    Err(_) => drop(client),
                }
            }
        });
        Proxy { port, target }
    }

    /// New connections go to `port` from now on.
    pub fn retarget(&self, port: u16) {
        self.target.store(port, Ordering::Relaxed);
    }

    #[must_use]
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

/// Copies both ways until either side ends, then ends both.
fn forward(client: TcpStream, server: TcpStream) {
    let (Ok(client_reader), Ok(server_reader)) = (client.try_clone(), server.try_clone()) else {
        return;
    };
    thread::spawn(move || pump(client_reader, server));
    thread::spawn(move || pump(server_reader, client));
}

fn pump(mut from: TcpStream, mut to: TcpStream) {
    let mut buf = [0u8; 16 * 1024];
    loop {
        match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if to.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
        }
    }
    let _ = to.shutdown(Shutdown::Both);
    let _ = from.shutdown(Shutdown::Both);
}
