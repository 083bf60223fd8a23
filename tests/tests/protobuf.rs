//! Protobuf end to end: what kubectl sends is decoded and stored as its
//! JSON would be; responses (get, list, watch, errors) are read with prost
//! messages declared from Kubernetes' field numbers (`k8s_proto`), not with
//! the server's codec, and compared field for field with the JSON view.

use cairn_tests::k8s_proto::{
    self, ConfigMap, ConfigMapList, DeleteOptions, Event, EventV1, Namespace, ObjectMeta, Pod,
    Preconditions, Secret, Status,
};
use cairn_tests::{Server, event, kubectl, kubectl_present};
use prost::Message;
use serde_json::{Value, json};

const PB: &str = "application/vnd.kubernetes.protobuf";

fn get_pb(s: &Server, path: &str, accept: &str) -> cairn_tests::Response {
    s.request("GET", path, &[("Accept", accept)], None)
}

fn send_pb(s: &Server, method: &str, path: &str, body: &[u8]) -> cairn_tests::Response {
    s.request(
        method,
        path,
        &[("Content-Type", PB), ("Accept", PB)],
        Some(body),
    )
}

/// Seconds since the epoch of an RFC 3339 `...Z` time, via the server's own
/// JSON (compared against protobuf's `Time`).
fn seconds(rfc3339: &str) -> i64 {
    let (date, time) = rfc3339.split_once('T').expect("a time");
    let d: Vec<i64> = date.split('-').map(|p| p.parse().expect("date")).collect();
    let t: Vec<i64> = time[..8]
        .split(':')
        .map(|p| p.parse().expect("time"))
        .collect();
    let (y, m) = if d[1] <= 2 {
        (d[0] - 1, d[1] + 9)
    } else {
        (d[0], d[1] - 3)
    };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * m + 2) / 5 + d[2] - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    days * 86_400 + t[0] * 3600 + t[1] * 60 + t[2]
}

fn str_at<'a>(v: &'a Value, path: &str) -> Option<&'a str> {
    path.split('.').try_fold(v, |v, k| v.get(k))?.as_str()
}

/// ObjectMeta from protobuf equals the JSON view's metadata.
fn assert_meta(pb: &ObjectMeta, json: &Value) {
    let m = &json["metadata"];
    assert_eq!(pb.name.as_deref(), str_at(m, "name"));
    assert_eq!(pb.namespace.as_deref(), str_at(m, "namespace"));
    assert_eq!(pb.uid.as_deref(), str_at(m, "uid"));
    assert_eq!(pb.resource_version.as_deref(), str_at(m, "resourceVersion"));
    assert_eq!(
        pb.creation_timestamp.as_ref().and_then(|t| t.seconds),
        str_at(m, "creationTimestamp").map(seconds)
    );
    let labels: std::collections::HashMap<String, String> =
        serde_json::from_value(m.get("labels").cloned().unwrap_or(json!({}))).expect("labels");
    assert_eq!(pb.labels, labels);
}

