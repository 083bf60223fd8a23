//! The read commands show values through the value transformers: a test
//! transformer (a mark, then every byte XORed) stands in for encryption.

use std::io::Write;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use cairn_engine::{Engine, Options, Txn};
use cairn_transform::{Transformer, Transformers, Xor};
use serde_json::Value;

use crate::cli::Format;
use crate::commands::{dump, keys};
use crate::error::{CliError, Result};
use crate::output::Out;
use crate::values::Values;

const KEY: &str = "/registry/configmaps/ns/a";

fn object(n: u32) -> String {
    format!(
        r#"{{"kind":"ConfigMap","metadata":{{"name":"a","namespace":"ns"}},"data":{{"n":"{n}"}}}}"#
    )
}

/// A directory with two versions of one ConfigMap, stored XORed as a
/// server with that transformer would store them.
fn written() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Engine::open(dir.path(), Options::no_sync()).expect("open");
    for n in 1..=2 {
        let stored = Xor
            .transform_to_storage(KEY.as_bytes(), object(n).as_bytes())
            .expect("xor")
            .into_owned();
        e.commit_blocking(Txn::new().put(KEY, stored))
            .expect("commit");
    }
    e.close();
    dir
}

fn xor() -> Values {
    Values::new(Transformers::identity().with("/registry/configmaps/", Arc::new(Xor)))
}

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("lock").extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What a command prints.
fn printed(command: impl FnOnce(&mut Out) -> Result<ExitCode>) -> String {
    let captured = Captured::default();
    let mut out = Out::to(Box::new(captured.clone()));
    command(&mut out).expect("command");
    out.flush().expect("flush");
    let bytes = captured.0.lock().expect("lock").clone();
    String::from_utf8(bytes).expect("utf-8")
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).expect("json")
}

#[test]
fn get_ls_history_and_dump_show_values_as_written() {
    let dir = written();
    let d = dir.path();
    let key = KEY.as_bytes();
    let v = xor();
    let got = json(&printed(|o| {
        keys::get(d, key, None, true, Format::Json, &v, o)
    }));
    assert_eq!(got["value"], object(2));
    assert_eq!(got["object"]["kind"], "ConfigMap");
    let raw = printed(|o| keys::get(d, key, None, true, Format::Table, &v, o));
    assert_eq!(raw, object(2));
    let listed = json(&printed(|o| {
        keys::ls(d, b"/registry/", None, 0, true, Format::Json, &v, o)
    }));
    assert_eq!(listed["items"][0]["value"], object(2));
    let table = printed(|o| keys::ls(d, b"/registry/", None, 0, false, Format::Table, &v, o));
    assert!(
        table.contains("ConfigMap") && table.contains("ns/a"),
        "{table}"
    );
    let history = json(&printed(|o| {
        keys::history(d, key, true, Format::Json, &v, o)
    }));
    let values: Vec<&Value> = history["versions"]
        .as_array()
        .expect("versions")
        .iter()
        .map(|v| &v["value"])
        .collect();
    assert_eq!(
        values,
        vec![&Value::from(object(1)), &Value::from(object(2))]
    );
    let dumped = printed(|o| dump::run(d, None, None, false, false, &v, o));
    let dumped: Vec<Value> = dumped.lines().map(json).collect();
    assert_eq!(dumped.len(), 2);
    assert_eq!(dumped[1]["ops"][0]["value"], object(2));
}

#[test]
fn without_the_transformer_the_stored_bytes_show() {
    let dir = written();
    let identity = Values::new(Transformers::identity());
    let raw = printed(|o| {
        keys::get(
            dir.path(),
            KEY.as_bytes(),
            None,
            true,
            Format::Table,
            &identity,
            o,
        )
    });
    assert!(
        raw.starts_with("xor:") && !raw.contains("ConfigMap"),
        "{raw}"
    );
}

#[test]
fn a_value_that_does_not_transform_back_names_its_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Engine::open(dir.path(), Options::no_sync()).expect("open");
    e.commit_blocking(Txn::new().put(KEY, "unmarked"))
        .expect("commit");
    e.close();
    let mut out = Out::to(Box::new(Captured::default()));
    let err = keys::get(
        dir.path(),
        KEY.as_bytes(),
        None,
        false,
        Format::Table,
        &xor(),
        &mut out,
    )
    .expect_err("unreadable");
    assert!(
        matches!(&err, CliError::Unreadable { key, revision: 1, .. } if key == KEY),
        "{err}"
    );
    assert!(err.to_string().contains("no xor mark"));
}
