//! Decoding an EncryptionConfiguration document into its raw fields, as
//! Kubernetes' decoder does: unknown fields are ignored, a value of the
//! wrong type is refused with its path.

use serde_json::{Map, Value};

/// A document's text as JSON (a leading `{`) or YAML.
pub fn document(data: &[u8]) -> Result<Value, String> {
    let text = std::str::from_utf8(data).map_err(|_| "the file is not UTF-8 text".to_string())?;
    if text.trim().is_empty() {
        return Err("empty config data".into());
    }
    if text.trim_start().starts_with('{') {
        serde_json::from_str(text).map_err(|e| e.to_string())
    } else {
        serde_saphyr::from_str(text).map_err(|e| {
            e.to_string()
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        })
    }
}

#[derive(Debug, Default)]
pub struct RawKey {
    pub name: String,
    pub secret: String,
}

#[derive(Debug, Default)]
pub struct RawKms {
    pub api_version: String,
    pub name: String,
    pub endpoint: String,
    pub cachesize: Option<i64>,
    /// As written (`3s`); `None` when absent.
    pub timeout: Option<String>,
}

/// One `providers[]` element: every provider it names, with the raw text
/// of the element for messages.
#[derive(Debug, Default)]
pub struct RawProvider {
    pub aesgcm: Option<Vec<RawKey>>,
    pub aescbc: Option<Vec<RawKey>>,
    pub secretbox: Option<Vec<RawKey>>,
    pub identity: bool,
    pub kms: Option<RawKms>,
    pub text: String,
}

#[derive(Debug, Default)]
pub struct RawResources {
    pub resources: Vec<String>,
    pub providers: Vec<RawProvider>,
}

#[derive(Debug, Default)]
pub struct RawConfig {
    pub api_version: String,
    pub kind: String,
    pub resources: Vec<RawResources>,
}

fn type_error(at: &str, want: &str, got: &Value) -> String {
    let got = match got {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    format!("{at}: expected {want}, got {got}")
}

fn object<'a>(v: &'a Value, at: &str) -> Result<&'a Map<String, Value>, String> {
    v.as_object().ok_or_else(|| type_error(at, "object", v))
}

/// A field that is present and not null.
fn field<'a>(m: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    m.get(name).filter(|v| !v.is_null())
}

fn join(at: &str, name: &str) -> String {
    if at.is_empty() {
        name.into()
    } else {
        format!("{at}.{name}")
    }
}

fn string(m: &Map<String, Value>, at: &str, name: &str) -> Result<String, String> {
    match field(m, name) {
        None => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(v) => Err(type_error(&join(at, name), "string", v)),
    }
}

fn list<'a>(m: &'a Map<String, Value>, at: &str, name: &str) -> Result<&'a [Value], String> {
    match field(m, name) {
        None => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(v) => Err(type_error(&join(at, name), "array", v)),
    }
}

fn keys(m: &Map<String, Value>, at: &str) -> Result<Vec<RawKey>, String> {
    let mut out = Vec::new();
    for (i, item) in list(m, at, "keys")?.iter().enumerate() {
        let at = format!("{at}.keys[{i}]");
        let key = object(item, &at)?;
        out.push(RawKey {
            name: string(key, &at, "name")?,
            secret: string(key, &at, "secret")?,
        });
    }
    Ok(out)
}

fn kms(m: &Map<String, Value>, at: &str) -> Result<RawKms, String> {
    let cachesize = match field(m, "cachesize") {
        None => None,
        Some(v) => Some(
            v.as_i64()
                .filter(|n| i32::try_from(*n).is_ok())
                .ok_or_else(|| type_error(&join(at, "cachesize"), "int32", v))?,
        ),
    };
    Ok(RawKms {
        api_version: string(m, at, "apiVersion")?,
        name: string(m, at, "name")?,
        endpoint: string(m, at, "endpoint")?,
        cachesize,
        timeout: field(m, "timeout")
            .map(|_| string(m, at, "timeout"))
            .transpose()?,
    })
}

fn provider(v: &Value, at: &str) -> Result<RawProvider, String> {
    let m = object(v, at)?;
    let aes = |name: &str| -> Result<Option<Vec<RawKey>>, String> {
        field(m, name)
            .map(|v| keys(object(v, &join(at, name))?, &join(at, name)))
            .transpose()
    };
    Ok(RawProvider {
        aesgcm: aes("aesgcm")?,
        aescbc: aes("aescbc")?,
        secretbox: aes("secretbox")?,
        identity: match field(m, "identity") {
            None => false,
            Some(v) => object(v, &join(at, "identity")).map(|_| true)?,
        },
        kms: field(m, "kms")
            .map(|v| kms(object(v, &join(at, "kms"))?, &join(at, "kms")))
            .transpose()?,
        text: v.to_string(),
    })
}

/// Decodes `doc`; the error is one line naming the field.
pub fn decode(doc: &Value) -> Result<RawConfig, String> {
    let top = object(doc, "")?;
    let mut config = RawConfig {
        api_version: string(top, "", "apiVersion")?,
        kind: string(top, "", "kind")?,
        resources: Vec::new(),
    };
    for (i, item) in list(top, "", "resources")?.iter().enumerate() {
        let at = format!("resources[{i}]");
        let entry = object(item, &at)?;
        let mut raw = RawResources::default();
        for (j, name) in list(entry, &at, "resources")?.iter().enumerate() {
            let name = name
                .as_str()
                .ok_or_else(|| type_error(&format!("{at}.resources[{j}]"), "string", name))?;
            raw.resources.push(name.to_string());
        }
        for (j, p) in list(entry, &at, "providers")?.iter().enumerate() {
            raw.providers
                .push(provider(p, &format!("{at}.providers[{j}]"))?);
        }
        config.resources.push(raw);
    }
    Ok(config)
}
