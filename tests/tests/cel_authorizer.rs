//! The CEL authorizer library in a CRD's validation rules, on the real
//! binary's secure port with RBAC: a rule that lets a Note name a config
//! map only when its writer may read that config map. Two token users may
//! both write Notes; only one is granted `view` in the namespace. Also: a
//! rule misusing the library is refused when the CRD is created.

use std::io::Write;
use std::process::Stdio;

use cairn_tests::{Server, TlsClient, kubectl_present, wait_until};
use serde_json::{Value, json};

const TOKENS: &str = "alice-token,alice,1001,\"devs\"\nbob-token,bob,1002,\"devs\"\n";
const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const NOTES: &str = "/apis/example.com/v1/namespaces/team/notes";
const RULE: &str = "authorizer.group('').resource('configmaps').namespace(self.targetNamespace).name(self.configMap).check('get').allowed()";

/// Who sends a request: the admin (system:masters) or a token user.
enum As<'a> {
    Admin,
    Token(&'a str),
}

struct Cluster {
    server: Server,
    admin: TlsClient,
    anyone: TlsClient,
    dir: tempfile::TempDir,
}

impl Cluster {
    fn start() -> Cluster {
        let dir = tempfile::tempdir().expect("tempdir");
        let tokens = dir.path().join("tokens.csv");
        std::fs::write(&tokens, TOKENS).expect("token file");
        let server = Server::start_secure(&[
            "--token-auth-file",
            tokens.to_str().expect("utf-8 path"),
            "--authorization-mode",
            "RBAC",
        ]);
        Cluster {
            admin: server.admin_client(),
            anyone: server.tls_client(None),
            server,
            dir,
        }
    }

    fn call(&self, who: &As<'_>, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
        let bearer;
        let mut headers = vec![("Content-Type", "application/json")];
        let client = match who {
            As::Admin => &self.admin,
            As::Token(token) => {
                bearer = format!("Bearer {token}");
                headers.push(("Authorization", &bearer));
                &self.anyone
            }
        };
        let bytes = body.map(|b| serde_json::to_vec(b).expect("json"));
        let r = self
            .server
            .https(client, method, path, &headers, bytes.as_deref());
        let json = if r.text().is_empty() {
            Value::Null
        } else {
            r.json()
        };
        (r.status, json)
    }

    fn create(&self, who: &As<'_>, path: &str, body: &Value) -> (u16, Value) {
        self.call(who, "POST", path, Some(body))
    }

    /// `kubectl create -f -` of `object` in `team` with a bearer token:
    /// whether it succeeded, and what it printed.
    fn kubectl_create(&self, token: &str, object: &Value) -> (bool, String) {
        let ca = self.dir.path().join("ca.crt");
        std::fs::write(&ca, self.server.ca_pem()).expect("ca file");
        let mut kubectl = cairn_tests::clients::kubectl_command(&self.server);
        let mut child = kubectl
            .arg("--server")
            .arg(self.server.https_url())
            .arg("--certificate-authority")
            .arg(&ca)
            .args(["--token", token, "-n", "team", "create", "-f", "-"])
            .env("KUBECONFIG", "/dev/null")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("kubectl");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(object.to_string().as_bytes())
            .expect("kubectl stdin");
        let out = child.wait_with_output().expect("kubectl");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), text)
    }

    fn admin_creates(&self, path: &str, body: &Value) {
        let (status, answer) = self.create(&As::Admin, path, body);
        assert_eq!(status, 201, "{path}: {answer}");
    }
}

fn crd(rule: &str) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "notes.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "notes", "singular": "note", "kind": "Note"},
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                "type": "object",
                "properties": {"spec": {
                    "type": "object",
                    "properties": {
                        "targetNamespace": {"type": "string", "maxLength": 63},
                        "configMap": {"type": "string", "maxLength": 253}
                    },
                    "x-kubernetes-validations": [{"rule": rule, "message": "the writer may not read this config map"}]
                }}
            }}}]
        }
    })
}

fn note(name: &str, namespace: &str, config_map: &str) -> Value {
    json!({
        "apiVersion": "example.com/v1", "kind": "Note", "metadata": {"name": name},
        "spec": {"targetNamespace": namespace, "configMap": config_map}
    })
}

/// A Role in `team` allowing `verbs` on Notes.
fn note_role(name: &str, verbs: Value) -> Value {
    json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
        "metadata": {"name": name, "namespace": "team"},
        "rules": [{"apiGroups": ["example.com"], "resources": ["notes"], "verbs": verbs}]
    })
}

