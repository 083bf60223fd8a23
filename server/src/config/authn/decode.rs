//! Strict decoding of an AuthenticationConfiguration document into its raw
//! fields: every object checked for unknown fields (reported with their
//! path, as Kubernetes' strict decoder does), every value for its type.
//! `null` counts as absent, as in Go's JSON decoding.

use serde_json::{Map, Value};

/// `Issuer` as written.
#[derive(Debug, Default)]
pub struct RawIssuer {
    pub url: String,
    pub discovery_url: String,
    pub certificate_authority: String,
    pub audiences: Vec<String>,
    pub audience_match_policy: String,
    pub egress_selector_type: String,
}

/// `PrefixedClaimOrExpression` / `ClaimOrExpression` as written; `prefix`
/// is `None` when absent (a present empty prefix means "no prefix").
#[derive(Debug, Default)]
pub struct RawMapping {
    pub claim: String,
    pub prefix: Option<String>,
    pub expression: String,
}

#[derive(Debug, Default)]
pub struct RawExtra {
    pub key: String,
    pub value_expression: String,
}

#[derive(Debug, Default)]
pub struct RawClaimRule {
    pub claim: String,
    pub required_value: String,
    pub expression: String,
    pub message: String,
}

#[derive(Debug, Default)]
pub struct RawUserRule {
    pub expression: String,
    pub message: String,
}

#[derive(Debug, Default)]
pub struct RawJwt {
    pub issuer: RawIssuer,
    pub claim_validation_rules: Vec<RawClaimRule>,
    pub username: RawMapping,
    pub groups: RawMapping,
    pub uid: RawMapping,
    pub extra: Vec<RawExtra>,
    pub user_validation_rules: Vec<RawUserRule>,
}

#[derive(Debug, Default)]
pub struct RawAnonymous {
    pub enabled: bool,
    pub conditions: Vec<String>,
}

#[derive(Debug, Default)]
pub struct RawConfig {
    pub api_version: String,
    pub kind: String,
    pub jwt: Vec<RawJwt>,
    pub anonymous: Option<RawAnonymous>,
}

/// Decodes `doc`; the error is one line (`strict decoding error: unknown
/// field "jwt[0].issuer.foo"`, or a type mismatch at its path).
pub fn decode(doc: &Value) -> Result<RawConfig, String> {
    let top = object(doc, "")?;
    known(top, "", &["apiVersion", "kind", "jwt", "anonymous"])?;
    let mut config = RawConfig {
        api_version: string(top, "", "apiVersion")?,
        kind: string(top, "", "kind")?,
        ..RawConfig::default()
    };
    for (i, item) in list(top, "", "jwt")?.iter().enumerate() {
        config.jwt.push(jwt(item, &format!("jwt[{i}]"))?);
    }
    if let Some(anonymous) = top.get("anonymous").filter(|v| !v.is_null()) {
        let fields = object(anonymous, "anonymous")?;
        known(fields, "anonymous", &["enabled", "conditions"])?;
        let mut conditions = Vec::new();
        for (i, c) in list(fields, "anonymous", "conditions")?.iter().enumerate() {
            let at = format!("anonymous.conditions[{i}]");
            let c = object(c, &at)?;
            known(c, &at, &["path"])?;
            conditions.push(string(c, &at, "path")?);
        }
        config.anonymous = Some(RawAnonymous {
            enabled: boolean(fields, "anonymous", "enabled")?,
            conditions,
        });
    }
    Ok(config)
}

fn jwt(v: &Value, at: &str) -> Result<RawJwt, String> {
    let fields = object(v, at)?;
    known(
        fields,
        at,
        &[
            "issuer",
            "claimValidationRules",
            "claimMappings",
            "userValidationRules",
        ],
    )?;
    let mut out = RawJwt::default();
    if let Some(issuer) = present(fields, "issuer") {
        let at = join(at, "issuer");
        let f = object(issuer, &at)?;
        known(
            f,
            &at,
            &[
                "url",
                "discoveryURL",
                "certificateAuthority",
                "audiences",
                "audienceMatchPolicy",
                "egressSelectorType",
            ],
        )?;
        out.issuer = RawIssuer {
            url: string(f, &at, "url")?,
            discovery_url: string(f, &at, "discoveryURL")?,
            certificate_authority: string(f, &at, "certificateAuthority")?,
            audiences: strings(f, &at, "audiences")?,
            audience_match_policy: string(f, &at, "audienceMatchPolicy")?,
            egress_selector_type: string(f, &at, "egressSelectorType")?,
        };
    }
    for (i, rule) in list(fields, at, "claimValidationRules")?.iter().enumerate() {
        let at = format!("{at}.claimValidationRules[{i}]");
        let f = object(rule, &at)?;
        known(f, &at, &["claim", "requiredValue", "expression", "message"])?;
        out.claim_validation_rules.push(RawClaimRule {
            claim: string(f, &at, "claim")?,
            required_value: string(f, &at, "requiredValue")?,
            expression: string(f, &at, "expression")?,
            message: string(f, &at, "message")?,
        });
    }
    if let Some(mappings) = present(fields, "claimMappings") {
        let at = join(at, "claimMappings");
        let f = object(mappings, &at)?;
        known(f, &at, &["username", "groups", "uid", "extra"])?;
        out.username = mapping(f, &at, "username", true)?;
        out.groups = mapping(f, &at, "groups", true)?;
        out.uid = mapping(f, &at, "uid", false)?;
        for (i, extra) in list(f, &at, "extra")?.iter().enumerate() {
            let at = format!("{at}.extra[{i}]");
            let e = object(extra, &at)?;
            known(e, &at, &["key", "valueExpression"])?;
            out.extra.push(RawExtra {
                key: string(e, &at, "key")?,
                value_expression: string(e, &at, "valueExpression")?,
            });
        }
    }
    for (i, rule) in list(fields, at, "userValidationRules")?.iter().enumerate() {
        let at = format!("{at}.userValidationRules[{i}]");
        let f = object(rule, &at)?;
        known(f, &at, &["expression", "message"])?;
        out.user_validation_rules.push(RawUserRule {
            expression: string(f, &at, "expression")?,
            message: string(f, &at, "message")?,
        });
    }
    Ok(out)
}

