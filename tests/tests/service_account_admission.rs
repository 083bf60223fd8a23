//! The ServiceAccount admission plugin and the root CA publisher on the
//! real binary: a pod runs as `default` when it names no account, mounts a
//! projected `kube-api-access-*` volume in every container, and what that
//! volume projects (a bound token as a kubelet requests it, `ca.crt` from
//! `kube-root-ca.crt`) lets kubectl call the API as the pod; missing
//! accounts are refused, automounting can be turned off by the pod or its
//! account, mirror pods are left alone, the published CA comes back when
//! deleted or changed, and the plugin can be disabled.

use cairn_tests::{
    Server, kubectl_admin, kubectl_as_bearer, kubectl_present, kubectl_with_kubeconfig,
    start_refused_with, wait_until,
};
use serde_json::{Value, json};

const MOUNT_PATH: &str = "/var/run/secrets/kubernetes.io/serviceaccount";
const PODS: &str = "/api/v1/namespaces/default/pods";

fn pod(name: &str, spec_extra: Value) -> Value {
    let mut pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
        "spec": {"containers": [{"name": "app", "image": "busybox"}]}});
    if let (Some(spec), Some(extra)) = (pod["spec"].as_object_mut(), spec_extra.as_object()) {
        spec.extend(extra.clone());
    }
    pod
}

fn root_ca(s: &Server, ns: &str) -> Option<Value> {
    let r = s.get(&format!(
        "/api/v1/namespaces/{ns}/configmaps/kube-root-ca.crt"
    ));
    (r.status == 200).then(|| r.json())
}