fn binding(name: &str, role_kind: &str, role: &str, users: &[&str]) -> Value {
    let subjects: Vec<Value> = users
        .iter()
        .map(|u| json!({"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": u}))
        .collect();
    json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": name, "namespace": "team"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind, "name": role},
        "subjects": subjects
    })
}

const RBAC: &str = "/apis/rbac.authorization.k8s.io/v1/namespaces/team";

#[test]
fn a_rule_checks_what_the_writer_may_do() {
    let c = Cluster::start();
    c.admin_creates(
        "/api/v1/namespaces",
        &json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}),
    );
    c.admin_creates(CRDS, &crd(RULE));
    // Both may write Notes; only alice may read config maps in `team`
    // (the bootstrap policy's `view`, bound in that namespace).
    c.admin_creates(
        &format!("{RBAC}/roles"),
        &note_role("note-writer", json!(["create", "update", "get", "list"])),
    );
    c.admin_creates(
        &format!("{RBAC}/rolebindings"),
        &binding("note-writers", "Role", "note-writer", &["alice", "bob"]),
    );
    c.admin_creates(
        &format!("{RBAC}/rolebindings"),
        &binding("viewers", "ClusterRole", "view", &["alice"]),
    );
    let alice = As::Token("alice-token");
    let bob = As::Token("bob-token");
    wait_until("the Notes to be served and the roles in force", || {
        c.call(&bob, "GET", NOTES, None).0 == 200
            && c.call(
                &alice,
                "GET",
                "/api/v1/namespaces/team/configmaps/settings",
                None,
            )
            .0 == 404
    });

    // bob may write Notes but not read the config map: the rule refuses.
    let (status, refused) = c.create(&bob, NOTES, &note("n1", "team", "settings"));
    assert_eq!(status, 422, "{refused}");
    assert_eq!(refused["reason"], "Invalid");
    assert_eq!(
        refused["message"],
        "Note.example.com \"n1\" is invalid: spec: Invalid value: \"object\": the writer may not read this config map"
    );
    assert_eq!(refused["details"]["causes"][0]["field"], "spec");
    assert_eq!(c.call(&bob, "GET", &format!("{NOTES}/n1"), None).0, 404);

    // alice may: the same Note is created.
    let (status, created) = c.create(&alice, NOTES, &note("n1", "team", "settings"));
    assert_eq!(status, 201, "{created}");

    // An update is checked as its own writer: alice may not read config
    // maps elsewhere.
    let mut moved = created.clone();
    moved["spec"]["targetNamespace"] = json!("other");
    let (status, refused) = c.call(&alice, "PUT", &format!("{NOTES}/n1"), Some(&moved));
    assert_eq!(status, 422, "{refused}");
    // Dry-run writes are checked the same way.
    let (status, _) = c.create(
        &bob,
        &format!("{NOTES}?dryRun=All"),
        &note("n2", "team", "x"),
    );
    assert_eq!(status, 422);

    // system:masters may read anything, so the admin's Note passes.
    c.admin_creates(NOTES, &note("n3", "other", "anything"));

    if kubectl_present() {
        let (ok, out) = c.kubectl_create("bob-token", &note("k1", "team", "settings"));
        assert!(!ok, "{out}");
        assert!(
            out.contains("The Note \"k1\" is invalid: spec: Invalid value: \"object\": the writer may not read this config map"),
            "{out}"
        );
        let (ok, out) = c.kubectl_create("alice-token", &note("k1", "team", "settings"));
        assert!(ok && out.contains("note.example.com/k1 created"), "{out}");
    }
}

#[test]
fn a_rule_misusing_the_library_is_refused_with_the_crd() {
    let c = Cluster::start();
    for (rule, message) in [
        (
            "authorizer.resource('configmaps').check('get').allowed()",
            "found no matching overload for 'resource' applied to 'kubernetes.authorization.Authorizer.(string)'",
        ),
        (
            &*[RULE; 29].join(" && "),
            "estimated rule cost exceeds budget",
        ),
    ] {
        let (status, refused) = c.create(&As::Admin, CRDS, &crd(rule));
        assert_eq!(status, 422, "{refused}");
        let text = refused["message"].as_str().expect("a message");
        assert!(text.contains(message), "{text}");
    }
}
