//! `--encryption-provider-config-automatic-reload`: a valid new file puts
//! its first key in force for new writes; an invalid one is logged and the
//! previous configuration stays.

use cairn_tests::wait_until;

use super::{KEY_16, KEY_A, KEY_B, keyed, secret, secrets, start, stored, token, write_config};

#[test]
fn the_file_is_reread_and_an_invalid_one_is_ignored() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let one = keyed("aesgcm", "one", KEY_A);
    let two = keyed("aesgcm", "two", KEY_B);
    let config = write_config(dir.path(), &one);
    let s = start(
        &data,
        &config,
        &["--encryption-provider-config-automatic-reload"],
    );
    assert_eq!(s.post(&secrets("default"), &secret("s0", "v0")).status, 201);
    assert!(stored(&data, "/registry/secrets/default/s0").contains("aesgcm:v1:one:"));

    write_config(dir.path(), &format!("{two}{one}"));
    let mut n = 0;
    wait_until("writes use the new key", || {
        n += 1;
        let name = format!("s{n}");
        assert_eq!(s.post(&secrets("default"), &secret(&name, "v")).status, 201);
        stored(&data, &format!("/registry/secrets/default/{name}")).contains("aesgcm:v1:two:")
    });
    let got = s.get(&format!("{}/s0", secrets("default")));
    assert_eq!(token(&got.json()), "v0", "old values still read");

    write_config(dir.path(), &keyed("aescbc", "bad", KEY_16));
    wait_until("the invalid file is logged", || {
        s.log_text().contains("not reloaded")
    });
    assert!(!s.log_text().contains(KEY_16));
    assert_eq!(
        s.post(&secrets("default"), &secret("after", "v")).status,
        201
    );
    assert!(stored(&data, "/registry/secrets/default/after").contains("aesgcm:v1:two:"));
}
