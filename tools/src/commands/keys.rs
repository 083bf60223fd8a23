//! `get`, `history` and `ls`: reading keys through a read-only engine, with
//! values (as written, through the value transformers) shown as Kubernetes
//! objects (kind, namespace/name, resourceVersion = the record's
//! mod_revision) when they are, and as bytes on request. Sizes are the
//! stored bytes'.

use std::path::Path;
use std::process::ExitCode;

use cairn_engine::inspect::KeyVersion;
use cairn_engine::{EventKind, KeyRange, KeyValue, RangeOptions, Revision};
use serde_json::{Map, Value, json};

use crate::cli::Format;
use crate::commands::{ok, open_read_only};
use crate::encode::{preview, put_bytes, rfc3339, text};
use crate::error::{CliError, Result};
use crate::object::{self, Object};
use crate::output::{Out, fields, table};
use crate::values::Values;

/// Columns of a shown value that are cut short in tables.
const PREVIEW: usize = 60;

fn object_json(o: Option<&Object>, rv: Revision) -> Value {
    o.map_or(Value::Null, |o| {
        json!({
            "apiVersion": o.api_version,
            "kind": o.kind,
            "namespace": o.namespace,
            "name": o.name,
            "resourceVersion": rv.to_string(),
        })
    })
}

/// A record as JSON with its value as written; the value only when asked for.
fn kv_json(kv: &KeyValue, value: &[u8], with_value: bool) -> Map<String, Value> {
    let mut m = Map::new();
    put_bytes(&mut m, "key", &kv.key);
    m.insert("create_revision".into(), kv.create_revision.get().into());
    m.insert("mod_revision".into(), kv.mod_revision.get().into());
    m.insert("version".into(), kv.version.into());
    m.insert("expires_at".into(), kv.expires_at.map(rfc3339).into());
    m.insert("size".into(), kv.value.len().into());
    let obj = object::decode(value);
    m.insert("object".into(), object_json(obj.as_ref(), kv.mod_revision));
    if with_value {
        put_bytes(&mut m, "value", value);
    }
    m
}

/// `kv`'s value as written.
fn plain<'a>(values: &Values, kv: &'a KeyValue) -> Result<std::borrow::Cow<'a, [u8]>> {
    values.plain(&kv.key, kv.mod_revision.get(), &kv.value)
}

/// (kind, namespace/name) cells, `-` when the value is not an object.
fn object_cells(value: &[u8]) -> (String, String) {
    object::decode(value).map_or(("-".into(), "-".into()), |o| {
        (o.kind.clone(), o.full_name())
    })
}

pub fn get(
    dir: &Path,
    key: &[u8],
    rev: Option<u64>,
    raw: bool,
    format: Format,
    values: &Values,
    out: &mut Out,
) -> Result<ExitCode> {
    let engine = open_read_only(dir)?;
    let got = engine.get(key, rev.map(Revision))?;
    let Some(kv) = got.kv else {
        return Err(CliError::NotFound(format!(
            "{} not found at revision {}",
            text(key),
            got.revision
        )));
    };
    let value = plain(values, &kv)?;
    match (format, raw) {
        (Format::Json, _) => {
            let mut m = Map::new();
            m.insert("revision".into(), got.revision.get().into());
            m.extend(kv_json(&kv, &value, raw));
            out.json(&Value::Object(m))?;
        }
        (Format::Table, true) => out.bytes(&value)?,
        (Format::Table, false) => {
            let mut rows = vec![("key", text(&kv.key))];
            match object::decode(&value) {
                Some(o) => {
                    rows.push(("kind", o.kind.clone()));
                    rows.push(("name", o.full_name()));
                    rows.push(("resourceVersion", kv.mod_revision.to_string()));
                }
                None => rows.push(("value", preview(&value, PREVIEW))),
            }
            rows.extend([
                ("create revision", kv.create_revision.to_string()),
                ("mod revision", kv.mod_revision.to_string()),
                ("version", kv.version.to_string()),
                ("expires", kv.expires_at.map_or("never".into(), rfc3339)),
                (
                    "size",
                    format!("{} bytes (--raw prints them)", kv.value.len()),
                ),
                ("read at revision", got.revision.to_string()),
            ]);
            out.table(&fields(rows))?;
        }
    }
    ok()
}

