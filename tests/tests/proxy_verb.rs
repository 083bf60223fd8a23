//! The proxy subresource (spec 4.2) on the real binary: `services`, `pods`
//! and `nodes` `/{name}[:port]/proxy/{path}` forwarded to an HTTP server the
//! test runs on loopback, reached through Endpoints, a pod IP and a node
//! address; methods, query strings and bodies passed on; kubectl's
//! `get --raw`; an unreachable target is a 503 Status; RBAC asks for the
//! `proxy` subresource with the method's verb.

use cairn_tests::clients::{kubectl, kubectl_present};
use cairn_tests::echo_server::{EchoServer, echo};
use cairn_tests::{Server, TlsClient, free_port, metrics_text, wait_until};
use serde_json::{Value, json};

fn create(s: &Server, path: &str, body: &Value) {
    let r = s.post(path, body);
    assert_eq!(r.status, 201, "POST {path}: {}", r.text());
}

/// A Service `name` with port 80 (named `http`) whose Endpoints point at
/// 127.0.0.1:`port`.
fn service_to(s: &Server, name: &str, port: u16) {
    create(
        s,
        "/api/v1/namespaces/default/services",
        &json!({"metadata": {"name": name}, "spec": {"ports": [{"name": "http", "port": 80}]}}),
    );
    create(
        s,
        "/api/v1/namespaces/default/endpoints",
        &json!({"metadata": {"name": name}, "subsets": [{
            "addresses": [{"ip": "127.0.0.1"}],
            "ports": [{"name": "http", "port": port}]}]}),
    );
}

#[test]
fn service_proxy_forwards_methods_paths_queries_and_bodies() {
    let backend = EchoServer::start(None, echo);
    let s = Server::start(&[]);
    service_to(&s, "web", backend.port);

    let r = s.get("/api/v1/namespaces/default/services/web:80/proxy/hello/there?a=1&b=two");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["target"], "/hello/there?a=1&b=two");
    assert_eq!(r.json()["method"], "GET");

    for method in ["POST", "PUT", "PATCH", "DELETE"] {
        let r = s.request(
            method,
            "/api/v1/namespaces/default/services/web:http/proxy/items?x=y",
            &[("Content-Type", "text/plain")],
            Some(b"payload"),
        );
        assert_eq!(r.status, 200, "{method}: {}", r.text());
        let doc = r.json();
        assert_eq!(doc["method"], method);
        assert_eq!(doc["target"], "/items?x=y");
        assert_eq!(doc["body"], "payload", "{method}");
    }
    // The caller's credentials stay with cairn.
    let _ = s.request(
        "GET",
        "/api/v1/namespaces/default/services/web:80/proxy/secret",
        &[("Authorization", "Bearer not-for-the-backend")],
        None,
    );
    let seen = backend.seen_at("/secret");
    assert_eq!(seen.len(), 1);
    assert!(seen[0].header_values("authorization").is_empty());
    // Kubernetes' proxy transport: the client appended to X-Forwarded-For,
    // the path asked of the API server as X-Forwarded-Uri.
    let _ = s.request(
        "GET",
        "/api/v1/namespaces/default/services/web:80/proxy/forwarded?q=1",
        &[("X-Forwarded-For", "192.0.2.1")],
        None,
    );
    let seen = backend.seen_at("/forwarded");
    assert_eq!(
        seen[0].header_values("x-forwarded-for"),
        ["192.0.2.1, 127.0.0.1"]
    );
    assert_eq!(
        seen[0].header_values("x-forwarded-uri"),
        ["/api/v1/namespaces/default/services/web:80/proxy/forwarded"]
    );
    // The backend's CORS headers stay behind; a redirect to its own paths
    // stays under the proxy path, one elsewhere is passed as it is.
    let r = s.get("/api/v1/namespaces/default/services/web:80/proxy/redirect/login?next=1");
    assert_eq!(r.status, 302);
    assert_eq!(
        r.header("location"),
        Some("/api/v1/namespaces/default/services/web:80/proxy/login?next=1")
    );
    assert_eq!(r.header("access-control-allow-origin"), None);
    let r = s.get("/api/v1/namespaces/default/services/web:80/proxy/redirecthttps://example.com/x");
    assert_eq!(r.header("location"), Some("https://example.com/x"));

    // Every proxied request is counted with kube's verb for it, CONNECT.
    wait_until("the proxied requests are counted", || {
        let page = s.get("/metrics").text();
        let connects = metrics_text::sum(
            &page,
            "apiserver_request_total",
            &[
                ("verb", "CONNECT"),
                ("resource", "services"),
                ("subresource", "proxy"),
                ("code", "200"),
            ],
        );
        connects >= 7.0
    });

    // No path: redirected to the trailing slash, as Kubernetes does.
    let r = s.get("/api/v1/namespaces/default/services/web:80/proxy");
    assert_eq!(r.status, 301);
    assert_eq!(
        r.header("location"),
        Some("/api/v1/namespaces/default/services/web:80/proxy/")
    );

    if kubectl_present() {
        let (ok, out) = kubectl(
            &s,
            &[
                "get",
                "--raw",
                "/api/v1/namespaces/default/services/web:80/proxy/hello",
            ],
            None,
        );
        assert!(ok, "{out}");
        assert!(out.contains("\"target\":\"/hello\""), "{out}");
    }
}

