//! The secure port as a user meets it: no flags but a data directory, HTTPS
//! with a generated CA and serving certificate, an admin kubeconfig that
//! kubectl uses at once, client certificates as identities, and every bad
//! certificate refused with a 401 that changes nothing.

use std::os::unix::fs::PermissionsExt;

use cairn_tests::tls::make::{self, Leaf};
use cairn_tests::tls::negotiated_protocol;
use cairn_tests::{Identity, Server, kubectl_present, kubectl_with_kubeconfig};
use serde_json::json;

fn cluster_ca(s: &Server) -> Identity {
    Identity {
        cert_pem: s.ca_pem(),
        key_pem: std::fs::read_to_string(s.data_dir.join("pki/ca.key")).expect("ca.key"),
    }
}

fn create_config_map(s: &Server, client: &cairn_tests::TlsClient, name: &str) -> u16 {
    let body = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}});
    let bytes = serde_json::to_vec(&body).expect("json");
    s.https(
        client,
        "POST",
        "/api/v1/namespaces/default/configmaps",
        &[("Content-Type", "application/json")],
        Some(&bytes),
    )
    .status
}

fn exists(s: &Server, name: &str) -> bool {
    let path = format!("/api/v1/namespaces/default/configmaps/{name}");
    s.https(&s.admin_client(), "GET", &path, &[], None).status == 200
}

#[test]
fn first_start_writes_a_working_admin_kubeconfig_and_serves_http2() {
    let s = Server::start_secure(&[]);
    let kubeconfig = s.admin_kubeconfig();
    let mode = std::fs::metadata(&kubeconfig)
        .expect("kubeconfig")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "admin.kubeconfig is private");
    for key in ["pki/ca.key", "pki/serving.key"] {
        let mode = std::fs::metadata(s.data_dir.join(key))
            .expect(key)
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{key} is private");
    }
    assert!(
        !s.log_text().contains("serving plain HTTP"),
        "the plain-HTTP port is off by default"
    );

    let admin = s.admin_client();
    let r = s.https(&admin, "GET", "/api/v1/namespaces", &[], None);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(create_config_map(&s, &admin, "by-admin"), 201);

    let ca = s.ca_pem();
    let h2: &[u8] = b"h2";
    let h1: &[u8] = b"http/1.1";
    assert_eq!(
        negotiated_protocol(s.https_port(), &ca, &[h2, h1]).as_deref(),
        Some(h2)
    );
    assert_eq!(
        negotiated_protocol(s.https_port(), &ca, &[h1]).as_deref(),
        Some(h1)
    );

    if !kubectl_present() {
        return;
    }
    let (ok, out) = kubectl_with_kubeconfig(&kubeconfig, &["get", "ns", "-o", "name"], None);
    assert!(ok && out.contains("namespace/default"), "{out}");
    let manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: default\ndata:\n  a: b\n";
    let (ok, out) = kubectl_with_kubeconfig(&kubeconfig, &["apply", "-f", "-"], Some(manifest));
    assert!(ok, "{out}");
    let (ok, out) = kubectl_with_kubeconfig(
        &kubeconfig,
        &[
            "create",
            "configmap",
            "created",
            "--from-literal",
            "x=y",
            "-n",
            "default",
        ],
        None,
    );
    assert!(ok, "{out}");
    let (ok, out) = kubectl_with_kubeconfig(
        &kubeconfig,
        &[
            "get",
            "configmaps",
            "-n",
            "default",
            "--watch",
            "--request-timeout",
            "2s",
            "-o",
            "name",
        ],
        None,
    );
    assert!(
        out.contains("configmap/applied") && out.contains("configmap/created"),
        "{ok} {out}"
    );
    let (ok, out) =
        kubectl_with_kubeconfig(&kubeconfig, &["get", "--raw", "/version", "-v", "6"], None);
    assert!(ok, "{out}");
}

#[test]
fn client_certificates_name_the_user_and_bad_ones_are_refused() {
    let s = Server::start_secure(&[]);
    s.grant(
        &serde_json::json!({"kind": "User", "name": "alice"}),
        "edit",
        ("create", "configmaps"),
    );
    let ca = cluster_ca(&s);
    let alice = make::signed(
        &ca,
        &Leaf {
            organization: Some("devs"),
            ..Leaf::client("alice")
        },
    );
    assert_eq!(
        create_config_map(&s, &s.tls_client(Some(&alice)), "by-alice"),
        201
    );

    let other_ca = make::ca("someone-else");
    let refused = [
        (
            "another CA",
            make::signed(&other_ca, &Leaf::client("mallory")),
        ),
        (
            "expired",
            make::signed(
                &ca,
                &Leaf {
                    from: time::Duration::days(-10),
                    until: time::Duration::days(-1),
                    ..Leaf::client("late")
                },
            ),
        ),
        (
            "not yet valid",
            make::signed(
                &ca,
                &Leaf {
                    from: time::Duration::days(1),
                    until: time::Duration::days(10),
                    ..Leaf::client("early")
                },
            ),
        ),
    ];
    for (why, identity) in &refused {
        let name = format!("refused-{}", why.replace(' ', "-"));
        let client = s.tls_client(Some(identity));
        assert_eq!(create_config_map(&s, &client, &name), 401, "{why}");
        let r = s.https(&client, "GET", "/api/v1/namespaces", &[], None);
        assert_eq!(r.status, 401, "{why}");
        let status = r.json();
        assert_eq!(
            (status["reason"].as_str(), status["message"].as_str()),
            (Some("Unauthorized"), Some("Unauthorized")),
            "a 401 says nothing of which check failed"
        );
        assert!(!exists(&s, &name), "{why}: nothing was created");
    }
    // The log says which check failed, and never carries key material.
    let log = s.log_text();
    assert!(!log.contains("PRIVATE KEY"), "{log}");
}