pub fn history(
    dir: &Path,
    key: &[u8],
    raw: bool,
    format: Format,
    values: &Values,
    out: &mut Out,
) -> Result<ExitCode> {
    let engine = open_read_only(dir)?;
    let versions = engine.key_history(key);
    if versions.is_empty() {
        return Err(CliError::NotFound(format!(
            "{} has no retained version (compacted at revision {})",
            text(key),
            engine.compacted_revision()
        )));
    }
    if format == Format::Json {
        let list = versions
            .iter()
            .map(|v| version_json(v, raw, values))
            .collect::<Result<Vec<Value>>>()?;
        let mut m = Map::new();
        put_bytes(&mut m, "key", key);
        m.insert(
            "current_revision".into(),
            engine.current_revision().get().into(),
        );
        m.insert(
            "compacted_revision".into(),
            engine.compacted_revision().get().into(),
        );
        m.insert("versions".into(), list.into());
        out.json(&Value::Object(m))?;
        return ok();
    }
    let mut header = vec![
        "REVISION",
        "TIME",
        "OP",
        "CREATE REV",
        "VERSION",
        "KIND",
        "NAME",
        "SIZE",
    ];
    if raw {
        header.push("VALUE");
    }
    let mut t = table(&header, &[0, 3, 4, 7]);
    for v in &versions {
        let time = v.time.map_or("-".into(), rfc3339);
        let value = v.kv.as_ref().map(|kv| plain(values, kv)).transpose()?;
        let mut row = match (&v.kv, &value) {
            (Some(kv), Some(value)) => {
                let (kind, name) = object_cells(value);
                vec![
                    v.revision.to_string(),
                    time,
                    "put".into(),
                    kv.create_revision.to_string(),
                    kv.version.to_string(),
                    kind,
                    name,
                    kv.value.len().to_string(),
                ]
            }
            _ => {
                let mut r = vec![v.revision.to_string(), time, "delete".into()];
                r.extend(["-", "-", "-", "-", "-"].map(String::from));
                r
            }
        };
        if raw {
            row.push(value.map_or(String::new(), |v| preview(&v, PREVIEW)));
        }
        t.add_row(row);
    }
    out.table(&t)?;
    ok()
}

fn version_json(v: &KeyVersion, raw: bool, values: &Values) -> Result<Value> {
    let mut m = Map::new();
    m.insert("revision".into(), v.revision.get().into());
    m.insert("time".into(), v.time.map(rfc3339).into());
    match (&v.kv, v.kind) {
        (Some(kv), EventKind::Put) => {
            m.insert("op".into(), "put".into());
            m.extend(kv_json(kv, &plain(values, kv)?, raw));
            m.remove("key");
        }
        _ => {
            m.insert("op".into(), "delete".into());
        }
    }
    Ok(Value::Object(m))
}

#[allow(clippy::too_many_arguments)]
pub fn ls(
    dir: &Path,
    prefix: &[u8],
    rev: Option<u64>,
    limit: usize,
    raw: bool,
    format: Format,
    values: &Values,
    out: &mut Out,
) -> Result<ExitCode> {
    let engine = open_read_only(dir)?;
    let range = if prefix.is_empty() {
        KeyRange::all()
    } else {
        KeyRange::prefix(prefix)
    };
    let page = engine.range(
        &range,
        RangeOptions {
            at: rev.map(Revision),
            limit,
            count_total: true,
        },
    )?;
    if format == Format::Json {
        let items = page
            .items
            .iter()
            .map(|kv| Ok(Value::Object(kv_json(kv, &plain(values, kv)?, raw))))
            .collect::<Result<Vec<Value>>>()?;
        out.json(&json!({
            "revision": page.revision.get(),
            "count": page.count,
            "more": page.more,
            "items": items,
        }))?;
        return ok();
    }
    let mut header = vec!["KEY", "KIND", "NAME", "RV", "CREATE REV", "VERSION", "SIZE"];
    if raw {
        header.push("VALUE");
    }
    let mut t = table(&header, &[3, 4, 5, 6]);
    for kv in &page.items {
        let value = plain(values, kv)?;
        let (kind, name) = object_cells(&value);
        let mut row = vec![
            text(&kv.key),
            kind,
            name,
            kv.mod_revision.to_string(),
            kv.create_revision.to_string(),
            kv.version.to_string(),
            kv.value.len().to_string(),
        ];
        if raw {
            row.push(preview(&value, PREVIEW));
        }
        t.add_row(row);
    }
    if !page.items.is_empty() {
        out.table(&t)?;
    }
    out.line(format!(
        "{} of {} keys at revision {}",
        page.items.len(),
        page.count,
        page.revision
    ))?;
    ok()
}