#[test]
fn unreachable_and_missing_targets_are_statuses() {
    let s = Server::start(&[]);
    let closed = free_port();
    service_to(&s, "gone", closed);
    let r = s.get("/api/v1/namespaces/default/services/gone:80/proxy/x");
    assert_eq!(r.status, 503, "{}", r.text());
    let doc = r.json();
    assert_eq!(doc["kind"], "Status");
    assert_eq!(doc["reason"], "ServiceUnavailable");
    let message = doc["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("error trying to reach service: dial tcp 127.0.0.1:"),
        "{message}"
    );
    assert!(
        message.ends_with("connect: connection refused"),
        "{message}"
    );

    // A port the Service does not have, a Service without endpoints.
    let r = s.get("/api/v1/namespaces/default/services/gone:81/proxy/x");
    assert_eq!(r.status, 503);
    assert_eq!(
        r.json()["message"],
        "no service port 81 found for service \"gone\""
    );
    create(
        &s,
        "/api/v1/namespaces/default/services",
        &json!({"metadata": {"name": "empty"}, "spec": {"ports": [{"port": 80}]}}),
    );
    create(
        &s,
        "/api/v1/namespaces/default/endpoints",
        &json!({"metadata": {"name": "empty"}}),
    );
    let r = s.get("/api/v1/namespaces/default/services/empty/proxy/");
    assert_eq!(r.status, 503);
    assert_eq!(
        r.json()["message"],
        "no endpoints available for service \"empty\""
    );
    // An ExternalName Service is a DNS name, not a backend: Kubernetes'
    // service proxy resolves only endpoints, so it has none to reach.
    create(
        &s,
        "/api/v1/namespaces/default/services",
        &json!({"metadata": {"name": "outside"},
            "spec": {"type": "ExternalName", "externalName": "example.com"}}),
    );
    let r = s.get("/api/v1/namespaces/default/services/outside/proxy/");
    assert_eq!(r.status, 503, "{}", r.text());
    assert_eq!(
        r.json()["message"],
        "no endpoints available for service \"outside\""
    );
    let r = s.get("/api/v1/namespaces/default/services/nothere/proxy/");
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["reason"], "NotFound");
    let r = s.get("/api/v1/namespaces/default/services/ftp:web:21/proxy/");
    assert_eq!(r.status, 400);
}

#[test]
fn pods_and_nodes_are_reached_at_their_addresses() {
    let backend = EchoServer::start(None, echo);
    let s = Server::start(&[]);
    create(
        &s,
        "/api/v1/namespaces/default/pods",
        &json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "i",
            "ports": [{"containerPort": backend.port}]}]}}),
    );
    // Before the pod has an IP there is nowhere to go.
    let r = s.get("/api/v1/namespaces/default/pods/p/proxy/x");
    assert_eq!(r.status, 400, "{}", r.text());
    let status = json!({"metadata": {"name": "p"}, "status": {"podIP": "127.0.0.1"}});
    let r = s.patch(
        "/api/v1/namespaces/default/pods/p/status",
        "application/merge-patch+json",
        &status.to_string(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    // No port: the first container port.
    let r = s.get("/api/v1/namespaces/default/pods/p/proxy/metrics?q=1");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["target"], "/metrics?q=1");
    let r = s.get(&format!(
        "/api/v1/namespaces/default/pods/http:p:{}/proxy/x",
        backend.port
    ));
    assert_eq!(r.json()["target"], "/x");

    create(
        &s,
        "/api/v1/nodes",
        &json!({"metadata": {"name": "n1"}, "status": {"addresses": [
            {"type": "Hostname", "address": "n1.example"},
            {"type": "InternalIP", "address": "127.0.0.1"}]}}),
    );
    let r = s.get(&format!("/api/v1/nodes/n1:{}/proxy/stats", backend.port));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["target"], "/stats");
}