fn mapping(
    parent: &Map<String, Value>,
    at: &str,
    key: &str,
    prefixed: bool,
) -> Result<RawMapping, String> {
    let Some(v) = present(parent, key) else {
        return Ok(RawMapping::default());
    };
    let at = join(at, key);
    let f = object(v, &at)?;
    let allowed: &[&str] = if prefixed {
        &["claim", "prefix", "expression"]
    } else {
        &["claim", "expression"]
    };
    known(f, &at, allowed)?;
    Ok(RawMapping {
        claim: string(f, &at, "claim")?,
        prefix: match present(f, "prefix") {
            Some(_) => Some(string(f, &at, "prefix")?),
            None => None,
        },
        expression: string(f, &at, "expression")?,
    })
}

pub(in crate::config) fn join(at: &str, key: &str) -> String {
    if at.is_empty() {
        key.to_owned()
    } else {
        format!("{at}.{key}")
    }
}

pub(in crate::config) fn present<'a>(
    fields: &'a Map<String, Value>,
    key: &str,
) -> Option<&'a Value> {
    fields.get(key).filter(|v| !v.is_null())
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn mismatch(at: &str, expected: &str, v: &Value) -> String {
    let at = if at.is_empty() { "<root>" } else { at };
    format!(
        "strict decoding error: {at}: cannot unmarshal {} into a value of type {expected}",
        type_name(v)
    )
}

pub(in crate::config) fn object<'a>(
    v: &'a Value,
    at: &str,
) -> Result<&'a Map<String, Value>, String> {
    v.as_object().ok_or_else(|| mismatch(at, "object", v))
}

pub(in crate::config) fn known(
    fields: &Map<String, Value>,
    at: &str,
    allowed: &[&str],
) -> Result<(), String> {
    match fields.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(unknown) => Err(format!(
            "strict decoding error: unknown field \"{}\"",
            join(at, unknown)
        )),
        None => Ok(()),
    }
}

pub(in crate::config) fn string(
    fields: &Map<String, Value>,
    at: &str,
    key: &str,
) -> Result<String, String> {
    match present(fields, key) {
        None => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(mismatch(&join(at, key), "string", other)),
    }
}

pub(in crate::config) fn boolean(
    fields: &Map<String, Value>,
    at: &str,
    key: &str,
) -> Result<bool, String> {
    match present(fields, key) {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(mismatch(&join(at, key), "bool", other)),
    }
}

/// An integer field of Go type `int32`; `None` when absent.
pub(in crate::config) fn int32(
    fields: &Map<String, Value>,
    at: &str,
    key: &str,
) -> Result<Option<i32>, String> {
    match present(fields, key) {
        None => Ok(None),
        Some(v) => v
            .as_i64()
            .and_then(|n| i32::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| mismatch(&join(at, key), "int32", v)),
    }
}

pub(in crate::config) fn list<'a>(
    fields: &'a Map<String, Value>,
    at: &str,
    key: &str,
) -> Result<&'a [Value], String> {
    match present(fields, key) {
        None => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(other) => Err(mismatch(&join(at, key), "array", other)),
    }
}

pub(in crate::config) fn strings(
    fields: &Map<String, Value>,
    at: &str,
    key: &str,
) -> Result<Vec<String>, String> {
    list(fields, at, key)?
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::String(s) => Ok(s.clone()),
            Value::Null => Ok(String::new()),
            other => Err(mismatch(
                &format!("{}[{i}]", join(at, key)),
                "string",
                other,
            )),
        })
        .collect()
}
