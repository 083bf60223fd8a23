//! A stalled fsync: the engine's `commit:before-sync:stall-while=PATH`
//! failpoint holds every commit's sync while the file exists.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;

use cairn_tests::{binary, client, free_port, wait_until};

use crate::{CONFIG_MAPS, config_map};

/// The server with the stall point armed on `stall_file`.
struct Stallable {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl Stallable {
    fn start(data_dir: &Path, stall_file: &Path) -> Stallable {
        let port = free_port();
        let log = data_dir.with_extension(format!("{port}.log"));
        let child = Command::new(binary())
            .arg("--data-dir")
            .arg(data_dir)
            .args(["--insecure-port", &port.to_string(), "--secure-port", "0"])
            .env(
                "CAIRN_FAILPOINT",
                format!("commit:before-sync:stall-while={}", stall_file.display()),
            )
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("log"))
            .spawn()
            .expect("start cairn-apiserver");
        let server = Stallable { child, port, log };
        wait_until("the server is ready", || {
            // The port is this child's only once it says it listens.
            server.log_text().contains("serving plain HTTP")
                && client::request(port, "GET", "/readyz", &[], None).is_ok_and(|r| r.status == 200)
        });
        server
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn get(&self, path: &str) -> client::Response {
        client::request(self.port, "GET", path, &[], None).expect("GET")
    }
}

impl Drop for Stallable {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn post(port: u16, name: &str) -> client::Response {
    let body = serde_json::to_vec(&config_map(name, 64)).expect("json");
    client::request(
        port,
        "POST",
        CONFIG_MAPS,
        &[("Content-Type", "application/json")],
        Some(&body),
    )
    .expect("POST")
}

#[test]
fn a_stalled_fsync_delays_the_answer_and_loses_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data_dir = dir.path().join("data");
    let stall_file = dir.path().join("stall");
    let server = Stallable::start(&data_dir, &stall_file);
    let before = post(server.port, "before");
    assert_eq!(before.status, 201, "{}", before.text());

    std::fs::write(&stall_file, b"").expect("stall the syncs");
    let (tx, rx) = mpsc::channel();
    let port = server.port;
    let writer = std::thread::spawn(move || tx.send(post(port, "stalled")).expect("send"));
    wait_until("a commit reaches the stalled sync", || {
        server
            .log_text()
            .contains("failpoint commit:before-sync: stalled")
    });
    // While the sync hangs the write is neither answered nor visible.
    let early = server.get(&format!("{CONFIG_MAPS}/stalled"));
    assert_eq!(
        early.status,
        404,
        "visible before its sync: {}",
        early.text()
    );
    assert!(
        rx.try_recv().is_err(),
        "the write was acknowledged before its sync ended"
    );

    std::fs::remove_file(&stall_file).expect("end the stall");
    writer.join().expect("writer");
    let answer = rx.recv().expect("answer");
    assert_eq!(answer.status, 201, "{}", answer.text());
    let rv = answer.json()["metadata"]["resourceVersion"].clone();
    let got = server.get(&format!("{CONFIG_MAPS}/stalled"));
    assert_eq!(got.status, 200);
    assert_eq!(got.json()["metadata"]["resourceVersion"], rv);

    // Acknowledged means durable: a kill -9 right after loses nothing.
    drop(server);
    let server = Stallable::start(&data_dir, &stall_file);
    let got = server.get(&format!("{CONFIG_MAPS}/stalled"));
    assert_eq!(got.status, 200, "lost after a crash: {}", got.text());
    assert_eq!(got.json()["metadata"]["resourceVersion"], rv);
}
