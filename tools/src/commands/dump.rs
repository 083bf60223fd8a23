//! `dump`: every retained record as JSON Lines, in revision order, for
//! scripts. One line per transaction record:
//!
//! ```json
//! {"revision":7,"time":"2026-11-21T12:00:00.000000Z","ops":[
//!   {"op":"put","key":"/a","create_revision":5,"version":2,"expires_at":null,"value":"..."},
//!   {"op":"delete","key":"/b"}]}
//! ```
//!
//! Keys and values are strings when they are UTF-8, else `key_base64` /
//! `value_base64`. `--locations` adds `file` and `offset` (record and ops);
//! `--physical` shows every op still stored, with `retained`. Values are
//! shown as written (through the value transformers).

use std::ops::ControlFlow;
use std::path::Path;
use std::process::ExitCode;

use cairn_engine::inspect::{Log, LogFilter, LogRecord, View};
use cairn_engine::{EventKind, Options, Revision};
use serde_json::{Map, Value};

use crate::commands::{data_dir, file_name, ok};
use crate::encode::{put_bytes, rfc3339};
use crate::error::{CliError, Result};
use crate::output::Out;
use crate::progress;
use crate::values::Values;

pub fn run(
    dir: &Path,
    from: Option<u64>,
    to: Option<u64>,
    physical: bool,
    locations: bool,
    values: &Values,
    out: &mut Out,
) -> Result<ExitCode> {
    data_dir(dir)?;
    let (from, to) = (from.unwrap_or(0), to.unwrap_or(u64::MAX));
    if from > to {
        return Err(CliError::Usage(format!(
            "--from-rev {from} is after --to-rev {to}"
        )));
    }
    let log = Log::open(dir, &Options::default())?;
    let filter = LogFilter {
        from: Revision(from),
        to: Revision(to),
        view: if physical {
            View::Physical
        } else {
            View::Retained
        },
    };
    // Compacted records are read twice: once to learn which versions survive.
    let passes = if log.compacted_revision() > Revision::ZERO {
        2
    } else {
        1
    };
    let bar = progress::bytes(log.bytes() * passes, "dumping");
    let mut failed: Option<CliError> = None;
    let summary = log.read(&filter, &|n| bar.inc(n), |rec| {
        let written = record_json(rec, physical, locations, values)
            .and_then(|line| Ok(out.json_line(&line)?));
        match written {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                failed = Some(e);
                ControlFlow::Break(())
            }
        }
    })?;
    bar.finish_and_clear();
    if let Some(e) = failed {
        return Err(e);
    }
    if let Some(t) = summary.torn_tail {
        eprintln!(
            "cairn-store: warning: the log ends in a torn tail ({} bytes at offset {} of {}: {}); \
             it was not dumped (`cairn-store repair` truncates it)",
            t.bytes,
            t.offset,
            file_name(&t.file),
            t.reason
        );
    }
    ok()
}

fn record_json(
    rec: &LogRecord<'_>,
    physical: bool,
    locations: bool,
    values: &Values,
) -> Result<Value> {
    let mut m = Map::new();
    m.insert("revision".into(), rec.revision.get().into());
    m.insert("time".into(), rfc3339(rec.time).into());
    if locations {
        m.insert("file".into(), file_name(rec.file).into());
        m.insert("offset".into(), rec.offset.into());
    }
    let ops = rec
        .ops
        .iter()
        .map(|op| {
            let mut o = Map::new();
            let put = op.kind == EventKind::Put;
            o.insert("op".into(), if put { "put" } else { "delete" }.into());
            put_bytes(&mut o, "key", op.key);
            if put {
                o.insert("create_revision".into(), op.create_revision.get().into());
                o.insert("version".into(), op.version.into());
                o.insert("expires_at".into(), op.expires_at.map(rfc3339).into());
                let value = values.plain(op.key, rec.revision.get(), op.value)?;
                put_bytes(&mut o, "value", &value);
            }
            if locations {
                o.insert("offset".into(), op.offset.into());
            }
            if physical {
                o.insert("retained".into(), op.retained.into());
            }
            Ok(Value::Object(o))
        })
        .collect::<Result<Vec<Value>>>()?;
    m.insert("ops".into(), ops.into());
    Ok(Value::Object(m))
}
