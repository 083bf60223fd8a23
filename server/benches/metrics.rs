//! What recording a request's metrics costs: the front door's
//! `Measured::start` and `finish` for a create answered with a whole body
//! (count, latency histograms, in-flight gauge), and for a get (adds the
//! response-size histogram); the authentication attempt; the authorization
//! verdict and decision; and everything a create records, together (front
//! door, authentication, authorization, admission phases and plugin, the
//! storage latency, the in-flight limit's timing ratio). Budget: 2% of a create's server CPU (measured by cairn-bench:
//! ~45 µs on this machine kind, so ~900 ns).
//!
//! Run: `cargo bench -p cairn-apiserver --bench metrics`

use std::hint::black_box;
use std::time::Duration;

use cairn_apiserver::http::body::full;
use cairn_apiserver::http::instrument::{Measured, Reported};
use cairn_apiserver::metrics::admission::Step;
use cairn_apiserver::metrics::authz::{Decisions, Verdict};
use cairn_apiserver::metrics::timing_ratio::{READ_VS_WRITE_BOUNDS, TimingRatio};
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
                let reported = Reported {
                    verb: if code == StatusCode::CREATED {
                        "POST"
                    } else {
                        "GET"
                    },
                    dry_run: "",
                };
                let measured = Measured::start(info, target, reported);
                let mut resp = Response::new(full(body.clone()));
                *resp.status_mut() = code;
                black_box(measured.finish(resp))
            });
        });
    }
    group.bench_function("authentication", |b| {
        b.iter(|| {
            metrics::global()
                .authn
                .observe(Outcome::Success, 3_000, Some("system:admin"));
        });
    });
    let decisions = Decisions::new("RBAC", "rbac");
    group.bench_function("authorization", |b| {
        b.iter(|| {
            metrics::global().authz.observe(Verdict::Allowed, 2_000);
            decisions.record(true);
        });
    });
    let executing = TimingRatio::new(&READ_VS_WRITE_BOUNDS, 200.0);
    let target = create.resource.as_ref().expect("a resource request");
    group.bench_function("create_everything", |b| {
        b.iter(|| {
            metrics::global()
                .authn
                .observe(Outcome::Success, 3_000, Some("system:admin"));
            metrics::global().authz.observe(Verdict::Allowed, 2_000);
            decisions.record(true);
            executing.add(1);
            let admission = &metrics::global().admission;
            let admit = admission.phase(Step::Admit, "CREATE");
            admission.observe_step(admit, false, 1_000);
            let validate = admission.phase(Step::Validate, "CREATE");
            let plugin = admission.plugin("NamespaceLifecycle");
            admission.observe_controller(plugin, "NamespaceLifecycle", validate, false, 1_000);
            admission.observe_step(validate, false, 1_000);
            metrics::global().storage.observe(
                "create",
                b"/registry/configmaps/bench/c1",
                Duration::from_micros(1),
            );
            let reported = Reported {
                verb: "POST",
                dry_run: "",
            };
            let measured = Measured::start(&create, target, reported);
            let mut resp = Response::new(full(body.clone()));
            *resp.status_mut() = StatusCode::CREATED;
            let answered = black_box(measured.finish(resp));
            executing.add(-1);
            answered
        });
    });
    group.finish();
}

criterion_group!(benches, record);
criterion_main!(benches);
