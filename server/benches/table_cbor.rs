//! A list of 100k core Events encoded as JSON, CBOR and a Table (with the
//! default `includeObject=Metadata`, built from stored JSON as the server
//! does): time per encoding, and the bytes each writes (printed once).

use std::hint::black_box;

use cairn_apiserver::api::kinds::builtin;
use cairn_apiserver::api::table::{IncludeObject, TableBuilder, TableOptions};
use cairn_apiserver::config::{Config, Flags};
use cairn_apiserver::http::cbor;
use clap::Parser;
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Map, Value, json};

// The server's allocator, so allocation-heavy encodings cost what they do there.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const EVENTS: usize = 100_000;

fn events() -> Vec<Value> {
    (0..EVENTS)
        .map(|i| {
            json!({
                "kind": "Event", "apiVersion": "v1",
                "metadata": {"name": format!("web-{i}.17c3a1b2"), "namespace": "default",
                    "uid": format!("5f0c6a2e-0000-4000-8000-{i:012}"),
                    "resourceVersion": (1000 + i).to_string(),
                    "creationTimestamp": "2024-05-01T10:00:00Z"},
                "involvedObject": {"kind": "Pod", "namespace": "default", "name": format!("web-{i}"),
                    "uid": "u-1", "apiVersion": "v1", "resourceVersion": "42",
                    "fieldPath": "spec.containers{app}"},
                "reason": "Pulled",
                "message": "Successfully pulled image \"nginx:1.27\" in 1.2s",
                "source": {"component": "kubelet", "host": "node-1"},
                "firstTimestamp": "2024-05-01T10:00:00Z",
                "lastTimestamp": "2024-05-01T10:00:00Z",
                "count": 1, "type": "Normal",
                "reportingComponent": "kubelet", "reportingInstance": "node-1"
            })
        })
        .collect()
}

fn encodings(c: &mut Criterion) {
    let config = Config::from(Flags::parse_from([
        "cairn-apiserver",
        "--api-domain",
        "k8s.io",
    ]));
    let registry = builtin(&config);
    let kind = registry.lookup("", "v1", "events").expect("events");
    let items = events();
    let list = json!({"kind": "EventList", "apiVersion": "v1",
        "metadata": {"resourceVersion": "200000"}, "items": items.clone()});
    let options = TableOptions {
        api_version: "meta.k8s.io/v1".into(),
        include: IncludeObject::Metadata,
    };
    // As the server builds a list's Table: from each object's stored JSON.
    let stored: Vec<Vec<u8>> = items
        .iter()
        .map(|e| serde_json::to_vec(e).expect("json"))
        .collect();
    let table = || {
        let builder = TableBuilder::new(&kind, options.clone());
        let mut out = Vec::new();
        builder
            .write_json(
                stored.iter().map(|b| serde_json::from_slice::<Value>(b)),
                Map::new(),
                &mut out,
            )
            .expect("json");
        out
    };
    eprintln!(
        "100k Events: JSON {} bytes, CBOR {} bytes, Table {} bytes",
        serde_json::to_vec(&list).expect("json").len(),
        cbor::encode(&list).len(),
        table().len()
    );
    let mut g = c.benchmark_group("list_100k_events");
    g.sample_size(10);
    g.bench_function("json", |b| {
        b.iter(|| serde_json::to_vec(black_box(&list)).expect("json"));
    });
    g.bench_function("cbor", |b| b.iter(|| cbor::encode(black_box(&list))));
    g.bench_function("table", |b| b.iter(|| black_box(table())));
    g.finish();
}

criterion_group!(benches, encodings);
criterion_main!(benches);
