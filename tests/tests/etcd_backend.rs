//! cairn-apiserver on a real etcd (`--etcd-servers`): objects are etcd keys
//! under `/registry`, resourceVersions are etcd revisions, conflicts are
//! 409s, reads that may be a moment behind come from the watch cache, and
//! an etcd that goes away fails readiness and mutations with a Status
//! (never a hang) until it returns.

use cairn_tests::etcd::Etcd;
use cairn_tests::selection::rv;
use cairn_tests::{Server, wait_until};
use serde_json::{Value, json};

const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";

fn configmap(name: &str, value: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": value}})
}

#[test]
fn objects_are_etcd_keys_and_resource_versions_are_revisions() {
    let etcd = Etcd::start();
    let s = Server::start(&["--etcd-servers", &etcd.url()]);
    let created = s.post(CONFIGMAPS, &configmap("one", "a"));
    assert_eq!(created.status, 201, "{}", created.text());
    let created = created.json();
    let (_, stored) = etcd.get("/registry/configmaps/default/one");
    assert_eq!(
        stored,
        Some(rv(&created)),
        "the resourceVersion is the key's mod_revision"
    );

    let mut watch = s.watch(&format!(
        "{CONFIGMAPS}?watch=true&resourceVersion={}",
        rv(&created)
    ));
    let got = s.get(&format!("{CONFIGMAPS}/one")).json();
    assert_eq!(
        (got["data"]["k"].clone(), rv(&got)),
        (json!("a"), rv(&created))
    );

    let mut update = created.clone();
    update["data"]["k"] = json!("b");
    let updated = s.put(&format!("{CONFIGMAPS}/one"), &update);
    assert_eq!(updated.status, 200, "{}", updated.text());
    let updated = updated.json();
    assert_eq!(
        etcd.get("/registry/configmaps/default/one").1,
        Some(rv(&updated))
    );
    assert!(rv(&updated) > rv(&created));

    let stale = s.put(&format!("{CONFIGMAPS}/one"), &update);
    assert_eq!(
        stale.status, 409,
        "an update at an old resourceVersion conflicts"
    );
    assert_eq!(stale.json()["reason"], json!("Conflict"));
    assert_eq!(s.post(CONFIGMAPS, &configmap("one", "x")).status, 409);

    assert_eq!(s.post(CONFIGMAPS, &configmap("two", "c")).status, 201);
    let list = s.get(CONFIGMAPS).json();
    let names: Vec<&str> = list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["metadata"]["name"].as_str().expect("name"))
        .collect();
    assert!(
        names.contains(&"one") && names.contains(&"two"),
        "{names:?}"
    );
    let (etcd_revision, _) = etcd.get("/registry/configmaps/default/two");
    assert_eq!(
        rv(&list),
        etcd_revision,
        "a list is served at etcd's current revision"
    );

    assert_eq!(s.delete(&format!("{CONFIGMAPS}/one")).status, 200);
    assert_eq!(etcd.get("/registry/configmaps/default/one").1, None);
    let seen: Vec<(String, String)> = (0..3)
        .map(|_| {
            let e = watch.next_event().expect("event");
            (
                e["type"].as_str().expect("type").to_string(),
                e["object"]["metadata"]["name"]
                    .as_str()
                    .expect("name")
                    .to_string(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [("MODIFIED", "one"), ("ADDED", "two"), ("DELETED", "one")]
            .map(|(t, n)| (t.to_string(), n.to_string()))
    );
}

/// What admission reads for a Pod create (its ServiceAccount, its
/// namespace's LimitRanges: kube reads them from listers) and reads with
/// `resourceVersion=0` come from the watch cache: the only Range a Pod
/// create sends etcd is ResourceQuota's (a consistent read of the quotas).
#[test]
fn admission_reads_and_any_revision_reads_come_from_the_cache() {
    let etcd = Etcd::start();
    let s = Server::start(&["--etcd-servers", &etcd.url(), "--leader-elect=false"]);
    const PODS: &str = "/api/v1/namespaces/default/pods";
    let account = "/api/v1/namespaces/default/serviceaccounts/default";
    wait_until("the default ServiceAccount", || {
        s.get(account).status == 200
    });
    let range = json!({"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "cpu"},
        "spec": {"limits": [{"type": "Container", "default": {"cpu": "300m"}}]}});
    let made = s.post("/api/v1/namespaces/default/limitranges", &range);
    assert_eq!(made.status, 201, "{}", made.text());
    let pod = |name: &str| {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "app", "image": "busybox"}]}})
    };
    let create = |name: &str| {
        let r = s.post(PODS, &pod(name));
        assert_eq!(r.status, 201, "{}", r.text());
        let pod = r.json();
        assert_eq!(pod["spec"]["serviceAccountName"], json!("default"));
        assert_eq!(
            pod["spec"]["containers"][0]["resources"]["limits"]["cpu"],
            json!("300m"),
            "the LimitRange's default"
        );
        pod
    };
    create("warm");
    let before = etcd.ranges();
    for i in 0..5 {
        create(&format!("p{i}"));
    }
    let list = s.get(&format!("{PODS}?resourceVersion=0"));
    assert_eq!(list.status, 200);
    assert_eq!(list.json()["items"].as_array().map(Vec::len), Some(6));
    assert_eq!(s.get(&format!("{PODS}/p0?resourceVersion=0")).status, 200);
    assert_eq!(
        etcd.ranges() - before,
        5.0,
        "one Range per create (ResourceQuota's), none for the reads"
    );
    // A consistent list asks etcd for its revision.
    assert_eq!(s.get(PODS).status, 200);
    assert_eq!(etcd.ranges() - before, 6.0);
}

#[test]
fn losing_etcd_fails_readiness_and_writes_until_it_returns() {
    let mut etcd = Etcd::start();
    let s = Server::start(&["--etcd-servers", &etcd.url()]);
    let ready = s.get("/readyz?verbose");
    assert_eq!(ready.status, 200);
    assert!(ready.text().contains("[+]etcd ok"), "{}", ready.text());

    etcd.kill();
    wait_until("readyz to fail", || s.get("/readyz").status != 200);
    let verbose = s.get("/readyz?verbose").text();
    assert!(verbose.contains("[-]etcd failed"), "{verbose}");
    let refused = s.post(CONFIGMAPS, &configmap("down", "a"));
    assert!(
        matches!(refused.status, 503 | 504),
        "{} {}",
        refused.status,
        refused.text()
    );
    let status = refused.json();
    assert_eq!(status["kind"], json!("Status"));
    assert_eq!(status["code"], json!(refused.status));

    etcd.resume();
    wait_until("readyz to recover", || s.get("/readyz").status == 200);
    assert_eq!(s.post(CONFIGMAPS, &configmap("back", "a")).status, 201);
}

#[test]
fn bad_etcd_flags_stop_the_start_with_one_line() {
    for (args, flag) in [
        (vec!["--etcd-servers", "127.0.0.1:2379"], "--etcd-servers"),
        (
            vec![
                "--etcd-servers",
                "http://127.0.0.1:2379",
                "--etcd-prefix",
                "registry",
            ],
            "--etcd-prefix",
        ),
        (
            vec![
                "--etcd-servers",
                "https://127.0.0.1:2379",
                "--etcd-cafile",
                "/nonexistent/ca.pem",
            ],
            "--etcd-cafile",
        ),
    ] {
        let line = cairn_tests::start_refused_with(&args);
        assert!(line.contains(flag), "{line}");
    }
}