#[test]
fn proxy_is_authorized_as_the_proxy_subresource() {
    let backend = EchoServer::start(None, echo);
    let dir = tempfile::tempdir().expect("tempdir");
    let tokens = dir.path().join("tokens.csv");
    std::fs::write(&tokens, "reader-token,reader,1\nproxier-token,proxier,2\n").expect("tokens");
    let s = Server::start_secure(&["--token-auth-file", tokens.to_str().expect("utf-8")]);
    let admin = s.admin_client();
    let json_type = [("Content-Type", "application/json")];
    let post = |path: &str, body: &Value| {
        let body = body.to_string();
        let r = s.https(&admin, "POST", path, &json_type, Some(body.as_bytes()));
        assert_eq!(r.status, 201, "POST {path}: {}", r.text());
    };
    post(
        "/api/v1/namespaces/default/services",
        &json!({"metadata": {"name": "web"}, "spec": {"ports": [{"port": 80}]}}),
    );
    post(
        "/api/v1/namespaces/default/endpoints",
        &json!({"metadata": {"name": "web"}, "subsets": [{
            "addresses": [{"ip": "127.0.0.1"}], "ports": [{"port": backend.port}]}]}),
    );
    post(
        "/apis/rbac.authorization.k8s.io/v1/clusterroles",
        &json!({"metadata": {"name": "service-proxy-get"}, "rules": [{
            "apiGroups": [""], "resources": ["services/proxy"], "verbs": ["get"]}]}),
    );
    s.grant(
        &json!({"kind": "User", "name": "reader"}),
        "view",
        ("get", "services"),
    );
    s.grant(
        &json!({"kind": "User", "name": "proxier"}),
        "service-proxy-get",
        ("get", "services/proxy"),
    );
    let client = TlsClient::new(&s.ca_pem(), None);
    let path = "/api/v1/namespaces/default/services/web/proxy/hi";
    let as_user = |token: &str, method: &str| {
        let bearer = format!("Bearer {token}");
        s.https(
            &client,
            method,
            path,
            &[("Authorization", bearer.as_str())],
            None,
        )
    };
    let r = as_user("reader-token", "GET");
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(
        r.json()["message"],
        "services \"web\" is forbidden: User \"reader\" cannot get resource \"services/proxy\" in API group \"\" in the namespace \"default\""
    );
    let r = as_user("proxier-token", "GET");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["target"], "/hi");
    // POST is `create` on services/proxy, which the role does not grant.
    let r = as_user("proxier-token", "POST");
    assert_eq!(r.status, 403, "{}", r.text());
}

/// Reads up to the blank line ending an HTTP head.
fn read_head(stream: &mut std::net::TcpStream) -> String {
    use std::io::Read;
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        assert_eq!(stream.read(&mut byte).expect("read"), 1, "closed early");
        head.push(byte[0]);
    }
    String::from_utf8_lossy(&head).into_owned()
}

#[test]
fn upgrades_are_spliced_both_ways() {
    use std::io::{Read, Write};
    // A backend that switches protocols, then answers bytes in upper case.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let backend_port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        let Some(Ok(mut stream)) = listener.incoming().next() else {
            return;
        };
        let head = read_head(&mut stream);
        assert!(
            head.to_ascii_lowercase().contains("upgrade: shout"),
            "{head}"
        );
        stream
            .write_all(b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: shout\r\n\r\n")
            .expect("write");
        let mut buf = [0u8; 64];
        while let Ok(n) = stream.read(&mut buf) {
            if n == 0 {
                return;
            }
            let loud = buf[..n].to_ascii_uppercase();
            if stream.write_all(&loud).is_err() {
                return;
            }
        }
    });
    let s = Server::start(&[]);
    service_to(&s, "loud", backend_port);
    let addr = s.url().trim_start_matches("http://").to_string();
    let mut client = std::net::TcpStream::connect(&addr).expect("connect");
    let request = format!(
        "GET /api/v1/namespaces/default/services/loud:80/proxy/ws HTTP/1.1\r\nHost: {addr}\r\nConnection: Upgrade\r\nUpgrade: shout\r\n\r\n"
    );
    client.write_all(request.as_bytes()).expect("write");
    let head = read_head(&mut client);
    assert!(head.starts_with("HTTP/1.1 101"), "{head}");
    for word in ["hello", "again"] {
        client.write_all(word.as_bytes()).expect("write");
        let mut answer = [0u8; 5];
        client.read_exact(&mut answer).expect("read");
        assert_eq!(&answer, word.to_ascii_uppercase().as_bytes());
    }
}