#[test]
fn kubectl_sends_protobuf_and_objects_are_stored_as_json_would_store_them() {
    if !kubectl_present() {
        return;
    }
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let (ok, out) = kubectl(&s, &["create", "namespace", "pb-ns", "-v=8"], None);
    assert!(ok, "{out}");
    assert!(
        out.contains("Content-Type: application/vnd.kubernetes.protobuf"),
        "kubectl sent no protobuf body:\n{out}"
    );
    let (ok, out) = kubectl(
        &s,
        &[
            "create",
            "configmap",
            "app",
            "-n",
            "pb-ns",
            "--from-literal=mode=fast",
            "--from-literal=empty=",
        ],
        None,
    );
    assert!(ok, "{out}");
    let (ok, out) = kubectl(
        &s,
        &[
            "create",
            "secret",
            "generic",
            "creds",
            "-n",
            "pb-ns",
            "--from-literal=password=hunter2",
        ],
        None,
    );
    assert!(ok, "{out}");

    let ns = s.get("/api/v1/namespaces/pb-ns").json();
    assert_eq!(ns["kind"], "Namespace");
    assert_eq!(ns["spec"], json!({"finalizers": ["kubernetes"]}));
    assert_eq!(ns["status"], json!({"phase": "Active"}));
    let cm = s.get("/api/v1/namespaces/pb-ns/configmaps/app").json();
    assert_eq!(cm["data"], json!({"mode": "fast", "empty": ""}));
    assert_eq!(cm["metadata"]["namespace"], "pb-ns");
    let secret = s.get("/api/v1/namespaces/pb-ns/secrets/creds").json();
    assert_eq!(secret["data"], json!({"password": "aHVudGVyMg=="}));
    assert_eq!(secret["type"], "Opaque");
    // Nothing Go writes for unset fields (empty strings, zero times) leaks in.
    for obj in [&ns, &cm, &secret] {
        let meta = obj["metadata"].as_object().expect("metadata");
        for field in ["generateName", "selfLink", "deletionTimestamp", "labels"] {
            assert!(!meta.contains_key(field), "{field} in {obj}");
        }
    }

    // Get, each in protobuf, equals the JSON view field for field.
    let r = get_pb(&s, "/api/v1/namespaces/pb-ns", PB);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some(PB));
    let (api_version, kind, raw) = k8s_proto::unwrap(&r.body);
    assert_eq!((api_version.as_str(), kind.as_str()), ("v1", "Namespace"));
    let pb = Namespace::decode(raw.as_slice()).expect("a Namespace");
    assert_meta(pb.metadata.as_ref().expect("metadata"), &ns);
    assert_eq!(pb.spec.expect("spec").finalizers, ["kubernetes"]);
    assert_eq!(pb.status.expect("status").phase.as_deref(), Some("Active"));

    let r = get_pb(&s, "/api/v1/namespaces/pb-ns/secrets/creds", PB);
    let pb = Secret::decode(k8s_proto::unwrap(&r.body).2.as_slice()).expect("a Secret");
    assert_meta(pb.metadata.as_ref().expect("metadata"), &secret);
    assert_eq!(pb.data["password"], b"hunter2");
    assert_eq!(pb.r#type.as_deref(), Some("Opaque"));

    // A service from kubectl: its spec is numbered as far as it is modelled.
    let (ok, out) = kubectl(
        &s,
        &[
            "create",
            "service",
            "clusterip",
            "web",
            "-n",
            "pb-ns",
            "--tcp=80:8080",
        ],
        None,
    );
    assert!(ok, "{out}");
    let svc = s.get("/api/v1/namespaces/pb-ns/services/web").json();
    assert_eq!(svc["spec"]["ports"][0]["port"], 80);
    assert_eq!(svc["spec"]["ports"][0]["targetPort"], 8080);
    assert_eq!(svc["spec"]["selector"], json!({"app": "web"}));
    let r = get_pb(&s, "/api/v1/namespaces/pb-ns/services/web", PB);
    assert_eq!(r.status, 200);
    assert_eq!(k8s_proto::unwrap(&r.body).1, "Service");

    // kubectl reads protobuf back (get -o json goes through its decoder).
    let (ok, out) = kubectl(
        &s,
        &["get", "configmap", "app", "-n", "pb-ns", "-o", "json"],
        None,
    );
    assert!(ok, "{out}");
    let via_kubectl: Value = serde_json::from_str(&out).expect("kubectl JSON");
    assert_eq!(via_kubectl["data"], cm["data"]);
    assert_eq!(via_kubectl["metadata"]["uid"], cm["metadata"]["uid"]);
}