#[test]
fn restarts_reuse_the_material_and_renew_what_no_longer_fits() {
    let mut s = Server::start_secure(&[]);
    let read = |s: &Server, f: &str| std::fs::read(s.data_dir.join(f)).expect(f);
    let (ca, serving, kubeconfig) = (
        read(&s, "pki/ca.crt"),
        read(&s, "pki/serving.crt"),
        read(&s, "admin.kubeconfig"),
    );
    assert_eq!(s.stop(), Some(0));
    let port = s.https_port();
    let data_dir = s.data_dir.clone();
    let again = Server::start_secure_on(&data_dir, &["--secure-port", &port.to_string()]);
    assert_eq!(read(&again, "pki/ca.crt"), ca, "the CA is kept");
    assert_eq!(
        read(&again, "pki/serving.crt"),
        serving,
        "the serving certificate is kept"
    );
    assert_eq!(
        read(&again, "admin.kubeconfig"),
        kubeconfig,
        "the kubeconfig is kept"
    );
    drop(again);

    // A name the serving certificate lacks makes a new one from the same CA.
    let renewed =
        Server::start_secure_on(&data_dir, &["--tls-sans", "cairn.example.test,10.9.8.7"]);
    assert_eq!(read(&renewed, "pki/ca.crt"), ca);
    assert_ne!(read(&renewed, "pki/serving.crt"), serving);
    let admin = renewed.admin_client();
    let r = renewed.https(&admin, "GET", "/api", &[], None);
    assert_eq!(
        r.status,
        200,
        "the kubeconfig follows the new port: {}",
        r.text()
    );
}

#[test]
fn a_given_serving_certificate_is_served() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ca = make::ca("my-ca");
    let serving = make::signed(
        &ca,
        &Leaf {
            dns_or_ip: &["127.0.0.1"],
            ..Leaf::client("my-apiserver")
        },
    );
    let (cert, key) = (dir.path().join("tls.crt"), dir.path().join("tls.key"));
    std::fs::write(&cert, &serving.cert_pem).expect("cert");
    std::fs::write(&key, &serving.key_pem).expect("key");
    let s = Server::start_secure(&[
        "--tls-cert-file",
        cert.to_str().expect("path"),
        "--tls-private-key-file",
        key.to_str().expect("path"),
    ]);
    let admin_cert = make::signed(
        &cluster_ca(&s),
        &Leaf {
            organization: Some("system:masters"),
            ..Leaf::client("root")
        },
    );
    let client = cairn_tests::TlsClient::new(&ca.cert_pem, Some(&admin_cert));
    let r = s.https(&client, "GET", "/api/v1/namespaces", &[], None);
    assert_eq!(r.status, 200, "{}", r.text());
}

#[test]
fn bad_serving_material_stops_the_start_with_one_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let garbage = dir.path().join("garbage.pem");
    std::fs::write(&garbage, "not a certificate\n").expect("write");
    let g = garbage.to_str().expect("path");
    let cases: [(&[&str], &str); 3] = [
        (
            &["--tls-cert-file", g, "--tls-private-key-file", g],
            "garbage.pem",
        ),
        (&["--tls-cert-file", g], "--tls-private-key-file"),
        (
            &["--client-ca-file", "/nonexistent/ca.crt"],
            "/nonexistent/ca.crt",
        ),
    ];
    for (args, named) in cases {
        let out = std::process::Command::new(cairn_tests::binary())
            .arg("--data-dir")
            .arg(dir.path().join("data"))
            .args(["--secure-port", &cairn_tests::free_port().to_string()])
            .args(args)
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let error_lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
        assert!(!out.status.success(), "{args:?}: {stderr}");
        assert_eq!(error_lines.len(), 1, "{args:?}: {stderr}");
        assert!(error_lines[0].contains(named), "{args:?}: {stderr}");
    }
}

#[test]
fn the_python_client_uses_the_admin_kubeconfig() {
    let s = Server::start_secure(&[]);
    let kubeconfig = s.admin_kubeconfig();
    cairn_tests::run_python_against(
        &s,
        "tls_identities.py",
        &[kubeconfig.to_str().expect("path")],
    );
}
