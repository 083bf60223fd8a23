//! Each provider round-trips through the API, and the data files of an
//! encrypting server hold no plaintext of a Secret's value.

use super::{
    IDENTITY, KEY_16, KEY_A, PLAINTEXT, files_contain, keyed, secret, secrets, start, token,
    write_config,
};

fn round_trip(providers: &str, encrypted: bool) {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let config = write_config(dir.path(), providers);
    let mut s = start(&data, &config, &[]);
    let r = s.post(&secrets("default"), &secret("s1", PLAINTEXT));
    assert_eq!(r.status, 201, "{}", r.text());
    let got = s.get(&format!("{}/s1", secrets("default")));
    assert_eq!(got.status, 200, "{}", got.text());
    assert_eq!(token(&got.json()), PLAINTEXT);
    let list = s.get(&secrets("default")).json();
    assert_eq!(token(&list["items"][0]), PLAINTEXT);
    s.stop();
    // The value is stored base64-encoded inside the object's JSON.
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD.encode(PLAINTEXT);
    assert_eq!(
        files_contain(&data, b64.as_bytes()),
        !encrypted,
        "{providers}: plaintext in the data files"
    );
    assert!(!files_contain(&data, PLAINTEXT.as_bytes()) || !encrypted);
    // Restarted on the same data and configuration: still readable.
    let s = start(&data, &config, &[]);
    let got = s.get(&format!("{}/s1", secrets("default")));
    assert_eq!(token(&got.json()), PLAINTEXT);
}

#[test]
fn aesgcm_round_trips_and_hides_the_value() {
    round_trip(&keyed("aesgcm", "k1", KEY_16), true);
}

#[test]
fn aescbc_round_trips_and_hides_the_value() {
    round_trip(&keyed("aescbc", "k1", KEY_A), true);
}

#[test]
fn secretbox_round_trips_and_hides_the_value() {
    round_trip(&keyed("secretbox", "k1", KEY_A), true);
}

#[test]
fn identity_first_stores_values_as_they_are() {
    round_trip(
        &format!("{IDENTITY}{}", keyed("aesgcm", "k1", KEY_A)),
        false,
    );
}

#[test]
fn resources_not_listed_are_not_encrypted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let config = write_config(dir.path(), &keyed("aesgcm", "k1", KEY_A));
    let mut s = start(&data, &config, &[]);
    let cm = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": PLAINTEXT}});
    assert_eq!(
        s.post("/api/v1/namespaces/default/configmaps", &cm).status,
        201
    );
    s.stop();
    assert!(files_contain(&data, PLAINTEXT.as_bytes()));
}
