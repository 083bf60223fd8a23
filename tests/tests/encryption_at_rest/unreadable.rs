//! A Secret written under a key that was then removed: get and list fail
//! with 500 InternalError naming the storage key (never the key material);
//! with the gate on, the unsafe delete removes it, a watcher sees DELETED,
//! and its namespace can then be deleted.

use cairn_tests::wait_until;

use super::{
    KEY_A, KEY_B, PLAINTEXT, create_namespace, keyed, secret, secrets, start, write_config,
};

const GATE: &str = "AllowUnsafeMalformedObjectDeletion=true";
const UNSAFE: &str = "ignoreStoreReadErrorWithClusterBreakingPotential=true";

#[test]
fn a_secret_under_a_removed_key_fails_reads_and_can_be_deleted_unsafely() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let config = write_config(dir.path(), &keyed("aesgcm", "gone", KEY_A));
    let mut s = start(&data, &config, &[]);
    create_namespace(&s, "doomed");
    assert_eq!(
        s.post(&secrets("doomed"), &secret("lost", PLAINTEXT))
            .status,
        201
    );
    s.stop();

    write_config(dir.path(), &keyed("aesgcm", "kept", KEY_B));
    let s = start(&data, &config, &["--feature-gates", GATE]);
    let readable = s.post(&secrets("doomed"), &secret("fine", "x"));
    assert_eq!(readable.status, 201);
    let rv = readable.json()["metadata"]["resourceVersion"]
        .as_str()
        .expect("rv")
        .to_string();

    let lost = format!("{}/lost", secrets("doomed"));
    for r in [
        s.get(&lost),
        s.get(&secrets("doomed")),
        s.get("/api/v1/secrets"),
    ] {
        assert_eq!(r.status, 500, "{}", r.text());
        let status = r.json();
        assert_eq!(status["reason"], "InternalError");
        let message = status["message"].as_str().expect("message");
        assert!(
            message.contains("/registry/secrets/doomed/lost"),
            "{message}"
        );
        assert!(
            !message.contains(KEY_A) && !message.contains(KEY_B),
            "{message}"
        );
    }

    let mut watch = s.watch(&format!(
        "{}?watch=true&resourceVersion={rv}",
        secrets("doomed")
    ));
    assert_eq!(watch.status, 200);
    // Without the option the delete needs the object: it cannot be read.
    assert_eq!(s.delete(&lost).status, 500);
    let removed = s.delete(&format!("{lost}?{UNSAFE}"));
    assert_eq!(removed.status, 200, "{}", removed.text());
    let event = watch.next_event().expect("an event");
    assert_eq!(event["type"], "DELETED", "{event}");
    assert_eq!(event["object"]["metadata"]["name"], "lost");
    assert_eq!(event["object"]["kind"], "Secret");
    assert_eq!(s.get(&lost).status, 404);
    // A readable object is refused the unsafe delete.
    let fine = s.delete(&format!("{}/fine?{UNSAFE}", secrets("doomed")));
    assert_eq!(fine.status, 400, "{}", fine.text());
    assert_eq!(s.get(&secrets("doomed")).status, 200);

    assert_eq!(s.delete("/api/v1/namespaces/doomed").status, 200);
    wait_until("the namespace is deleted", || {
        s.get("/api/v1/namespaces/doomed").status == 404
    });
}

#[test]
fn without_the_gate_the_option_is_ignored() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let config = write_config(dir.path(), &keyed("secretbox", "gone", KEY_A));
    let mut s = start(&data, &config, &[]);
    assert_eq!(
        s.post(&secrets("default"), &secret("lost", PLAINTEXT))
            .status,
        201
    );
    s.stop();
    write_config(dir.path(), &keyed("secretbox", "kept", KEY_B));
    let s = start(&data, &config, &[]);
    let r = s.delete(&format!("{}/lost?{UNSAFE}", secrets("default")));
    assert_eq!(r.status, 500, "{}", r.text());
}
