//! The full list of every Event in each response encoding the server may
//! offer — JSON, protobuf, CBOR, Table — by Accept header: bytes and time
//! per encoding, as served (a server without an encoding answers 406 or
//! falls back, and the line says which). Protobuf is held to JSON's time.

use std::time::{Duration, Instant};

use http::Method;
use http_body_util::BodyExt;

use super::{Ctx, count_name};
use crate::Result;
use crate::cairn::client::Conn;
use crate::proc::mib;
use crate::report::Target;
use crate::stats::{median, ms};

const ACCEPTS: [(&str, &str); 4] = [
    ("json", "application/json"),
    ("protobuf", "application/vnd.kubernetes.protobuf"),
    ("cbor", "application/cbor"),
    ("table", "application/json;as=Table;g=meta.k8s.io;v=v1"),
];

/// One list: status, Content-Type, bytes, time to the last byte.
struct Listed {
    status: u16,
    content_type: String,
    bytes: u64,
    elapsed: Duration,
}

async fn list_once(conn: &mut Conn, accept: &str) -> Result<Listed> {
    let start = Instant::now();
    let resp = conn
        .send_accepting(Method::GET, "/api/v1/events", accept, None)
        .await?;
    let status = resp.status().as_u16();
    let content_type = resp
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let mut body = resp.into_body();
    let mut bytes = 0u64;
    while let Some(frame) = body.frame().await {
        if let Ok(data) = frame?.into_data() {
            bytes += data.len() as u64;
        }
    }
    Ok(Listed {
        status,
        content_type,
        bytes,
        elapsed: start.elapsed(),
    })
}

pub async fn run(ctx: &mut Ctx) -> Result<()> {
    let n = count_name(ctx.sizes.events);
    let reps = ctx.sizes.list_reps;
    let mut conn = Conn::connect(ctx.cairn.addr).await?;
    let mut json_median = None;
    for (name, accept) in ACCEPTS {
        let figure = format!("list_{n}_{name}");
        eprintln!("-- {figure}");
        // The first list of an encoding may fill caches; it is shown apart.
        let first = list_once(&mut conn, accept).await?;
        let first_time = first.elapsed;
        let mut times = Vec::with_capacity(reps);
        let mut last = first;
        for _ in 0..reps {
            last = list_once(&mut conn, accept).await?;
            times.push(last.elapsed);
        }
        let med = median(&times);
        let line = format!(
            "{} (median of {reps}; first {}), {:.1} MiB, {} {}",
            ms(med),
            ms(first_time),
            mib(last.bytes),
            last.status,
            last.content_type,
        );
        let target = match name {
            "json" => {
                json_median = Some(med);
                None
            }
            "protobuf"
                if last
                    .content_type
                    .starts_with("application/vnd.kubernetes.protobuf") =>
            {
                json_median.map(|j| {
                    Target::at_most(med.as_secs_f64() / j.as_secs_f64(), 1.0, "x JSON's time")
                })
            }
            _ => None,
        };
        ctx.report.figure(&figure, &line, None, None, target);
    }
    Ok(())
}
