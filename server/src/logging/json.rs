//! kube-apiserver's JSON log line: `{"ts":<seconds>,"caller":"file:line",
//! "msg":"…","v":<verbosity>, …fields}`; errors carry `err` instead of `v`.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

/// The event formatter of `--logging-format=json`.
pub struct KlogJson;

/// The event's fields: `message` becomes `msg`, the rest keep their names.
#[derive(Default)]
struct Fields(Map<String, Value>);

impl Fields {
    fn put(&mut self, field: &Field, value: Value) {
        let key = match field.name() {
            "message" => "msg",
            other => other,
        };
        self.0.insert(key.to_string(), value);
    }
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.put(field, Value::from(value));
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.put(field, Value::from(value));
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.put(field, Value::from(value));
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.put(field, Value::from(value));
    }
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.put(field, Value::from(value));
    }
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.put(field, Value::from(format!("{value:?}")));
    }
}

/// klog's verbosity of a level (errors have none).
fn verbosity(level: Level) -> Option<u8> {
    match level {
        Level::ERROR => None,
        Level::WARN | Level::INFO => Some(0),
        Level::DEBUG => Some(4),
        Level::TRACE => Some(5),
    }
}

/// One event as a JSON object, its fields after kube's leading keys.
fn line(level: Level, caller: Option<String>, fields: Fields, now: SystemTime) -> Value {
    let ts = now
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    let mut out = Map::new();
    out.insert("ts".into(), Value::from(ts));
    if let Some(caller) = caller {
        out.insert("caller".into(), Value::from(caller));
    }
    let mut fields = fields.0;
    out.insert(
        "msg".into(),
        fields.remove("msg").unwrap_or_else(|| Value::from("")),
    );
    match verbosity(level) {
        Some(v) => {
            out.insert("v".into(), Value::from(v));
        }
        None => {
            let err = fields.remove("error").unwrap_or_else(|| out["msg"].clone());
            out.insert("err".into(), err);
        }
    }
    out.extend(fields);
    Value::Object(out)
}

impl<S, N> FormatEvent<S, N> for KlogJson
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        _ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let meta = event.metadata();
        let mut fields = Fields::default();
        event.record(&mut fields);
        let caller = meta.file().map(|file| match meta.line() {
            Some(n) => format!("{file}:{n}"),
            None => file.to_string(),
        });
        writeln!(
            writer,
            "{}",
            line(*meta.level(), caller, fields, SystemTime::now())
        )
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn fields(pairs: &[(&str, &str)]) -> Fields {
        Fields(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_string(), Value::from(*v)))
                .collect(),
        )
    }

    #[test]
    fn info_lines_lead_with_kube_keys_and_keep_fields() {
        let at = UNIX_EPOCH + Duration::from_millis(1_500);
        let v = line(
            Level::INFO,
            Some("app.rs:10".into()),
            fields(&[("msg", "started"), ("address", "127.0.0.1:1")]),
            at,
        );
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["ts", "caller", "msg", "v", "address"]);
        assert_eq!(v["ts"], 1.5);
        assert_eq!(v["v"], 0);
        assert_eq!(v["msg"], "started");
    }

    #[test]
    fn errors_carry_err_and_no_verbosity() {
        let v = line(
            Level::ERROR,
            None,
            fields(&[("msg", "write failed"), ("error", "disk full")]),
            UNIX_EPOCH,
        );
        assert_eq!(v["err"], "disk full");
        assert!(v.get("v").is_none());
        assert_eq!(line(Level::DEBUG, None, fields(&[]), UNIX_EPOCH)["v"], 4);
    }
}
