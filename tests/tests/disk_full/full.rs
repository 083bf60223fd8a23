//! The data directory's filesystem fills up under a running server.

use cairn_tests::Server;
use serde_json::Value;

use crate::mount::SmallFs;
use crate::{
    CONFIG_MAPS, assert_refused_absent_and_kept_after_restart, assert_refused_for_space,
    config_map, names_of_list,
};

/// Bytes of data per ConfigMap: a few hundred fill the 24 MiB filesystem.
const PAYLOAD: usize = 64 << 10;

fn event_name(event: &Value) -> (String, String) {
    (
        event["type"].as_str().unwrap_or_default().to_string(),
        event["object"]["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    )
}

#[test]
fn writes_are_refused_while_full_and_succeed_again_once_space_returns() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(fs) = SmallFs::mount(&dir.path().join("small"), 24) else {
        eprintln!("skipped: this machine does not let the test mount a tmpfs");
        return;
    };
    let data_dir = fs.path.clone();
    let server = Server::start_on(&data_dir, &[]);
    let first = server.post(CONFIG_MAPS, &config_map("before", 16));
    assert_eq!(first.status, 201, "{}", first.text());
    let rv = first.json()["metadata"]["resourceVersion"]
        .as_str()
        .expect("rv")
        .to_string();
    let mut watch = server.watch(&format!("{CONFIG_MAPS}?watch=1&resourceVersion={rv}"));
    assert_eq!(watch.status, 200);

    let filler = fs.fill();
    // Writes land in space the log had claimed ahead until that runs out.
    let mut acknowledged = Vec::new();
    let refusal = loop {
        let name = format!("cm-{}", acknowledged.len());
        let r = server.post(CONFIG_MAPS, &config_map(&name, PAYLOAD));
        if r.status != 201 {
            break r;
        }
        acknowledged.push(name);
        assert!(acknowledged.len() < 1000, "the filesystem never filled");
    };
    assert_refused_for_space(refusal.status, &refusal.json());
    let refused_name = format!("cm-{}", acknowledged.len());
    let again = server.post(CONFIG_MAPS, &config_map("refused-again", PAYLOAD));
    assert_refused_for_space(again.status, &again.json());

    // Reads and watches go on while the disk is full.
    let got = server.get(&format!("{CONFIG_MAPS}/before"));
    assert_eq!(got.status, 200, "{}", got.text());
    let mut listed = names_of_list(&server);
    listed.sort();
    let mut want: Vec<String> = acknowledged.clone();
    want.push("before".into());
    want.sort();
    assert_eq!(
        listed, want,
        "the list holds every acknowledged write, no more"
    );
    for name in &acknowledged {
        let event = watch.next_event().expect("watch event while full");
        assert_eq!(event_name(&event), ("ADDED".into(), name.clone()));
    }

    std::fs::remove_file(&filler).expect("free the space");
    let after = server.post(CONFIG_MAPS, &config_map("after", PAYLOAD));
    assert_eq!(
        after.status,
        201,
        "a write once space returned: {}",
        after.text()
    );
    let event = watch
        .next_event()
        .expect("watch event after space returned");
    assert_eq!(
        event_name(&event),
        ("ADDED".into(), "after".into()),
        "no event for a refused write"
    );
    want.push("after".into());
    assert_refused_absent_and_kept_after_restart(
        server,
        &data_dir,
        &[&refused_name, "refused-again"],
        &mut want,
    );
    drop(fs);
}