#[test]
fn a_pods_projected_volume_lets_kubectl_call_the_api_as_the_pod() {
    if !kubectl_present() {
        return;
    }
    let s = Server::start_secure(&[]);
    let manifest = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default"},
        "spec": {"initContainers": [{"name": "setup", "image": "busybox"}],
            "containers": [{"name": "app", "image": "nginx"}]}});
    // The default account is made by a controller at start; the plugin
    // waits for it briefly, as kube's does.
    let created: Value = serde_json::from_str(&kubectl_admin(
        &s,
        &["create", "-f", "-", "-o", "json"],
        Some(&manifest.to_string()),
    ))
    .expect("JSON");
    let spec = &created["spec"];
    assert_eq!(spec["serviceAccountName"], "default");
    let volume = spec["volumes"]
        .as_array()
        .and_then(|v| {
            v.iter().find(|v| {
                v["name"]
                    .as_str()
                    .is_some_and(|n| n.starts_with("kube-api-access-"))
            })
        })
        .cloned()
        .expect("the token volume");
    let name = volume["name"].clone();
    let sources = &volume["projected"]["sources"];
    assert_eq!(volume["projected"]["defaultMode"], 420);
    assert_eq!(
        sources[0],
        json!({"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}})
    );
    assert_eq!(
        sources[1],
        json!({"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}})
    );
    assert_eq!(
        sources[2]["downwardAPI"]["items"][0]["fieldRef"]["fieldPath"],
        "metadata.namespace"
    );
    let mount = json!({"name": name, "readOnly": true, "mountPath": MOUNT_PATH});
    assert_eq!(spec["containers"][0]["volumeMounts"], json!([mount]));
    assert_eq!(spec["initContainers"][0]["volumeMounts"], json!([mount]));

    // What a kubelet would write into the volume: the published CA, and a
    // token requested for the pod with the projection's lifetime.
    let published = || {
        let args = [
            "get",
            "configmap",
            "kube-root-ca.crt",
            "-o",
            "jsonpath={.data.ca\\.crt}",
        ];
        let (ok, out) = kubectl_with_kubeconfig(&s.admin_kubeconfig(), &args, None);
        ok.then_some(out)
    };
    wait_until("the root CA to be published", || published().is_some());
    let ca = published().expect("published");
    assert_eq!(ca, s.ca_pem());
    let dir = tempfile::tempdir().expect("tempdir");
    let ca_file = dir.path().join("ca.crt");
    std::fs::write(&ca_file, &ca).expect("write");
    let token = kubectl_admin(
        &s,
        &[
            "create",
            "token",
            "default",
            "--bound-object-kind",
            "Pod",
            "--bound-object-name",
            "web",
            "--duration",
            "3607s",
        ],
        None,
    );
    let (ok, out) = kubectl_as_bearer(
        &s,
        &ca_file,
        token.trim(),
        &["auth", "whoami", "-o", "json"],
    );
    assert!(ok, "{out}");
    let review: Value = serde_json::from_str(&out).expect("JSON");
    let user = &review["status"]["userInfo"];
    assert_eq!(user["username"], "system:serviceaccount:default:default");
    assert_eq!(
        user["extra"]["authentication.kubernetes.io/pod-name"],
        json!(["web"])
    );
}

#[test]
fn accounts_must_exist_automounting_can_be_off_and_mirror_pods_are_left_alone() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let r = s.post(PODS, &pod("lost", json!({"serviceAccountName": "nope"})));
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(
        r.json()["message"],
        "pods \"lost\" is forbidden: error looking up service account default/nope: serviceaccount \"nope\" not found"
    );

    let quiet = json!({"apiVersion": "v1", "kind": "ServiceAccount",
        "metadata": {"name": "quiet"}, "automountServiceAccountToken": false});
    assert_eq!(
        s.post("/api/v1/namespaces/default/serviceaccounts", &quiet)
            .status,
        201
    );
    for (name, extra) in [
        ("by-account", json!({"serviceAccountName": "quiet"})),
        ("by-pod", json!({"automountServiceAccountToken": false})),
    ] {
        let r = s.post(PODS, &pod(name, extra));
        assert_eq!(r.status, 201, "{}", r.text());
        let created = r.json();
        assert!(created["spec"].get("volumes").is_none(), "{created}");
        assert!(
            created["spec"]["containers"][0]
                .get("volumeMounts")
                .is_none(),
            "{created}"
        );
    }
    // The pod says yes although its account says no.
    let r = s.post(
        PODS,
        &pod(
            "overrides",
            json!({"serviceAccountName": "quiet", "automountServiceAccountToken": true}),
        ),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(
        r.json()["spec"]["volumes"].as_array().map(Vec::len),
        Some(1)
    );

    let mut mirror = pod("static", json!({}));
    mirror["metadata"]["annotations"] = json!({"kubernetes.io/config.mirror": "abc"});
    let r = s.post(PODS, &mirror);
    assert_eq!(r.status, 201, "{}", r.text());
    let created = r.json();
    assert!(
        created["spec"].get("serviceAccountName").is_none(),
        "{created}"
    );
    assert!(created["spec"].get("volumes").is_none(), "{created}");
    mirror["metadata"]["name"] = json!("static-with-account");
    mirror["spec"]["serviceAccountName"] = json!("default");
    let r = s.post(PODS, &mirror);
    assert_eq!(r.status, 403, "{}", r.text());
    assert!(
        r.text()
            .contains("a mirror pod may not reference service accounts"),
        "{}",
        r.text()
    );
}

#[test]
fn the_root_ca_is_published_in_every_namespace_and_kept() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}});
    assert_eq!(s.post("/api/v1/namespaces", &ns).status, 201);
    wait_until("kube-root-ca.crt in team", || root_ca(&s, "team").is_some());
    let published = root_ca(&s, "team").expect("published");
    let ca = published["data"]["ca.crt"].clone();
    let on_disk = std::fs::read_to_string(s.data_dir.join("pki/ca.crt")).expect("cluster CA");
    assert_eq!(ca, on_disk.as_str());
    assert!(
        published["metadata"]["annotations"]["kubernetes.io/description"]
            .as_str()
            .is_some_and(|d| d.starts_with("Contains a CA bundle")),
        "{published}"
    );
    let path = "/api/v1/namespaces/team/configmaps/kube-root-ca.crt";
    let mut changed = published.clone();
    changed["data"]["ca.crt"] = json!("tampered");
    assert_eq!(s.put(path, &changed).status, 200);
    wait_until("the CA put back", || {
        root_ca(&s, "team").is_some_and(|m| m["data"]["ca.crt"] == ca)
    });
    assert_eq!(s.delete(path).status, 200);
    wait_until("the CA published again", || {
        root_ca(&s, "team").is_some_and(|m| m["data"]["ca.crt"] == ca)
    });
}

#[test]
fn the_plugin_can_be_disabled_and_a_bad_root_ca_file_stops_the_start() {
    let s = Server::start(&[
        "--api-domain",
        "k8s.io",
        "--disable-admission-plugins",
        "ServiceAccount",
    ]);
    let r = s.post(PODS, &pod("plain", json!({"serviceAccountName": "nope"})));
    assert_eq!(r.status, 201, "{}", r.text());
    assert!(r.json()["spec"].get("volumes").is_none());

    let dir = tempfile::tempdir().expect("tempdir");
    let not_pem = dir.path().join("ca.txt");
    std::fs::write(&not_pem, "hello").expect("write");
    let line = start_refused_with(&["--root-ca-file", &not_pem.display().to_string()]);
    assert!(
        line.contains("root-ca-file") && line.ends_with("holds no PEM certificate"),
        "{line}"
    );
}
