//! Server-side apply against an update of the same object: 1,000 map-list
//! items, managedFields from 3 managers. Both paths are measured the same
//! way, as the store runs them: read the entries from the live object,
//! compute the new object and entries, write the entries back.
//!
//! Run: `cargo bench -p cairn-apiserver --bench apply`

use std::hint::black_box;

use cairn_apiserver::api::managed::{self, Managed, Scope, Writer};
use cairn_apiserver::api::schema::Schema;
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};

const ITEMS: usize = 1_000;

fn schema() -> Schema {
    let item = Schema::object([
        ("name", Schema::string()),
        ("image", Schema::string()),
        ("port", Schema::integer()),
    ]);
    Schema::resource([(
        "spec",
        Schema::object([
            ("replicas", Schema::integer()),
            ("items", Schema::array(item).map_list(["name"])),
        ]),
    )])
}

fn item(i: usize, image: &str) -> Value {
    json!({"name": format!("item-{i:04}"), "image": image, "port": 8000 + i})
}

fn object(items: Vec<Value>) -> Value {
    json!({"apiVersion": "test/v1", "kind": "Thing", "metadata": {"name": "t", "namespace": "ns"},
           "spec": {"items": items}})
}

fn writer(manager: &str) -> Writer<'_> {
    Writer {
        manager,
        api_version: "test/v1",
        subresource: "",
        time: "2024-05-01T10:00:00Z",
    }
}

/// The live object: `a` applied the first half of the items, `b` the
/// second half, `c` updated `replicas`.
fn live(schema: &Schema) -> Value {
    let scope = Scope::default();
    let mut managed = Managed::default();
    let first = object((0..ITEMS / 2).map(|i| item(i, "v1")).collect());
    let mut obj = managed::apply(
        schema,
        None,
        &first,
        &mut managed,
        &writer("a"),
        false,
        scope,
    )
    .expect("first apply");
    let second = object((ITEMS / 2..ITEMS).map(|i| item(i, "v1")).collect());
    obj = managed::apply(
        schema,
        Some(&obj),
        &second,
        &mut managed,
        &writer("b"),
        false,
        scope,
    )
    .expect("second apply");
    let mut updated = obj.clone();
    updated["spec"]["replicas"] = json!(5);
    let changes = managed::diff(schema, &obj, &updated, scope);
    managed::record_update(&mut managed, changes, &writer("c"));
    updated["metadata"]["managedFields"] = managed.encode();
    assert_eq!(managed.entries.len(), 3);
    updated
}

fn bench(c: &mut Criterion) {
    let schema = schema();
    let scope = Scope::default();
    let live = live(&schema);
    // `a` re-applies its half with a new image everywhere.
    let config = object((0..ITEMS / 2).map(|i| item(i, "v2")).collect());
    // The same change as an update: the whole object with those images.
    let mut updated = live.clone();
    for i in 0..ITEMS / 2 {
        updated["spec"]["items"][i]["image"] = json!("v2");
    }

    let mut group = c.benchmark_group("managed_fields_1000_items_3_managers");
    group.bench_function("apply", |b| {
        b.iter(|| {
            let mut managed =
                Managed::decode(live.pointer("/metadata/managedFields")).expect("entries");
            let mut out = managed::apply(
                &schema,
                Some(black_box(&live)),
                black_box(&config),
                &mut managed,
                &writer("a"),
                false,
                scope,
            )
            .expect("no conflicts");
            out["metadata"]["managedFields"] = managed.encode();
            out
        });
    });
    group.bench_function("update", |b| {
        b.iter(|| {
            let mut new = black_box(&updated).clone();
            let mut managed =
                Managed::decode(live.pointer("/metadata/managedFields")).expect("entries");
            let changes = managed::diff(&schema, black_box(&live), &new, scope);
            managed::record_update(&mut managed, changes, &writer("u"));
            new["metadata"]["managedFields"] = managed.encode();
            new
        });
    });
    group.finish();

    // The hot create path: what recording the creator's fields costs for an
    // Event-sized object.
    let event_schema = Schema::resource([
        ("reason", Schema::string()),
        ("message", Schema::string()),
        ("type", Schema::string()),
        ("count", Schema::integer()),
        (
            "involvedObject",
            Schema::object([
                ("kind", Schema::string()),
                ("name", Schema::string()),
                ("namespace", Schema::string()),
            ]),
        ),
        ("source", Schema::object([("component", Schema::string())])),
    ]);
    let event = json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "e", "namespace": "default", "labels": {"app": "web"}},
        "reason": "Started", "message": "started container", "type": "Normal", "count": 1,
        "involvedObject": {"kind": "Pod", "name": "web", "namespace": "default"},
        "source": {"component": "kubelet"}});
    c.bench_function("managed_fields_on_create_event", |b| {
        b.iter(|| {
            let mut managed = Managed::default();
            let changes = managed::Diff {
                added: managed::created(&event_schema, black_box(&event), scope),
                ..managed::Diff::default()
            };
            managed::record_update(&mut managed, changes, &writer("creator"));
            managed.encode()
        });
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
