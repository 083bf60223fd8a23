//! Real clients against the real binary: the official Python `kubernetes`
//! client and kubectl. Each is skipped, with a message, when not installed
//! (the README's test command installs the Python client into `.venv`).

use std::process::Command;

use cairn_tests::{Server, kubectl, kubectl_present, run_python_script};

#[test]
fn python_kubernetes_client_core_v1() {
    run_python_script("core_v1.py", &[]);
}

#[test]
fn python_kubernetes_client_custom_objects_and_core_kinds() {
    run_python_script("kinds.py", &["--api-domain", "k8s.io"]);
}

#[test]
fn kubectl_events_and_namespaces() {
    if !kubectl_present() {
        return;
    }
    let s = Server::start(&[]);
    let (ok, out) = kubectl(&s, &["get", "namespaces"], None);
    assert!(ok && out.contains("kube-system"), "{out}");
    let ns = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kc\n";
    let (ok, out) = kubectl(&s, &["create", "-f", "-"], Some(ns));
    assert!(ok && out.contains("namespace/kc created"), "{out}");
    let ev = "apiVersion: v1\nkind: Event\nmetadata:\n  name: kc-ev\n  namespace: kc\ninvolvedObject:\n  kind: Pod\n  name: web\nreason: FromKubectl\nmessage: hi\ntype: Normal\n";
    let (ok, out) = kubectl(&s, &["create", "-f", "-"], Some(ev));
    assert!(ok && out.contains("event/kc-ev created"), "{out}");
    // The server's Event table: names are a wide column, the object is kind/name.
    let (ok, out) = kubectl(&s, &["get", "events", "-n", "kc"], None);
    assert!(
        ok && out.contains("FromKubectl") && out.contains("pod/web"),
        "{out}"
    );
    let (ok, out) = kubectl(
        &s,
        &["get", "event", "kc-ev", "-n", "kc", "-o", "yaml"],
        None,
    );
    assert!(
        ok && out.contains("reason: FromKubectl") && out.contains("resourceVersion:"),
        "{out}"
    );
    let (ok, out) = kubectl(&s, &["get", "events", "-A", "-o", "name"], None);
    assert!(ok && out.contains("event/kc-ev"), "{out}");
    // get --watch lists, then sees a change.
    let watcher = Command::new("kubectl")
        .args([
            "--server",
            &s.url(),
            "get",
            "events",
            "-n",
            "kc",
            "--watch",
            "--request-timeout=4s",
            "-o",
            "name",
        ])
        .env("KUBECONFIG", "/dev/null")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("kubectl get --watch");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let ev2 = ev.replace("kc-ev", "kc-ev2");
    let (ok, out) = kubectl(&s, &["create", "-f", "-"], Some(&ev2));
    assert!(ok, "{out}");
    let watched = watcher.wait_with_output().expect("watch output");
    let watched = String::from_utf8_lossy(&watched.stdout);
    assert!(
        watched.contains("event/kc-ev\n") && watched.contains("event/kc-ev2"),
        "{watched}"
    );
    let (ok, out) = kubectl(&s, &["delete", "event", "kc-ev", "-n", "kc"], None);
    assert!(ok && out.contains("deleted"), "{out}");
    let (ok, out) = kubectl(&s, &["delete", "namespace", "kc"], None);
    assert!(ok && out.contains("namespace \"kc\" deleted"), "{out}");
    let (ok, out) = kubectl(&s, &["get", "namespace", "kc"], None);
    assert!(!ok && out.contains("NotFound"), "{out}");
}

const CRONTAB_CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames: [ct]
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - name: Spec
      type: string
      jsonPath: .spec.cronSpec
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              cronSpec: {type: string}
              image: {type: string}
";

#[test]
fn kubectl_applies_a_crd_and_its_objects() {
    if !kubectl_present() {
        return;
    }
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let (ok, out) = kubectl(&s, &["apply", "-f", "-"], Some(CRONTAB_CRD));
    assert!(
        ok && out.contains(
            "customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created"
        ),
        "{out}"
    );
    let (ok, out) = kubectl(
        &s,
        &[
            "wait",
            "--for=condition=Established",
            "crd/crontabs.stable.example.com",
            "--timeout=10s",
        ],
        None,
    );
    assert!(ok, "{out}");
    let object = "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: nightly\nspec:\n  cronSpec: \"0 3 * * *\"\n  image: backup\n";
    let (ok, out) = kubectl(&s, &["apply", "-f", "-"], Some(object));
    assert!(
        ok && out.contains("crontab.stable.example.com/nightly created"),
        "{out}"
    );
    let (ok, out) = kubectl(&s, &["get", "ct", "-o", "name"], None);
    assert!(
        ok && out.contains("crontab.stable.example.com/nightly"),
        "{out}"
    );
    let (ok, out) = kubectl(
        &s,
        &[
            "get",
            "crontabs",
            "nightly",
            "-o",
            "jsonpath={.spec.cronSpec}",
        ],
        None,
    );
    assert!(ok && out == "0 3 * * *", "{out}");
    // Re-applying a change updates the object (client-side apply: a patch).
    let changed = object.replace("backup", "backup:v2");
    let (ok, out) = kubectl(&s, &["apply", "-f", "-"], Some(&changed));
    assert!(ok && out.contains("configured"), "{out}");
    let (ok, out) = kubectl(
        &s,
        &[
            "get",
            "ct",
            "nightly",
            "-o",
            "jsonpath={.spec.image} {.metadata.generation}",
        ],
        None,
    );
    assert!(ok && out == "backup:v2 2", "{out}");
    let (ok, out) = kubectl(
        &s,
        &["api-resources", "--api-group=stable.example.com"],
        None,
    );
    assert!(
        ok && out.contains("crontabs") && out.contains("ct"),
        "{out}"
    );
    let (ok, out) = kubectl(&s, &["delete", "crd", "crontabs.stable.example.com"], None);
    assert!(ok && out.contains("deleted"), "{out}");
    let (ok, out) = kubectl(&s, &["get", "crontabs"], None);
    assert!(!ok, "{out}");
}
