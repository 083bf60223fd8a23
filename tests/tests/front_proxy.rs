//! Front-proxy authentication (`--requestheader-*`): a client certificate
//! from the test's own front-proxy CA, with an allowed CommonName, makes
//! the request the user of its `X-Remote-*` headers; a certificate of
//! another CA or CommonName does not. The ConfigMap
//! `kube-system/extension-apiserver-authentication` publishes the CAs and
//! headers, and its reader Role exists.

use cairn_tests::tls::make::{self, Leaf};
use cairn_tests::{Identity, Server, wait_until};
use serde_json::Value;

struct Proxy {
    server: Server,
    proxy_ca: Identity,
    _dir: tempfile::TempDir,
}

fn start() -> Proxy {
    let dir = tempfile::tempdir().expect("tempdir");
    let proxy_ca = make::ca("front-proxy-ca");
    let ca_file = dir.path().join("front-proxy-ca.crt");
    std::fs::write(&ca_file, &proxy_ca.cert_pem).expect("ca file");
    let server = Server::start_secure(&[
        "--api-domain",
        "k8s.io",
        "--requestheader-client-ca-file",
        ca_file.to_str().expect("utf-8"),
        "--requestheader-allowed-names",
        "front-proxy-client,aggregator",
        "--requestheader-username-headers",
        "X-Remote-User",
        "--requestheader-group-headers",
        "X-Remote-Group",
        "--requestheader-extra-headers-prefix",
        "X-Remote-Extra-",
    ]);
    Proxy {
        server,
        proxy_ca,
        _dir: dir,
    }
}

/// Who the server takes a request from `identity` with `headers` for.
fn whoami(p: &Proxy, identity: &Identity, headers: &[(&str, &str)]) -> (u16, Value) {
    let client = p.server.tls_client(Some(identity));
    let body = br#"{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}"#;
    let mut all = vec![("Content-Type", "application/json")];
    all.extend_from_slice(headers);
    let r = p.server.https(
        &client,
        "POST",
        "/apis/authentication.k8s.io/v1/selfsubjectreviews",
        &all,
        Some(body),
    );
    let value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
    (r.status, value)
}

const JANE: &[(&str, &str)] = &[
    ("X-Remote-User", "jane"),
    ("X-Remote-Group", "devs"),
    ("X-Remote-Group", "ops"),
    ("X-Remote-Extra-Example.com%2Fteam", "blue"),
];

#[test]
fn the_front_proxy_names_the_user_in_headers() {
    let p = start();
    let proxy = make::signed(&p.proxy_ca, &Leaf::client("front-proxy-client"));
    let (status, me) = whoami(&p, &proxy, JANE);
    assert_eq!(status, 201, "{me}");
    let user = &me["status"]["userInfo"];
    assert_eq!(user["username"], "jane");
    let groups: Vec<&str> = user["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(groups, ["devs", "ops", "system:authenticated"]);
    assert_eq!(user["extra"]["example.com/team"][0], "blue");

    // Without a username header the proxy's certificate names nobody here
    // (and its CA is not the client CA).
    let (status, _) = whoami(&p, &proxy, &[]);
    assert_eq!(status, 401);

    // A CommonName not allowed, or another CA: not jane.
    let stranger = make::signed(&p.proxy_ca, &Leaf::client("someone-else"));
    let (status, me) = whoami(&p, &stranger, JANE);
    assert_eq!(status, 401, "{me}");
    let other_ca = make::ca("other-ca");
    let forged = make::signed(&other_ca, &Leaf::client("front-proxy-client"));
    let (status, me) = whoami(&p, &forged, JANE);
    assert_eq!(status, 401, "{me}");

    // A client certificate of the cluster CA is still its own subject; the
    // headers are not believed from it.
    let (ca_pem, admin) = cairn_tests::tls::kubeconfig_identity(&p.server.admin_kubeconfig());
    let _ = ca_pem;
    let (status, me) = whoami(&p, &admin, JANE);
    assert_eq!(status, 201, "{me}");
    assert_ne!(me["status"]["userInfo"]["username"], "jane");
}

#[test]
fn extension_apiserver_authentication_is_published() {
    let p = start();
    let admin = p.server.admin_client();
    let get = |path: &str| p.server.https(&admin, "GET", path, &[], None);
    let path = "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication";
    wait_until("the ConfigMap", || get(path).status == 200);
    let data = get(path).json()["data"].clone();
    assert_eq!(data["client-ca-file"], p.server.ca_pem().as_str());
    assert_eq!(
        data["requestheader-client-ca-file"],
        p.proxy_ca.cert_pem.as_str()
    );
    assert_eq!(
        data["requestheader-allowed-names"],
        "[\"front-proxy-client\",\"aggregator\"]"
    );
    assert_eq!(
        data["requestheader-username-headers"],
        "[\"X-Remote-User\"]"
    );
    assert_eq!(data["requestheader-group-headers"], "[\"X-Remote-Group\"]");
    assert_eq!(
        data["requestheader-extra-headers-prefix"],
        "[\"X-Remote-Extra-\"]"
    );
    assert_eq!(data["requestheader-uid-headers"], "[]");

    // Edited: put back.
    let patch = br#"{"data":{"client-ca-file":"tampered"}}"#;
    let r = p.server.https(
        &admin,
        "PATCH",
        path,
        &[("Content-Type", "application/merge-patch+json")],
        Some(patch),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    wait_until("the ConfigMap put back", || {
        get(path).json()["data"]["client-ca-file"] == p.server.ca_pem().as_str()
    });

    let role = "/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/roles/extension-apiserver-authentication-reader";
    wait_until("the reader Role", || get(role).status == 200);
    let rules = get(role).json()["rules"].clone();
    assert_eq!(
        rules[0]["resourceNames"][0],
        "extension-apiserver-authentication"
    );
}

#[test]
fn identity_headers_stop_at_this_server() {
    let p = start();
    let backend = cairn_tests::echo_server::EchoServer::start(None, cairn_tests::echo_server::echo);
    let admin = p.server.admin_client();
    let post = |path: &str, body: String| {
        let r = p.server.https(
            &admin,
            "POST",
            path,
            &[("Content-Type", "application/json")],
            Some(body.as_bytes()),
        );
        assert_eq!(r.status, 201, "POST {path}: {}", r.text());
    };
    post(
        "/api/v1/namespaces/default/services",
        r#"{"metadata":{"name":"web"},"spec":{"ports":[{"name":"http","port":80}]}}"#.into(),
    );
    post(
        "/api/v1/namespaces/default/endpoints",
        format!(
            r#"{{"metadata":{{"name":"web"}},"subsets":[{{"addresses":[{{"ip":"127.0.0.1"}}],"ports":[{{"name":"http","port":{}}}]}}]}}"#,
            backend.port
        ),
    );
    // The front proxy names a cluster admin; the service behind the proxy
    // verb hears nothing of who that was.
    let proxy = make::signed(&p.proxy_ca, &Leaf::client("front-proxy-client"));
    let client = p.server.tls_client(Some(&proxy));
    let r = p.server.https(
        &client,
        "GET",
        "/api/v1/namespaces/default/services/web:80/proxy/who",
        &[
            ("X-Remote-User", "jane"),
            ("X-Remote-Group", "system:masters"),
            ("X-Remote-Extra-Scopes", "all"),
        ],
        None,
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let seen = backend.seen_at("/who");
    assert_eq!(seen.len(), 1);
    for header in ["x-remote-user", "x-remote-group", "x-remote-extra-scopes"] {
        assert!(
            seen[0].header_values(header).is_empty(),
            "{header} reached the service"
        );
    }
}
