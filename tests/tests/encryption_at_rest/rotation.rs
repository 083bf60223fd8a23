//! Key rotation as Kubernetes documents it, with kubectl: add the new key
//! second, restart; move it first, restart; rewrite every Secret
//! (`kubectl get secrets -A -o json | kubectl replace -f -`); remove the
//! old key, restart: everything is still readable.

use cairn_tests::clients::{kubectl, kubectl_present};

use super::{
    KEY_A, KEY_B, PLAINTEXT, create_namespace, keyed, secret, secrets, start, stored, token,
    write_config,
};

#[test]
fn rotation_with_kubectl_keeps_every_secret_readable() {
    if !kubectl_present() {
        eprintln!("kubectl not installed: skipped");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let old = keyed("aescbc", "old", KEY_A);
    let new = keyed("aescbc", "new", KEY_B);
    let config = write_config(dir.path(), &old);
    let mut s = start(&data, &config, &[]);
    create_namespace(&s, "team");
    for (ns, name) in [("default", "a"), ("team", "b")] {
        assert_eq!(s.post(&secrets(ns), &secret(name, PLAINTEXT)).status, 201);
    }
    s.stop();

    write_config(dir.path(), &format!("{old}{new}"));
    let mut s = start(&data, &config, &[]);
    s.stop();
    write_config(dir.path(), &format!("{new}{old}"));
    let mut s = start(&data, &config, &[]);
    let (ok, listed) = kubectl(&s, &["get", "secrets", "-A", "-o", "json"], None);
    assert!(ok, "{listed}");
    // The documented pipeline, kubectl's validation on.
    let (ok, replaced) = kubectl(&s, &["replace", "-f", "-"], Some(&listed));
    assert!(ok, "{replaced}");
    s.stop();
    assert!(
        stored(&data, "/registry/secrets/team/b").contains("k8s:enc:aescbc:v1:new:"),
        "rewritten with the new key"
    );

    write_config(dir.path(), &new);
    let s = start(&data, &config, &[]);
    for (ns, name) in [("default", "a"), ("team", "b")] {
        let got = s.get(&format!("{}/{name}", secrets(ns)));
        assert_eq!(got.status, 200, "{}", got.text());
        assert_eq!(token(&got.json()), PLAINTEXT);
    }
    let (ok, out) = kubectl(&s, &["get", "secrets", "-A"], None);
    assert!(ok && out.contains("team"), "{out}");
}
