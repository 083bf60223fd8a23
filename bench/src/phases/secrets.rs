//! Encryption at rest's cost: the same Secret creates (64 in flight) and
//! full Secret lists on a fresh server storing Secrets as they are and on
//! one encrypting them with aesgcm (a 32-byte key), both running, taking
//! turns in rounds so that drift on a shared machine hits both alike.
//! Figures: server CPU per create (target: aesgcm ≤ 1.15× identity) and the
//! list's median time (target: aesgcm ≤ 2× identity).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Method, StatusCode};

use crate::Result;
use crate::cairn::client::Conn;
use crate::cairn::{Endpoint, Server};
use crate::cli::Args;
use crate::proc::CpuSpan;
use crate::report::{Report, Target};
use crate::stats::{median, ms};

const IN_FLIGHT: usize = 64;
const ROUNDS: u64 = 4;
const LIST_REPEATS: usize = 3;
const SECRETS: &str = "/api/v1/namespaces/default/secrets";

/// One case's figures.
struct Measured {
    cpu_per_create: Duration,
    creates_per_sec: f64,
    list: Duration,
}

/// The configuration file of the aesgcm case (a fixed bench key).
fn aesgcm_config(args: &Args) -> Result<String> {
    let path = args.work_dir.join("cairn-bench-encryption.yaml");
    std::fs::create_dir_all(&args.work_dir)?;
    std::fs::write(
        &path,
        "apiVersion: apiserver.config.svc.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: [secrets]\n    providers:\n      - aesgcm:\n          keys:\n            - name: bench\n              secret: Y2Fpcm4tYmVuY2gtYWVzZ2NtLWtleS0zMi1ieXRlcyE=\n",
    )?;
    Ok(path.display().to_string())
}

fn body(i: u64) -> Bytes {
    // About the size of a service-account token Secret.
    let token = format!("{i:0>24}").repeat(40);
    Bytes::from(format!(
        r#"{{"apiVersion":"v1","kind":"Secret","metadata":{{"name":"bench-{i}","labels":{{"app":"bench"}}}},"type":"Opaque","stringData":{{"token":"{token}"}}}}"#
    ))
}

/// Creates Secrets `range` (64 in flight); elapsed and server CPU time.
async fn creates(server: &Server, range: std::ops::Range<u64>) -> Result<(Duration, Duration)> {
    let count = range.end;
    let next = Arc::new(AtomicU64::new(range.start));
    let endpoint = Endpoint::plain(server.addr);
    let cpu = CpuSpan::start(Some(server.pid));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..IN_FLIGHT {
        let mut conn = Conn::open(&endpoint).await?;
        let next = Arc::clone(&next);
        tasks.push(tokio::spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= count {
                    return Ok::<(), String>(());
                }
                let (status, resp) = conn
                    .call(Method::POST, SECRETS, Some(body(i)))
                    .await
                    .map_err(|e| e.to_string())?;
                if status != StatusCode::CREATED {
                    return Err(format!(
                        "create Secret: {status} {}",
                        String::from_utf8_lossy(&resp[..resp.len().min(200)])
                    ));
                }
            }
        }));
    }
    for t in tasks {
        t.await.map_err(|e| e.to_string())??;
    }
    let elapsed = started.elapsed();
    let (server_cpu, _) = cpu.used();
    Ok((
        elapsed,
        server_cpu.ok_or("the server's CPU time is unknown")?,
    ))
}

async fn lists(server: &Server, count: u64, times: &mut Vec<Duration>) -> Result<()> {
    let mut conn = Conn::open(&Endpoint::plain(server.addr)).await?;
    for _ in 0..LIST_REPEATS {
        let started = Instant::now();
        let (status, resp) = conn.call(Method::GET, SECRETS, None).await?;
        times.push(started.elapsed());
        if status != StatusCode::OK {
            return Err(format!("list Secrets: {status}").into());
        }
        let needle = br#""name":"bench-"#;
        let items = resp.windows(needle.len()).filter(|w| w == needle).count();
        if items as u64 != count {
            return Err(format!("listed {items} Secrets, expected {count}").into());
        }
    }
    Ok(())
}

/// Both cases' figures, identity first.
async fn measure(identity: &Server, aesgcm: &Server, count: u64) -> Result<[Measured; 2]> {
    let servers = [identity, aesgcm];
    let mut totals = [(Duration::ZERO, Duration::ZERO); 2];
    let per_round = count.div_ceil(ROUNDS);
    for round in 0..ROUNDS {
        let range = (round * per_round).min(count)..((round + 1) * per_round).min(count);
        for (server, total) in servers.iter().zip(&mut totals) {
            let (elapsed, cpu) = creates(server, range.clone()).await?;
            total.0 += elapsed;
            total.1 += cpu;
        }
    }
    let mut times = [Vec::new(), Vec::new()];
    for _ in 0..ROUNDS {
        for (server, t) in servers.iter().zip(&mut times) {
            lists(server, count, t).await?;
        }
    }
    let n = u32::try_from(count).unwrap_or(u32::MAX);
    Ok([0, 1].map(|i| Measured {
        cpu_per_create: totals[i].1 / n,
        creates_per_sec: count as f64 / totals[i].0.as_secs_f64(),
        list: median(&times[i]),
    }))
}

fn line(m: &Measured) -> String {
    format!(
        "{:.0} µs server CPU per create, {:.0} creates/s; list {}",
        m.cpu_per_create.as_secs_f64() * 1e6,
        m.creates_per_sec,
        ms(m.list)
    )
}

/// Runs both cases; the report's summary.
pub async fn run(args: &Args) -> Result<String> {
    let count = args
        .secrets
        .unwrap_or(if args.quick { 1_000 } else { 10_000 });
    eprintln!(
        "-- secrets: {count} Secret creates ({IN_FLIGHT} in flight) and lists, identity then aesgcm"
    );
    let bin = args
        .server_bin
        .as_ref()
        .ok_or("--secrets-only needs --server-bin")?;
    let plain = Server::start_with(bin, &args.work_dir, &[]).await?;
    let config = aesgcm_config(args)?;
    let encrypting = Server::start_with(
        bin,
        &args.work_dir,
        &["--encryption-provider-config".into(), config],
    )
    .await?;
    let [identity, aesgcm] = measure(&plain, &encrypting, count).await?;
    let mut report = Report::default();
    report.figure("secrets_identity", &line(&identity), None, None, None);
    let cpu_ratio =
        aesgcm.cpu_per_create.as_secs_f64() / identity.cpu_per_create.as_secs_f64().max(1e-9);
    report.figure(
        "secrets_aesgcm_create_cpu",
        &line(&aesgcm),
        None,
        Some(cpu_ratio),
        Some(Target::at_most(cpu_ratio, 1.15, "x identity")),
    );
    let list_ratio = aesgcm.list.as_secs_f64() / identity.list.as_secs_f64().max(1e-9);
    report.figure(
        "secrets_aesgcm_list",
        &format!("list {} vs identity {}", ms(aesgcm.list), ms(identity.list)),
        None,
        Some(list_ratio),
        Some(Target::at_most(list_ratio, 2.0, "x identity")),
    );
    Ok(report.summary())
}
