//! What recording a request's metrics costs: the front door's
//! `Measured::start` and `finish` for a create answered with a whole body
//! (count, latency histograms, in-flight gauge), and for a get (adds the
//! response-size histogram); plus the authentication attempt. Budget: 2% of
//! a create's ~40 µs of server CPU, i.e. 800 ns.
//!
//! Run: `cargo bench -p cairn-apiserver --bench metrics`

use std::hint::black_box;
use std::time::Duration;

use cairn_apiserver::http::body::full;
use cairn_apiserver::http::instrument::Measured;
use cairn_apiserver::metrics::{self, auth::Outcome};
use cairn_apiserver::request::info::RequestInfo;
use criterion::{Criterion, criterion_group, criterion_main};
use http::{Method, Response, StatusCode};

fn record(c: &mut Criterion) {
    let create = RequestInfo::new(
        &Method::POST,
        "/api/v1/namespaces/bench/configmaps".into(),
        None,
        None,
    );
    let get = RequestInfo::new(
        &Method::GET,
        "/api/v1/namespaces/bench/configmaps/c1".into(),
        None,
        None,
    );
    let body = bytes::Bytes::from(vec![b'x'; 600]);
    let mut group = c.benchmark_group("metrics");
    for (name, info, code) in [
        ("create", &create, StatusCode::CREATED),
        ("get", &get, StatusCode::OK),
    ] {
        let target = info.resource.as_ref().expect("a resource request");
        group.bench_function(name, |b| {
            b.iter(|| {
                let measured = Measured::start(info, target, Some("application/json"), "");
                let mut resp = Response::new(full(body.clone()));
                *resp.status_mut() = code;
                black_box(measured.finish(resp))
            });
        });
    }
    group.bench_function("authentication", |b| {
        b.iter(|| {
            metrics::global().authn.observe(
                Outcome::Success,
                Duration::from_micros(3),
                Some("system:admin"),
            );
        });
    });
    group.finish();
}

criterion_group!(benches, record);
criterion_main!(benches);
