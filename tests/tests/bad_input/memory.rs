//! The peak memory one large request costs the server: its peak resident
//! set (`VmHWM`, reset through `/proc/<pid>/clear_refs` before each request)
//! minus its resident set before. Each request is within the body-size
//! limit; none may raise the peak by more than 128 MiB. Each runs on a
//! fresh server.

use cairn_tests::Server;

use super::fixtures::{self, CM, CMS, WIDGETS};

const LIMIT_KIB: u64 = 128 * 1024;

fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("{field} in /proc/{pid}/status"))
}

/// The peak rise in KiB of one request, or `None` where the kernel does not
/// let the peak be reset.
fn peak_rise(s: &Server, method: &str, path: &str, ct: &str, body: &[u8]) -> Option<(u16, u64)> {
    let pid = s.pid().expect("running");
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").ok()?;
    let before = status_kib(pid, "VmRSS:");
    let r = s.request(method, path, &[("Content-Type", ct)], Some(body));
    let peak = status_kib(pid, "VmHWM:");
    Some((r.status, peak.saturating_sub(before)))
}

/// The large requests of the bad-input campaign.
fn requests() -> Vec<(&'static str, &'static str, String, &'static str, Vec<u8>)> {
    let zeros = vec!["0"; 1_000_000].join(",");
    let array = format!(
        r#"{{"apiVersion":"example.com/v1","kind":"Widget","metadata":{{"name":"arr"}},"spec":{{"free":{{"a":[{zeros}]}}}}}}"#
    );
    let unknown_array = format!(
        r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"arr"}},"junk":[{zeros}]}}"#
    );
    let keys: Vec<String> = (0..100_000).map(|i| format!("\"k{i}\":\"\"")).collect();
    let wide = format!(
        r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"wide"}},"data":{{{}}}}}"#,
        keys.join(",")
    );
    let mut ops = vec![r#"{"op":"add","path":"/metadata/annotations","value":{"k":[["0123456789abcdef0123456789abcdef"]]}}"#.to_string()];
    ops.extend((0..40).map(|_| {
        r#"{"op":"copy","from":"/metadata/annotations/k","path":"/metadata/annotations/k/-"}"#
            .to_string()
    }));
    vec![
        (
            "1M-element array in a custom resource",
            "POST",
            WIDGETS.into(),
            "application/json",
            array.into_bytes(),
        ),
        (
            "1M-element unknown array in a ConfigMap",
            "POST",
            CMS.into(),
            "application/json",
            unknown_array.into_bytes(),
        ),
        (
            "100k-key ConfigMap",
            "POST",
            CMS.into(),
            "application/json",
            wide.into_bytes(),
        ),
        (
            "JSON-patch copy bomb",
            "PATCH",
            CM.into(),
            "application/json-patch+json",
            format!("[{}]", ops.join(",")).into_bytes(),
        ),
    ]
}

#[test]
fn one_large_request_raises_peak_memory_by_at_most_128_mib() {
    let mut report = Vec::new();
    let mut over = Vec::new();
    for (what, method, path, ct, body) in requests() {
        assert!(
            body.len() <= 3 * 1024 * 1024,
            "{what} is over the body limit"
        );
        // A fresh server each time: memory an earlier request left resident
        // would hide this one's rise.
        let s = fixtures::server();
        let Some((status, rise)) = peak_rise(&s, method, &path, ct, &body) else {
            eprintln!("peak RSS cannot be reset here (/proc/<pid>/clear_refs); skipping");
            return;
        };
        assert!(status < 500, "{what}: {status}");
        assert_eq!(s.get("/readyz").status, 200);
        report.push(format!(
            "{what}: {} KiB body, status {status}, peak rise {} MiB",
            body.len() / 1024,
            rise / 1024
        ));
        if rise > LIMIT_KIB {
            over.push(what);
        }
    }
    eprintln!("{}", report.join("\n"));
    assert!(
        over.is_empty(),
        "over 128 MiB: {over:?}\n{}",
        report.join("\n")
    );
}
