//! Black-box tests of the core API against the real binary: every Event
//! operation, parameters, error Statuses, negotiation, and limits.

use cairn_tests::{Server, event};
use serde_json::{Value, json};

const EVENTS: &str = "/api/v1/namespaces/default/events";

fn status_of(r: &cairn_tests::Response) -> (u16, String, String) {
    let v = r.json();
    assert_eq!(v["kind"], "Status", "{}", r.text());
    assert_eq!(
        v["code"].as_u64(),
        Some(u64::from(r.status)),
        "{}",
        r.text()
    );
    (
        r.status,
        v["reason"].as_str().unwrap_or_default().to_string(),
        v["message"].as_str().unwrap_or_default().to_string(),
    )
}

#[test]
fn create_get_list_update_patch_delete_an_event() {
    let s = Server::start(&[]);
    let r = s.post(EVENTS, &event("e1", "Started"));
    assert_eq!(r.status, 201, "{}", r.text());
    let created = r.json();
    assert_eq!(created["kind"], "Event");
    assert_eq!(created["apiVersion"], "v1");
    assert_eq!(created["metadata"]["namespace"], "default");
    assert_eq!(created["metadata"]["uid"].as_str().map(str::len), Some(36));
    assert!(
        created["metadata"]["creationTimestamp"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z'))
    );
    let rv = created["metadata"]["resourceVersion"]
        .as_str()
        .expect("rv")
        .to_string();
    assert!(rv.parse::<u64>().is_ok());

    let got = s.get(&format!("{EVENTS}/e1"));
    assert_eq!(got.status, 200);
    assert_eq!(got.json(), created);

    // Duplicate create.
    let dup = s.post(EVENTS, &event("e1", "Started"));
    assert_eq!(
        status_of(&dup),
        (
            409,
            "AlreadyExists".into(),
            "events \"e1\" already exists".into()
        )
    );
    assert_eq!(
        dup.json()["details"],
        json!({"name": "e1", "kind": "events"})
    );

    // List in the namespace and across namespaces.
    let list = s.get(EVENTS).json();
    assert_eq!(list["kind"], "EventList");
    assert_eq!(list["items"].as_array().map(Vec::len), Some(1));
    assert!(list["metadata"]["resourceVersion"].as_str().is_some());
    assert_eq!(
        s.get("/api/v1/events").json()["items"][0]["metadata"]["name"],
        "e1"
    );

    // Update with a stale resourceVersion, then a fresh one.
    let mut upd = created.clone();
    upd["message"] = json!("changed");
    let ok = s.put(&format!("{EVENTS}/e1"), &upd);
    assert_eq!(ok.status, 200, "{}", ok.text());
    let stale = s.put(&format!("{EVENTS}/e1"), &upd);
    let (code, reason, message) = status_of(&stale);
    assert_eq!((code, reason.as_str()), (409, "Conflict"));
    assert!(
        message.contains("the object has been modified"),
        "{message}"
    );
    let mut unconditional = upd.clone();
    unconditional["metadata"]
        .as_object_mut()
        .expect("meta")
        .remove("resourceVersion");
    unconditional["message"] = json!("again");
    assert_eq!(s.put(&format!("{EVENTS}/e1"), &unconditional).status, 200);

    // Merge patch and JSON patch (with test).
    let m = s.patch(
        &format!("{EVENTS}/e1"),
        "application/merge-patch+json",
        r#"{"message":"merged","count":3}"#,
    );
    assert_eq!(m.status, 200, "{}", m.text());
    assert_eq!(
        (m.json()["message"].clone(), m.json()["count"].clone()),
        (json!("merged"), json!(3))
    );
    let j = s.patch(&format!("{EVENTS}/e1"), "application/json-patch+json", r#"[{"op":"test","path":"/count","value":3.0},{"op":"replace","path":"/reason","value":"Patched"}]"#);
    assert_eq!(j.status, 200, "{}", j.text());
    assert_eq!(j.json()["reason"], "Patched");
    let failed = s.patch(
        &format!("{EVENTS}/e1"),
        "application/json-patch+json",
        r#"[{"op":"test","path":"/count","value":4}]"#,
    );
    assert_eq!(failed.status, 422, "{}", failed.text());
    let bad_type = s.patch(&format!("{EVENTS}/e1"), "text/plain", "x");
    assert_eq!(status_of(&bad_type).0, 415);
    let forced = s.request(
        "PATCH",
        &format!("{EVENTS}/e1?force=true"),
        &[("Content-Type", "application/merge-patch+json")],
        Some(b"{}"),
    );
    assert_eq!(status_of(&forced).0, 400);

    // PUT of a missing Event creates it (Kubernetes allows it for events).
    let mut fresh = event("e2", "Created");
    fresh["metadata"]["namespace"] = json!("default");
    assert_eq!(s.put(&format!("{EVENTS}/e2"), &fresh).status, 201);

    // Delete answers with a Success Status naming the resource.
    let d = s.delete(&format!("{EVENTS}/e1"));
    assert_eq!(d.status, 200, "{}", d.text());
    let dv = d.json();
    assert_eq!(
        (
            dv["kind"].clone(),
            dv["status"].clone(),
            dv["details"]["kind"].clone()
        ),
        (json!("Status"), json!("Success"), json!("events"))
    );
    assert_eq!(status_of(&s.get(&format!("{EVENTS}/e1"))).0, 404);
    assert_eq!(status_of(&s.delete(&format!("{EVENTS}/e1"))).0, 404);
}

#[test]
fn generate_name_and_namespace_rules() {
    let s = Server::start(&[]);
    let mut e = event("", "Gen");
    e["metadata"] = json!({"generateName": "ev-"});
    let r = s.post(EVENTS, &e);
    assert_eq!(r.status, 201, "{}", r.text());
    let name = r.json()["metadata"]["name"]
        .as_str()
        .expect("name")
        .to_string();
    assert!(name.starts_with("ev-") && name.len() == 8, "{name}");

    let missing = s.post("/api/v1/namespaces/nope/events", &event("x", "r"));
    assert_eq!(
        status_of(&missing),
        (
            404,
            "NotFound".into(),
            "namespaces \"nope\" not found".into()
        )
    );
    let mut wrong_ns = event("x", "r");
    wrong_ns["metadata"]["namespace"] = json!("kube-system");
    assert_eq!(status_of(&s.post(EVENTS, &wrong_ns)).0, 400);
    let no_name = s.post(
        EVENTS,
        &json!({"involvedObject": {"kind": "Pod"}, "metadata": {}}),
    );
    // An omitted required field is a bad request (spec section 7).
    assert_eq!(status_of(&no_name).0, 400);
    let bad_name = s.post(EVENTS, &event("Not_Valid", "r"));
    assert_eq!(status_of(&bad_name).0, 422);
    let with_rv = s.post(
        EVENTS,
        &json!({"metadata": {"name": "rv", "resourceVersion": "5"}, "involvedObject": {}}),
    );
    assert_eq!(status_of(&with_rv).0, 400);
}

#[test]
fn validation_types_required_unknown_and_duplicate_fields() {
    let s = Server::start(&[]);
    // Type errors and missing required fields are always 400.
    let mut bad = event("t1", "r");
    bad["count"] = json!("three");
    let (code, _, message) = status_of(&s.post(EVENTS, &bad));
    assert_eq!(code, 400);
    assert!(message.contains("count"), "{message}");
    let missing = s.post(EVENTS, &json!({"metadata": {"name": "t2"}}));
    let (code, _, message) = status_of(&missing);
    assert_eq!(code, 400);
    assert!(
        message.contains("involvedObject: Required value"),
        "{message}"
    );

    let body = br#"{"apiVersion":"v1","kind":"Event","metadata":{"name":"u1","name":"u1"},"involvedObject":{"kind":"Pod","bogus":1},"extra":true}"#;
    let strict = s.request(
        "POST",
        &format!("{EVENTS}?fieldValidation=Strict"),
        &[("Content-Type", "application/json")],
        Some(body),
    );
    let (code, _, message) = status_of(&strict);
    assert_eq!(code, 400);
    for want in [
        "unknown field \"involvedObject.bogus\"",
        "unknown field \"extra\"",
        "duplicate field \"metadata.name\"",
    ] {
        assert!(message.contains(want), "{want} missing from {message}");
    }
    assert_eq!(
        status_of(&s.get(&format!("{EVENTS}/u1"))).0,
        404,
        "strict rejection stores nothing"
    );

    let warn = s.request(
        "POST",
        EVENTS,
        &[("Content-Type", "application/json")],
        Some(body),
    );
    assert_eq!(warn.status, 201, "{}", warn.text());
    let warnings = warn.header_all("warning");
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(
        warnings.iter().all(|w| w.starts_with("299 - \"")),
        "{warnings:?}"
    );
    let stored = s.get(&format!("{EVENTS}/u1")).json();
    assert!(
        stored.get("extra").is_none() && stored["involvedObject"].get("bogus").is_none(),
        "unknown fields are dropped"
    );

    let body2 = String::from_utf8_lossy(body).replace("u1", "u2");
    let ignore = s.request(
        "POST",
        &format!("{EVENTS}?fieldValidation=Ignore"),
        &[("Content-Type", "application/json")],
        Some(body2.as_bytes()),
    );
    assert_eq!(ignore.status, 201, "{}", ignore.text());
    assert!(ignore.header("warning").is_none());
    assert_eq!(
        status_of(&s.request(
            "POST",
            &format!("{EVENTS}?fieldValidation=Loud"),
            &[],
            Some(b"{}")
        ))
        .0,
        400
    );
}

#[test]
fn bad_bodies_negotiation_and_limits() {
    let s = Server::start(&["--max-request-bytes", "4096"]);
    let malformed = s.request(
        "POST",
        EVENTS,
        &[("Content-Type", "application/json")],
        Some(b"{\"metadata\":"),
    );
    assert_eq!(status_of(&malformed).0, 400);
    let not_object = s.request(
        "POST",
        EVENTS,
        &[("Content-Type", "application/json")],
        Some(b"[1,2]"),
    );
    assert_eq!(status_of(&not_object).0, 400);
    let wrong_kind = s.post(
        EVENTS,
        &json!({"kind": "Pod", "metadata": {"name": "k"}, "involvedObject": {}}),
    );
    assert_eq!(status_of(&wrong_kind).0, 400);
    let unsupported = s.request(
        "POST",
        EVENTS,
        &[("Content-Type", "text/plain")],
        Some(b"hi"),
    );
    assert_eq!(status_of(&unsupported).0, 415);
    let huge = vec![b' '; 5000];
    let too_large = s.request(
        "POST",
        EVENTS,
        &[("Content-Type", "application/json")],
        Some(&huge),
    );
    let (code, reason, message) = status_of(&too_large);
    assert_eq!(
        (code, reason.as_str(), message.as_str()),
        (
            413,
            "RequestEntityTooLarge",
            "Request entity too large: limit is 4096"
        )
    );

    // YAML in, YAML out.
    let yaml = "apiVersion: v1\nkind: Event\nmetadata:\n  name: y1\ninvolvedObject:\n  kind: Pod\n  name: web\nreason: FromYaml\n";
    let created = s.request(
        "POST",
        EVENTS,
        &[("Content-Type", "application/yaml")],
        Some(yaml.as_bytes()),
    );
    assert_eq!(created.status, 201, "{}", created.text());
    let as_yaml = s.request(
        "GET",
        &format!("{EVENTS}/y1"),
        &[("Accept", "application/yaml")],
        None,
    );
    assert_eq!(as_yaml.header("content-type"), Some("application/yaml"));
    assert!(
        as_yaml.text().contains("reason: FromYaml"),
        "{}",
        as_yaml.text()
    );
    let na = s.request(
        "GET",
        &format!("{EVENTS}/y1"),
        &[("Accept", "text/html")],
        None,
    );
    assert_eq!(status_of(&na).0, 406);
    let table_or_json = s.request(
        "GET",
        &format!("{EVENTS}/y1"),
        &[(
            "Accept",
            "application/json;as=Table;v=v1;g=meta.k8s.io, application/json",
        )],
        None,
    );
    // The Table comes first in that Accept list, and is served.
    assert_eq!(table_or_json.json()["kind"], "Table");

    // pretty
    assert!(
        s.get(&format!("{EVENTS}/y1?pretty=true"))
            .text()
            .contains("\n  \"kind\"")
    );
    // fieldManager limits.
    let long = "m".repeat(128);
    let r = s.post(&format!("{EVENTS}?fieldManager={long}"), &event("fm", "r"));
    assert_eq!(status_of(&r).0, 400);
    assert_eq!(
        s.post(
            &format!("{EVENTS}?fieldManager={}", "m".repeat(127)),
            &event("fm", "r")
        )
        .status,
        201
    );

    // Unknown paths and resources.
    assert_eq!(s.get("/api/v1/namespaces/default/widgets").status, 404);
    assert_eq!(s.get("/apis/nothing.example/v1/things").status, 404);
    assert_eq!(s.get("/nope").text(), "404 page not found\n");
    let method = s.request(
        "POST",
        &format!("{EVENTS}/y1"),
        &[("Content-Type", "application/json")],
        Some(b"{}"),
    );
    assert_eq!(status_of(&method).0, 405);
}

#[test]
fn selectors_dry_run_and_delete_collection() {
    let s = Server::start(&[]);
    for (name, reason, app) in [
        ("a", "Pulled", "web"),
        ("b", "Pulled", "db"),
        ("c", "Killing", "web"),
    ] {
        let mut e = event(name, reason);
        e["metadata"]["labels"] = json!({"app": app});
        assert_eq!(s.post(EVENTS, &e).status, 201);
    }
    let names = |path: &str| -> Vec<String> {
        let r = s.get(path);
        assert_eq!(r.status, 200, "{path}: {}", r.text());
        r.json()["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|i| i["metadata"]["name"].as_str().expect("name").to_string())
            .collect()
    };
    assert_eq!(
        names(&format!("{EVENTS}?labelSelector=app%3Dweb")),
        vec!["a", "c"]
    );
    assert_eq!(
        names(&format!("{EVENTS}?labelSelector=app%20notin%20(web)")),
        vec!["b"]
    );
    assert_eq!(
        names(&format!("{EVENTS}?labelSelector=app,app!%3Ddb")),
        vec!["a", "c"]
    );
    assert_eq!(
        names(&format!("{EVENTS}?fieldSelector=reason%3DPulled")),
        vec!["a", "b"]
    );
    assert_eq!(
        names(&format!(
            "{EVENTS}?fieldSelector=reason!%3DPulled,metadata.name%3Dc"
        )),
        vec!["c"]
    );
    assert_eq!(
        names("/api/v1/events?fieldSelector=involvedObject.name%3Dweb-1,source%3Dkubelet").len(),
        3
    );
    let bad_field = s.get(&format!("{EVENTS}?fieldSelector=spec.nodeName%3Dx"));
    let (code, _, message) = status_of(&bad_field);
    assert_eq!(
        (code, message.as_str()),
        (400, "field label not supported: spec.nodeName")
    );
    assert_eq!(
        status_of(&s.get(&format!("{EVENTS}?labelSelector=app%20in%20(web"))).0,
        400
    );

    // dryRun: full response, nothing persisted.
    let dry = s.post(&format!("{EVENTS}?dryRun=All"), &event("dry", "r"));
    assert_eq!(dry.status, 201, "{}", dry.text());
    assert_eq!(dry.json()["metadata"]["name"], "dry");
    assert_eq!(status_of(&s.get(&format!("{EVENTS}/dry"))).0, 404);
    assert_eq!(
        status_of(&s.post(&format!("{EVENTS}?dryRun=Yes"), &event("dry", "r"))).0,
        400
    );
    let dry_patch = s.patch(
        &format!("{EVENTS}/a?dryRun"),
        "application/merge-patch+json",
        r#"{"message":"dry"}"#,
    );
    assert_eq!(dry_patch.json()["message"], "dry");
    assert_ne!(s.get(&format!("{EVENTS}/a")).json()["message"], "dry");
    assert_eq!(
        s.request("DELETE", &format!("{EVENTS}/a?dryRun=All"), &[], None)
            .status,
        200
    );
    assert_eq!(
        s.get(&format!("{EVENTS}/a")).status,
        200,
        "a dry-run delete keeps the object"
    );

    // deletecollection honours selectors and returns the deleted items.
    let deleted = s.delete(&format!("{EVENTS}?labelSelector=app%3Dweb"));
    assert_eq!(deleted.status, 200, "{}", deleted.text());
    assert_eq!(deleted.json()["kind"], "EventList");
    assert_eq!(deleted.json()["items"].as_array().map(Vec::len), Some(2));
    assert_eq!(names(EVENTS), vec!["b"]);
}

#[test]
fn delete_preconditions() {
    let s = Server::start(&[]);
    let e = s.post(EVENTS, &event("p", "r")).json();
    let uid = e["metadata"]["uid"].as_str().expect("uid");
    let body =
        json!({"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"uid": "other"}});
    let r = s.send_json("DELETE", &format!("{EVENTS}/p"), &body);
    assert_eq!(status_of(&r).0, 409);
    let body = json!({"preconditions": {"uid": uid, "resourceVersion": "1"}});
    let r = s.send_json("DELETE", &format!("{EVENTS}/p"), &body);
    let (code, _, message) = status_of(&r);
    assert_eq!(code, 409);
    assert!(
        message.contains("does not match the ResourceVersion in record"),
        "{message}"
    );
    let both = s.request(
        "DELETE",
        &format!("{EVENTS}/p?orphanDependents=true&propagationPolicy=Orphan"),
        &[],
        None,
    );
    assert_eq!(status_of(&both).0, 400);
    let body =
        json!({"preconditions": {"uid": uid, "resourceVersion": e["metadata"]["resourceVersion"]}});
    assert_eq!(
        s.send_json("DELETE", &format!("{EVENTS}/p"), &body).status,
        200
    );
}

#[test]
fn discovery_documents() {
    let s = Server::start(&[]);
    let api = s.get("/api").json();
    assert_eq!(api["kind"], "APIVersions");
    assert_eq!(api["versions"], json!(["v1"]));
    let v1 = s.get("/api/v1").json();
    assert_eq!(
        (v1["kind"].clone(), v1["groupVersion"].clone()),
        (json!("APIResourceList"), json!("v1"))
    );
    let resources: Vec<&Value> = v1["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .collect();
    let ev = resources
        .iter()
        .find(|r| r["name"] == "events")
        .expect("events");
    assert_eq!(
        (
            ev["kind"].clone(),
            ev["namespaced"].clone(),
            ev["shortNames"].clone()
        ),
        (json!("Event"), json!(true), json!(["ev"]))
    );
    let ns = resources
        .iter()
        .find(|r| r["name"] == "namespaces")
        .expect("namespaces");
    assert_eq!(ns["namespaced"], false);
    assert!(
        ev["verbs"]
            .as_array()
            .expect("verbs")
            .contains(&json!("watch"))
    );
    assert_eq!(s.get("/apis").json()["kind"], "APIGroupList");
    assert_eq!(s.get("/apis/nothing.example").status, 404);
    assert_eq!(s.get("/api/v2").status, 404);
    let version = s.get("/version").json();
    assert!(
        version["gitVersion"]
            .as_str()
            .is_some_and(|v| v.starts_with("v1."))
    );
}

#[test]
fn health_endpoints() {
    let s = Server::start(&[]);
    for ep in ["/livez", "/readyz", "/healthz"] {
        let r = s.get(ep);
        assert_eq!((r.status, r.text().as_str()), (200, "ok"), "{ep}");
    }
    assert!(
        s.get("/healthz")
            .header("warning")
            .is_some_and(|w| w.contains("deprecated"))
    );
    let v = s.get("/readyz?verbose").text();
    assert!(
        v.starts_with("[+]ping ok\n[+]log ok\n[+]storage ok\n"),
        "{v}"
    );
    assert!(
        v.contains("[+]poststarthook/bootstrap-namespaces ok"),
        "{v}"
    );
    assert!(v.ends_with("[+]shutdown ok\nreadyz check passed\n"), "{v}");
    assert!(!s.get("/livez?verbose").text().contains("shutdown"));
    let ex = s.get("/readyz?verbose&exclude=ping&exclude=nope").text();
    assert!(ex.contains("[+]ping excluded: ok"), "{ex}");
    assert!(
        ex.contains("warn: some health checks cannot be excluded: no matches for \"nope\""),
        "{ex}"
    );
    assert_eq!(s.get("/livez/ping").text(), "ok");
    assert_eq!(
        s.get("/readyz/poststarthook/start-namespace-controller")
            .status,
        200
    );
    assert_eq!(s.get("/readyz/nope").status, 404);
}

#[test]
fn unsafe_delete_option_follows_its_gate() {
    let off = Server::start(&[]);
    assert_eq!(off.post(EVENTS, &event("u", "r")).status, 201);
    let r = off.delete(&format!(
        "{EVENTS}/u?ignoreStoreReadErrorWithClusterBreakingPotential=true"
    ));
    assert_eq!(
        r.status,
        200,
        "without the gate the option is dropped: {}",
        r.text()
    );

    let on = Server::start(&["--feature-gates", "AllowUnsafeMalformedObjectDeletion=true"]);
    assert_eq!(on.post(EVENTS, &event("u", "r")).status, 201);
    let readable = on.delete(&format!(
        "{EVENTS}/u?ignoreStoreReadErrorWithClusterBreakingPotential=true"
    ));
    assert_eq!(status_of(&readable).0, 400);
    let combined = on.delete(&format!(
        "{EVENTS}/u?ignoreStoreReadErrorWithClusterBreakingPotential=true&dryRun=All"
    ));
    assert!(status_of(&combined).2.contains("cannot be combined"));
    assert_eq!(
        on.get(&format!("{EVENTS}/u")).status,
        200,
        "nothing was deleted"
    );
}

#[test]
fn managed_fields_are_kept_and_watch_covers_all_namespaces() {
    let s = Server::start(&[]);
    let mut w = s.watch("/api/v1/watch/events");
    let managed = json!([{"manager": "tester", "operation": "Update", "apiVersion": "v1", "time": "2024-05-01T10:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:reason": {}}}]);
    assert_eq!(s.post(EVENTS, &event("mf", "r")).status, 201);
    // A client may write managedFields itself (spec 4.6 rule 15).
    let edited = s.patch(
        &format!("{EVENTS}/mf"),
        "application/merge-patch+json",
        &json!({"metadata": {"managedFields": managed}}).to_string(),
    );
    assert_eq!(edited.json()["metadata"]["managedFields"], managed);
    assert_eq!(
        s.get(&format!("{EVENTS}/mf")).json()["metadata"]["managedFields"],
        managed
    );
    assert_eq!(
        s.post(
            "/api/v1/namespaces",
            &json!({"metadata": {"name": "other"}})
        )
        .status,
        201
    );
    assert_eq!(
        s.post("/api/v1/namespaces/other/events", &event("elsewhere", "r"))
            .status,
        201
    );
    let names: Vec<Value> = (0..3)
        .map(|_| w.next_event().expect("event")["object"]["metadata"]["name"].clone())
        .collect();
    assert_eq!(names, vec![json!("mf"), json!("mf"), json!("elsewhere")]);
}

#[test]
fn timestamps_are_written_as_kubernetes_writes_them() {
    let s = Server::start(&[]);
    let mut e = event("times", "r");
    e["firstTimestamp"] = json!("2024-05-01T12:00:00.9+02:00");
    e["eventTime"] = json!("2024-05-01T10:00:00.5Z");
    e["series"] = json!({"count": 2, "lastObservedTime": "2024-05-01T10:00:01Z"});
    let created = s.post(EVENTS, &e);
    assert_eq!(created.status, 201, "{}", created.text());
    let v = created.json();
    assert_eq!(v["firstTimestamp"], "2024-05-01T10:00:00Z");
    assert_eq!(v["eventTime"], "2024-05-01T10:00:00.500000Z");
    assert_eq!(
        v["series"]["lastObservedTime"],
        "2024-05-01T10:00:01.000000Z"
    );
    let mut bad = event("bad-time", "r");
    bad["lastTimestamp"] = json!("yesterday");
    assert_eq!(status_of(&s.post(EVENTS, &bad)).0, 400);
}