#[test]
fn protobuf_responses_bodies_watch_errors_and_fallbacks() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    assert_eq!(
        s.post("/api/v1/namespaces", &json!({"metadata": {"name": "w"}}))
            .status,
        201
    );
    s.settle_namespace("w");
    // A create with a body encoded by prost from the real field numbers.
    let mut cm = ConfigMap {
        metadata: Some(ObjectMeta {
            name: Some("one".into()),
            labels: [("app".to_string(), "web".to_string())].into(),
            ..ObjectMeta::default()
        }),
        data: [("k".to_string(), "v".to_string())].into(),
        binary_data: [("bin".to_string(), vec![0u8, 159, 146, 150])].into(),
        immutable: Some(false),
    };
    let r = send_pb(
        &s,
        "POST",
        "/api/v1/namespaces/w/configmaps",
        &k8s_proto::wrap("v1", "ConfigMap", &cm),
    );
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let created = ConfigMap::decode(k8s_proto::unwrap(&r.body).2.as_slice()).expect("ConfigMap");
    let json_view = s.get("/api/v1/namespaces/w/configmaps/one").json();
    assert_meta(created.metadata.as_ref().expect("metadata"), &json_view);
    assert_eq!(json_view["data"], json!({"k": "v"}));
    assert_eq!(json_view["binaryData"], json!({"bin": "AJ+Slg=="}));
    assert_eq!(json_view["immutable"], json!(false));
    assert_eq!(json_view["metadata"]["labels"], json!({"app": "web"}));
    let rv_after_create = json_view["metadata"]["resourceVersion"]
        .as_str()
        .expect("rv")
        .to_string();

    // Update in protobuf.
    cm.metadata = created.metadata.clone();
    cm.data.insert("k2".into(), "v2".into());
    let r = send_pb(
        &s,
        "PUT",
        "/api/v1/namespaces/w/configmaps/one",
        &k8s_proto::wrap("v1", "ConfigMap", &cm),
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(
        s.get("/api/v1/namespaces/w/configmaps/one").json()["data"],
        json!({"k": "v", "k2": "v2"})
    );
    assert_eq!(
        s.post(
            "/api/v1/namespaces/w/configmaps",
            &json!({"metadata": {"name": "two"}, "data": {"x": "y"}})
        )
        .status,
        201
    );

    // List: ConfigMapList {metadata, items} equals the JSON list.
    let list_json = s.get("/api/v1/namespaces/w/configmaps").json();
    let r = get_pb(
        &s,
        "/api/v1/namespaces/w/configmaps",
        "application/vnd.kubernetes.protobuf, application/json",
    );
    assert_eq!(r.header("content-type"), Some(PB));
    let (_, kind, raw) = k8s_proto::unwrap(&r.body);
    assert_eq!(kind, "ConfigMapList");
    let list = ConfigMapList::decode(raw.as_slice()).expect("a ConfigMapList");
    assert_eq!(
        list.metadata
            .expect("list meta")
            .resource_version
            .as_deref(),
        str_at(&list_json, "metadata.resourceVersion")
    );
    let items = list_json["items"].as_array().expect("items");
    assert_eq!(list.items.len(), items.len());
    for (pb, json) in list.items.iter().zip(items) {
        assert_meta(pb.metadata.as_ref().expect("metadata"), json);
        let data: std::collections::HashMap<String, String> =
            serde_json::from_value(json["data"].clone()).expect("data");
        assert_eq!(pb.data, data);
    }
    // Paged: the continue token travels in ListMeta.
    let r = get_pb(&s, "/api/v1/namespaces/w/configmaps?limit=1", PB);
    let page = ConfigMapList::decode(k8s_proto::unwrap(&r.body).2.as_slice()).expect("page");
    assert_eq!(page.items.len(), 1);
    assert!(
        !page
            .metadata
            .expect("meta")
            .r#continue
            .unwrap_or_default()
            .is_empty()
    );

    // Watch from the create's revision: the update and the new object, framed.
    let r = get_pb(
        &s,
        &format!(
            "/api/v1/namespaces/w/configmaps?watch=1&resourceVersion={rv_after_create}&timeoutSeconds=1"
        ),
        PB,
    );
    assert_eq!(
        r.header("content-type"),
        Some("application/vnd.kubernetes.protobuf;stream=watch")
    );
    let events = k8s_proto::watch_events(&r.body);
    let seen: Vec<(String, String)> = events
        .iter()
        .map(|(t, obj)| {
            let (_, kind, raw) = k8s_proto::unwrap(obj);
            assert_eq!(kind, "ConfigMap");
            let cm = ConfigMap::decode(raw.as_slice()).expect("ConfigMap");
            (
                t.clone(),
                cm.metadata.and_then(|m| m.name).unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("MODIFIED".to_string(), "one".to_string()),
            ("ADDED".into(), "two".into())
        ]
    );

    // Errors are Status messages.
    let r = get_pb(&s, "/api/v1/namespaces/w/configmaps/missing", PB);
    assert_eq!(r.status, 404);
    let (_, kind, raw) = k8s_proto::unwrap(&r.body);
    assert_eq!(kind, "Status");
    let status = Status::decode(raw.as_slice()).expect("a Status");
    assert_eq!(status.code, Some(404));
    assert_eq!(status.reason.as_deref(), Some("NotFound"));
    assert_eq!(status.status.as_deref(), Some("Failure"));
    assert_eq!(
        status.details.expect("details").name.as_deref(),
        Some("missing")
    );

    // Bad protobuf bodies: 400, nothing stored.
    for bad in [
        b"not protobuf at all".to_vec(),
        b"k8s\0\x12\x05ab".to_vec(),
        k8s_proto::wrap(
            "v1",
            "ConfigMap",
            &ObjectMeta {
                name: Some("x".into()),
                ..ObjectMeta::default()
            },
        )
        .into_iter()
        .chain([0x0a, 0x7f])
        .collect(),
    ] {
        let r = send_pb(&s, "POST", "/api/v1/namespaces/w/configmaps", &bad);
        assert_eq!(r.status, 400, "{}", String::from_utf8_lossy(&r.body));
        let status = Status::decode(k8s_proto::unwrap(&r.body).2.as_slice()).expect("Status");
        assert_eq!(status.reason.as_deref(), Some("BadRequest"));
    }
    assert_eq!(
        s.get("/api/v1/namespaces/w/configmaps").json()["items"]
            .as_array()
            .map(Vec::len),
        Some(3),
        "the two created and kube-root-ca.crt"
    );

    // DeleteOptions in protobuf: a failed precondition, a dry run, a delete.
    let opts = |uid: &str, dry: bool| {
        k8s_proto::wrap(
            "v1",
            "DeleteOptions",
            &DeleteOptions {
                preconditions: Some(Preconditions {
                    uid: Some(uid.into()),
                    resource_version: None,
                }),
                dry_run: if dry { vec!["All".into()] } else { vec![] },
            },
        )
    };
    let uid = json_view["metadata"]["uid"].as_str().expect("uid");
    assert_eq!(
        send_pb(
            &s,
            "DELETE",
            "/api/v1/namespaces/w/configmaps/one",
            &opts("other", false)
        )
        .status,
        409
    );
    assert_eq!(
        send_pb(
            &s,
            "DELETE",
            "/api/v1/namespaces/w/configmaps/one",
            &opts(uid, true)
        )
        .status,
        200
    );
    assert_eq!(s.get("/api/v1/namespaces/w/configmaps/one").status, 200);
    let r = send_pb(
        &s,
        "DELETE",
        "/api/v1/namespaces/w/configmaps/one",
        &opts(uid, false),
    );
    assert_eq!(r.status, 200);
    assert_eq!(s.get("/api/v1/namespaces/w/configmaps/one").status, 404);
    // Watched again with a label selector: the update and the delete of
    // the labelled one only; unselected, the delete too.
    let watched = |query: &str| -> Vec<(String, String)> {
        let r = get_pb(
            &s,
            &format!(
                "/api/v1/namespaces/w/configmaps?watch=1&resourceVersion={rv_after_create}&timeoutSeconds=1{query}"
            ),
            PB,
        );
        k8s_proto::watch_events(&r.body)
            .iter()
            .map(|(t, obj)| {
                let cm = ConfigMap::decode(k8s_proto::unwrap(obj).2.as_slice()).expect("ConfigMap");
                (
                    t.clone(),
                    cm.metadata.and_then(|m| m.name).unwrap_or_default(),
                )
            })
            .collect()
    };
    let pair = |t: &str, n: &str| (t.to_string(), n.to_string());
    assert_eq!(
        watched("&labelSelector=app%3Dweb"),
        [pair("MODIFIED", "one"), pair("DELETED", "one")]
    );
    assert_eq!(
        watched(""),
        [
            pair("MODIFIED", "one"),
            pair("ADDED", "two"),
            pair("DELETED", "one")
        ]
    );

    // The spec's spelling is answered in kind.
    let r = get_pb(&s, "/api/v1/namespaces/w", "application/vnd.svc.protobuf");
    assert_eq!(
        r.header("content-type"),
        Some("application/vnd.svc.protobuf")
    );
    assert_eq!(k8s_proto::unwrap(&r.body).1, "Namespace");

    // A service setting a field this schema keeps unnumbered
    // (sessionAffinityConfig): JSON when acceptable, else 406.
    let svc = json!({"metadata": {"name": "sticky"}, "spec": {"ports": [{"port": 80}],
        "sessionAffinity": "ClientIP", "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 60}}}});
    assert_eq!(s.post("/api/v1/namespaces/w/services", &svc).status, 201);
    let r = get_pb(
        &s,
        "/api/v1/namespaces/w/services/sticky",
        "application/vnd.kubernetes.protobuf, application/json",
    );
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(
        r.json()["spec"]["sessionAffinityConfig"]["clientIP"]["timeoutSeconds"],
        60
    );
    assert_eq!(
        get_pb(&s, "/api/v1/namespaces/w/services/sticky", PB).status,
        406
    );
    let r = get_pb(
        &s,
        "/api/v1/namespaces/w/services",
        "application/vnd.kubernetes.protobuf, application/json",
    );
    assert_eq!(r.header("content-type"), Some("application/json"));

    // CustomResourceDefinitions are not numbered: bodies are refused (415).
    let r = s.request(
        "POST",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        &[("Content-Type", PB), ("Accept", "application/json")],
        Some(&k8s_proto::wrap(
            "apiextensions.k8s.io/v1",
            "CustomResourceDefinition",
            &ObjectMeta::default(),
        )),
    );
    assert_eq!(r.status, 415);
}

#[test]
fn event_times_travel_as_time_and_micro_time() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let mut ev = event("e1", "Started");
    ev["eventTime"] = json!("2024-05-01T10:00:00.123456Z");
    assert_eq!(s.post("/api/v1/namespaces/default/events", &ev).status, 201);
    let json_view = s.get("/api/v1/namespaces/default/events/e1").json();
    let r = get_pb(&s, "/api/v1/namespaces/default/events/e1", PB);
    let pb = Event::decode(k8s_proto::unwrap(&r.body).2.as_slice()).expect("an Event");
    assert_meta(pb.metadata.as_ref().expect("metadata"), &json_view);
    assert_eq!(pb.reason.as_deref(), Some("Started"));
    assert_eq!(pb.count, Some(1));
    assert_eq!(
        pb.involved_object.expect("ref").name.as_deref(),
        Some("web-1")
    );
    assert_eq!(pb.source.expect("source").host.as_deref(), Some("node-1"));
    let first = pb.first_timestamp.expect("firstTimestamp");
    assert_eq!(first.seconds, Some(seconds("2024-05-01T10:00:00Z")));
    let at = pb.event_time.expect("eventTime");
    assert_eq!(
        (at.seconds, at.nanos),
        (Some(seconds("2024-05-01T10:00:00Z")), Some(123_456_000))
    );

    // The same stored object through events.k8s.io/v1: its own numbering.
    let r = get_pb(
        &s,
        "/apis/events.k8s.io/v1/namespaces/default/events/e1",
        PB,
    );
    let (api_version, kind, raw) = k8s_proto::unwrap(&r.body);
    assert_eq!(
        (api_version.as_str(), kind.as_str()),
        ("events.k8s.io/v1", "Event")
    );
    let v1 = EventV1::decode(raw.as_slice()).expect("an events/v1 Event");
    assert_eq!(
        v1.regarding.expect("regarding").name.as_deref(),
        Some("web-1")
    );
    assert_eq!(v1.note.as_deref(), Some("Started happened"));
    assert_eq!(v1.deprecated_count, Some(1));
    assert_eq!(v1.event_time.expect("eventTime").nanos, Some(123_456_000));
}

/// A pod's protobuf form equals its JSON form field for field, as far as
/// the schema numbers it; a pod that sets a free-form field falls back.
#[test]
fn pods_travel_as_protobuf_as_far_as_modelled() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    assert_eq!(
        s.post("/api/v1/namespaces", &json!({"metadata": {"name": "p"}}))
            .status,
        201
    );
    let pod = json!({"metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "web", "image": "nginx:1.27", "command": ["nginx"],
                 "ports": [{"name": "http", "containerPort": 80}],
                 "env": [{"name": "MODE", "value": "fast"}],
                 "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"cpu": 1}}}],
                 "nodeSelector": {"disktype": "ssd"}, "nodeName": "n1", "priority": 10,
                 // No token volume: volumes are not modelled in protobuf.
                 "automountServiceAccountToken": false,
                 "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}]}});
    assert_eq!(s.post("/api/v1/namespaces/p/pods", &pod).status, 201);
    let status = json!({"status": {"phase": "Running", "hostIP": "10.0.0.5", "podIP": "10.244.1.7",
        "podIPs": [{"ip": "10.244.1.7"}], "startTime": "2024-05-01T09:59:58Z",
        "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2024-05-01T10:00:00Z", "reason": "Up"}],
        "containerStatuses": [{"name": "web", "ready": true, "restartCount": 2, "image": "nginx:1.27"}]}});
    let r = s.request(
        "PATCH",
        "/api/v1/namespaces/p/pods/web/status",
        &[("Content-Type", "application/merge-patch+json")],
        Some(status.to_string().as_bytes()),
    );
    assert_eq!(r.status, 200, "{}", r.text());

    let json_view = s.get("/api/v1/namespaces/p/pods/web").json();
    let r = get_pb(&s, "/api/v1/namespaces/p/pods/web", PB);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some(PB));
    let (api_version, kind, raw) = k8s_proto::unwrap(&r.body);
    assert_eq!((api_version.as_str(), kind.as_str()), ("v1", "Pod"));
    let pb = Pod::decode(raw.as_slice()).expect("a Pod message");
    assert_meta(pb.metadata.as_ref().expect("metadata"), &json_view);
    let spec = pb.spec.expect("spec");
    let js = &json_view["spec"];
    assert_eq!(spec.restart_policy.as_deref(), js["restartPolicy"].as_str());
    assert_eq!(spec.dns_policy.as_deref(), js["dnsPolicy"].as_str());
    assert_eq!(spec.scheduler_name.as_deref(), js["schedulerName"].as_str());
    assert_eq!(
        spec.termination_grace_period_seconds,
        js["terminationGracePeriodSeconds"].as_i64()
    );
    assert_eq!(spec.node_name.as_deref(), Some("n1"));
    assert_eq!(spec.priority, Some(10));
    assert_eq!(
        spec.node_selector.get("disktype").map(String::as_str),
        Some("ssd")
    );
    let t = &spec.tolerations[0];
    assert_eq!(
        (
            t.key.as_deref(),
            t.operator.as_deref(),
            t.effect.as_deref(),
            t.toleration_seconds
        ),
        (Some("k"), Some("Exists"), Some("NoExecute"), Some(30))
    );
    let c = &spec.containers[0];
    let jc = &js["containers"][0];
    assert_eq!(c.name.as_deref(), Some("web"));
    assert_eq!(c.image.as_deref(), Some("nginx:1.27"));
    assert_eq!(c.command, ["nginx"]);
    assert_eq!(
        c.image_pull_policy.as_deref(),
        jc["imagePullPolicy"].as_str()
    );
    assert_eq!(c.ports[0].name.as_deref(), Some("http"));
    assert_eq!(c.ports[0].container_port, Some(80));
    assert_eq!(
        c.ports[0].protocol.as_deref(),
        jc["ports"][0]["protocol"].as_str()
    );
    assert_eq!(
        (c.env[0].name.as_deref(), c.env[0].value.as_deref()),
        (Some("MODE"), Some("fast"))
    );
    let res = c.resources.as_ref().expect("resources");
    let quantity = |m: &std::collections::HashMap<String, k8s_proto::Quantity>, k: &str| {
        m.get(k).and_then(|q| q.string.clone())
    };
    assert_eq!(quantity(&res.requests, "cpu").as_deref(), Some("100m"));
    assert_eq!(quantity(&res.requests, "memory").as_deref(), Some("64Mi"));
    assert_eq!(quantity(&res.limits, "cpu").as_deref(), Some("1"));
    let st = pb.status.expect("status");
    let jst = &json_view["status"];
    assert_eq!(st.phase.as_deref(), Some("Running"));
    assert_eq!(st.host_ip.as_deref(), Some("10.0.0.5"));
    assert_eq!(st.pod_ip.as_deref(), Some("10.244.1.7"));
    assert_eq!(st.pod_ips[0].ip.as_deref(), Some("10.244.1.7"));
    assert_eq!(st.qos_class.as_deref(), jst["qosClass"].as_str());
    assert_eq!(
        st.start_time.and_then(|t| t.seconds),
        Some(seconds("2024-05-01T09:59:58Z"))
    );
    let cond = &st.conditions[0];
    assert_eq!(
        (
            cond.r#type.as_deref(),
            cond.status.as_deref(),
            cond.reason.as_deref()
        ),
        (Some("Ready"), Some("True"), Some("Up"))
    );
    assert_eq!(
        cond.last_transition_time.as_ref().and_then(|t| t.seconds),
        Some(seconds("2024-05-01T10:00:00Z"))
    );
    let cs = &st.container_statuses[0];
    assert_eq!(
        (
            cs.name.as_deref(),
            cs.ready,
            cs.restart_count,
            cs.image.as_deref()
        ),
        (Some("web"), Some(true), Some(2), Some("nginx:1.27"))
    );

    // A protobuf body creates a pod, read back as JSON.
    let mut sent = Pod::decode(raw.as_slice()).expect("a Pod message");
    let meta = sent.metadata.as_mut().expect("metadata");
    *meta = ObjectMeta {
        name: Some("web2".into()),
        ..ObjectMeta::default()
    };
    sent.status = None;
    let r = send_pb(
        &s,
        "POST",
        "/api/v1/namespaces/p/pods",
        &k8s_proto::wrap("v1", "Pod", &sent),
    );
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let created = s.get("/api/v1/namespaces/p/pods/web2").json();
    let c = &created["spec"]["containers"][0];
    assert_eq!(c["resources"]["requests"]["cpu"], "100m");
    assert_eq!(c["ports"][0]["containerPort"], 80);
    assert_eq!(c["env"][0], json!({"name": "MODE", "value": "fast"}));
    assert_eq!(created["spec"]["tolerations"][0]["tolerationSeconds"], 30);

    // A probe is kept free-form: that pod (and a list holding it) falls back
    // to JSON when acceptable, else 406.
    let mut probed = pod.clone();
    probed["metadata"]["name"] = json!("probed");
    probed["spec"]["containers"][0]["readinessProbe"] =
        json!({"httpGet": {"path": "/", "port": 80}});
    assert_eq!(s.post("/api/v1/namespaces/p/pods", &probed).status, 201);
    let both = "application/vnd.kubernetes.protobuf, application/json";
    for path in [
        "/api/v1/namespaces/p/pods/probed",
        "/api/v1/namespaces/p/pods",
    ] {
        let r = get_pb(&s, path, both);
        assert_eq!(r.header("content-type"), Some("application/json"), "{path}");
        assert_eq!(get_pb(&s, path, PB).status, 406, "{path}");
    }
    let r = get_pb(&s, "/api/v1/namespaces/p/pods/probed", both);
    assert_eq!(
        r.json()["spec"]["containers"][0]["readinessProbe"]["httpGet"]["port"],
        80
    );
}

/// A JSON watcher and a protobuf watcher, both live on one collection, each
/// get their own encoding of the same commits (a commit batch keeps one
/// shared encoding per format).
#[test]
fn live_json_and_protobuf_watchers_each_get_their_encoding() {
    let s = Server::start(&[]);
    assert_eq!(
        s.post(
            "/api/v1/namespaces",
            &json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "both"}})
        )
        .status,
        201
    );
    s.settle_namespace("both");
    let list = s.get("/api/v1/namespaces/both/configmaps").json();
    let rv = str_at(&list, "metadata.resourceVersion")
        .expect("rv")
        .to_owned();
    let path = format!("/api/v1/namespaces/both/configmaps?watch=1&resourceVersion={rv}");
    let mut json_watch = s.watch(&path);
    json_watch.set_timeout(std::time::Duration::from_secs(10));
    std::thread::scope(|scope| {
        let pb = scope.spawn(|| get_pb(&s, &format!("{path}&timeoutSeconds=2"), PB));
        // Both watches live before the writes (a late one would read them
        // from history instead, which is also correct).
        std::thread::sleep(std::time::Duration::from_millis(300));
        for name in ["a", "b"] {
            let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": name}});
            assert_eq!(
                s.post("/api/v1/namespaces/both/configmaps", &cm).status,
                201
            );
        }
        for name in ["a", "b"] {
            let ev = json_watch.next_event().expect("a JSON event");
            assert_eq!(ev["type"], "ADDED");
            assert_eq!(ev["object"]["metadata"]["name"], name);
            assert_eq!(ev["object"]["data"]["k"], name);
        }
        let r = pb.join().expect("protobuf watcher");
        assert_eq!(
            r.header("content-type"),
            Some("application/vnd.kubernetes.protobuf;stream=watch")
        );
        let seen: Vec<(String, String, String)> = k8s_proto::watch_events(&r.body)
            .iter()
            .map(|(t, obj)| {
                let (_, kind, raw) = k8s_proto::unwrap(obj);
                assert_eq!(kind, "ConfigMap");
                let cm = ConfigMap::decode(raw.as_slice()).expect("ConfigMap");
                let name = cm.metadata.and_then(|m| m.name).unwrap_or_default();
                (
                    t.clone(),
                    name,
                    cm.data.get("k").cloned().unwrap_or_default(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                ("ADDED".to_string(), "a".to_string(), "a".to_string()),
                ("ADDED".into(), "b".into(), "b".into())
            ]
        );
    });
}
