//! `cairn-store` and encrypted values: shown as encrypted without the
//! configuration, decrypted with it; the per-key report; the offline
//! rewrite with the first provider.

use super::{KEY_A, KEY_B, PLAINTEXT, keyed, secret, secrets, start, store, stored, write_config};

fn text(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_store_tool_decrypts_with_the_configuration_and_rewrites_offline() {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD.encode(PLAINTEXT);
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let d = data.to_str().expect("utf8");
    let old = keyed("aesgcm", "old", KEY_A);
    let config = write_config(dir.path(), &old);
    let c = config.to_str().expect("utf8");
    let mut s = start(&data, &config, &[]);
    assert_eq!(
        s.post(&secrets("default"), &secret("s1", PLAINTEXT)).status,
        201
    );
    s.stop();
    let key = "/registry/secrets/default/s1";

    let shown = stored(&data, key);
    assert!(
        shown.starts_with("k8s:enc:aesgcm:v1:old:<encrypted, "),
        "{shown}"
    );
    assert!(!shown.contains(&b64));
    let with = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend([
            "--data-dir",
            d,
            "--encryption-provider-config",
            c,
            "--api-domain",
            "svc.io",
        ]);
        store(&all)
    };
    let decrypted = text(&with(&["get", key, "--raw"]));
    assert!(decrypted.contains(&b64), "{decrypted}");
    let listed = text(&with(&["ls", "/registry/secrets/", "-o", "json", "--raw"]));
    assert!(listed.contains("Secret"), "{listed}");

    let report = text(&store(&[
        "encryption",
        "keys",
        "--prefix",
        "/registry/secrets/",
        "--data-dir",
        d,
    ]));
    assert!(report.contains("aesgcm:old"), "{report}");

    write_config(
        dir.path(),
        &format!("{}{old}", keyed("secretbox", "new", KEY_B)),
    );
    let rewrite = text(&with(&["encryption", "rewrite", "--resource", "secrets"]));
    assert!(rewrite.contains("1 values rewritten"), "{rewrite}");
    let report = text(&store(&[
        "encryption",
        "keys",
        "--prefix",
        "/registry/secrets/",
        "--data-dir",
        d,
        "-o",
        "json",
    ]));
    let counts: serde_json::Value = serde_json::from_str(&report).expect("json");
    assert_eq!(counts["keys"]["secretbox:new"], 1, "{report}");
    assert!(counts["keys"].get("aesgcm:old").is_none(), "{report}");
    assert!(text(&with(&["get", key, "--raw"])).contains(&b64));
    let s = start(&data, &config, &[]);
    assert_eq!(s.get(&format!("{}/s1", secrets("default"))).status, 200);
}
