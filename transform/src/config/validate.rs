//! Kubernetes' validation of an EncryptionConfiguration, in its words:
//! `<field path>: <Required value|Invalid value: "…">: <why>`. Key
//! material never appears (a secret is shown as `REDACTED`).

use std::collections::HashSet;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use super::decode::{RawConfig, RawKey, RawKms, RawProvider};
use super::{DEFAULT_KMS_TIMEOUT, Key, KmsProvider, Provider, ResourceConfig};
use crate::resources::GroupResource;

const AES_GCM_SIZES: &[usize] = &[16, 24, 32];
const AES_CBC_SIZES: &[usize] = &[32];
const SECRETBOX_SIZES: &[usize] = &[32];

fn required(at: &str, why: &str) -> String {
    format!("{at}: Required value: {why}")
}

fn invalid(at: &str, value: &str, why: &str) -> String {
    format!("{at}: Invalid value: {value:?}: {why}")
}

/// The configuration's entries, or every problem found.
pub fn validate(raw: RawConfig, domain: &str, errors: &mut Vec<String>) -> Vec<ResourceConfig> {
    if raw.resources.is_empty() {
        errors.push(required("resources", "at least one resources is required"));
        return Vec::new();
    }
    let mut kms_names = HashSet::new();
    let mut out = Vec::new();
    for (i, entry) in raw.resources.into_iter().enumerate() {
        let r = format!("resources[{i}].resources");
        let p = format!("resources[{i}].providers");
        if entry.resources.is_empty() {
            errors.push(required(&r, &format!("at least one {r} is required")));
        }
        overlap(&entry.resources, &r, errors);
        names(&entry.resources, &r, domain, errors);
        if entry.providers.is_empty() {
            errors.push(required(&p, &format!("at least one {p} is required")));
        }
        let providers = entry
            .providers
            .into_iter()
            .enumerate()
            .filter_map(|(j, raw)| provider(raw, &format!("{p}[{j}]"), &mut kms_names, errors))
            .collect();
        out.push(ResourceConfig {
            resources: entry
                .resources
                .iter()
                .map(|s| GroupResource::parse(s))
                .collect(),
            providers,
        });
    }
    out
}

fn overlap(resources: &[String], at: &str, errors: &mut Vec<String>) {
    let parsed: Vec<GroupResource> = resources.iter().map(|s| GroupResource::parse(s)).collect();
    let (mut duplicate, mut overlapping) = (false, false);
    for (i, a) in parsed.iter().enumerate() {
        for (j, b) in parsed.iter().enumerate() {
            if i == j {
                continue;
            }
            if a == b {
                duplicate = true;
                continue;
            }
            let every = a.group == "*" && a.resource == "*";
            if every || (a.group == b.group && (a.resource == "*" || b.resource == "*")) {
                overlapping = true;
            }
        }
    }
    let joined = resources.join(",");
    if duplicate {
        errors.push(invalid(
            at,
            &joined,
            "the same resource cannot be specified multiple times",
        ));
    }
    if overlapping {
        errors.push(invalid(
            at,
            &joined,
            "using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked",
        ));
    }
}

fn names(resources: &[String], at: &str, domain: &str, errors: &mut Vec<String>) {
    let events = format!("events.{domain}");
    for (j, name) in resources.iter().enumerate() {
        let at = format!("{at}[{j}]");
        let gr = GroupResource::parse(name);
        let why = if name.chars().any(char::is_uppercase) {
            "resource name should not contain capital letters"
        } else if name == "*" {
            "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources"
        } else if [
            "apiserveripinfo",
            "serviceipallocations",
            "servicenodeportallocations",
        ]
        .contains(&name.as_str())
        {
            "resources which do not have REST API/s cannot be encrypted"
        } else if gr.group == events {
            "'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file"
        } else if gr.group == "extensions" {
            "'extensions' group has been removed and cannot be used for encryption"
        } else if gr.group == "*" && gr.resource != "*" {
            "encrypting the same resource across groups is not supported"
        } else {
            continue;
        };
        errors.push(invalid(&at, name, why));
    }
}

fn provider(
    raw: RawProvider,
    at: &str,
    kms_names: &mut HashSet<String>,
    errors: &mut Vec<String>,
) -> Option<Provider> {
    let named = usize::from(raw.aesgcm.is_some())
        + usize::from(raw.aescbc.is_some())
        + usize::from(raw.secretbox.is_some())
        + usize::from(raw.identity)
        + usize::from(raw.kms.is_some());
    if named == 0 {
        errors.push(invalid(
            at,
            &raw.text,
            "provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity",
        ));
        return None;
    }
    if named > 1 {
        errors.push(invalid(
            at,
            &raw.text,
            "more than one provider specified in a single element, should split into different list elements",
        ));
        return None;
    }
    let before = errors.len();
    let provider = if let Some(k) = raw.aesgcm {
        Provider::AesGcm(keys(k, &format!("{at}.aesgcm.keys"), AES_GCM_SIZES, errors))
    } else if let Some(k) = raw.aescbc {
        Provider::AesCbc(keys(k, &format!("{at}.aescbc.keys"), AES_CBC_SIZES, errors))
    } else if let Some(k) = raw.secretbox {
        Provider::Secretbox(keys(
            k,
            &format!("{at}.secretbox.keys"),
            SECRETBOX_SIZES,
            errors,
        ))
    } else if let Some(k) = raw.kms {
        Provider::Kms(kms(k, &format!("{at}.kms"), kms_names, errors))
    } else {
        Provider::Identity
    };
    (errors.len() == before).then_some(provider)
}

fn keys(raw: Vec<RawKey>, at: &str, sizes: &[usize], errors: &mut Vec<String>) -> Vec<Key> {
    if raw.is_empty() {
        errors.push(required(at, "at least one keys is required"));
        return Vec::new();
    }
    let mut out = Vec::new();
    for (i, key) in raw.into_iter().enumerate() {
        let at = format!("{at}[{i}]");
        if key.name.is_empty() {
            errors.push(required(
                &format!("{at}.name"),
                "name is a mandatory field for a key",
            ));
        }
        let secret_at = format!("{at}.secret");
        if key.secret.is_empty() {
            errors.push(required(
                &secret_at,
                "secret is a mandatory field for a key",
            ));
            continue;
        }
        let Ok(secret) = STANDARD.decode(key.secret.as_bytes()) else {
            errors.push(invalid(
                &secret_at,
                "REDACTED",
                "secrets must be base64 encoded",
            ));
            continue;
        };
        if !sizes.contains(&secret.len()) {
            let sizes: Vec<String> = sizes.iter().map(ToString::to_string).collect();
            errors.push(invalid(
                &secret_at,
                "REDACTED",
                &format!(
                    "secret is not of the expected length, got {}, expected one of [{}]",
                    secret.len(),
                    sizes.join(" ")
                ),
            ));
            continue;
        }
        out.push(Key::new(key.name, secret));
    }
    out
}

fn kms(
    raw: RawKms,
    at: &str,
    names: &mut HashSet<String>,
    errors: &mut Vec<String>,
) -> KmsProvider {
    // Kubernetes' default version is v1, which 1.32 only serves behind the
    // deprecated KMSv1 gate; this server has no KMS v1 client.
    let version = if raw.api_version.is_empty() {
        "v1"
    } else {
        raw.api_version.as_str()
    };
    let name_at = format!("{at}.name");
    if raw.name.is_empty() {
        errors.push(required(
            &name_at,
            "name is a mandatory field for a provider",
        ));
    }
    if version != "v1" && raw.name.contains(':') {
        errors.push(invalid(
            &name_at,
            &raw.name,
            &format!(
                "invalid KMS provider name {}, must not contain ':'",
                raw.name
            ),
        ));
    }
    if !names.insert(raw.name.clone()) {
        errors.push(invalid(
            &name_at,
            &raw.name,
            &format!(
                "duplicate KMS provider name {}, names must be unique",
                raw.name
            ),
        ));
    }
    let timeout = match raw.timeout.as_deref().map(go_duration) {
        None => DEFAULT_KMS_TIMEOUT,
        Some(Some(d)) if !d.is_zero() => d,
        Some(_) => {
            errors.push(invalid(
                &format!("{at}.timeout"),
                raw.timeout.as_deref().unwrap_or_default(),
                "timeout should be a positive value",
            ));
            DEFAULT_KMS_TIMEOUT
        }
    };
    endpoint(&raw.endpoint, &format!("{at}.endpoint"), errors);
    if let Some(size) = raw.cachesize {
        if version != "v1" {
            errors.push(invalid(
                &format!("{at}.cachesize"),
                &size.to_string(),
                "cachesize is not supported in v2",
            ));
        } else if size == 0 {
            errors.push(invalid(
                &format!("{at}.cachesize"),
                "0",
                "cachesize should be a positive value, or negative to disable",
            ));
        }
    }
    match version {
        "v2" => {}
        "v1" => errors.push(format!(
            "{at}: KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 instead. Set --feature-gates=KMSv1=true to use the deprecated KMSv1 feature (KMS v1 is not available in this server)"
        )),
        other => errors.push(invalid(
            &format!("{at}.apiVersion"),
            other,
            "unsupported apiVersion apiVersion for KMS provider, only v1 and v2 are supported",
        )),
    }
    KmsProvider {
        name: raw.name,
        endpoint: raw.endpoint,
        timeout,
    }
}

fn endpoint(endpoint: &str, at: &str, errors: &mut Vec<String>) {
    if endpoint.is_empty() {
        errors.push(invalid(at, "", "endpoint is a mandatory field for a kms"));
        return;
    }
    let scheme = endpoint.split_once("://").map_or("", |(s, _)| s);
    if scheme != "unix" {
        errors.push(invalid(
            at,
            endpoint,
            &format!("unsupported scheme {scheme:?} for KMS provider, only unix is supported"),
        ));
    } else if endpoint.len() <= "unix://".len() {
        errors.push(invalid(at, endpoint, "the unix socket path is empty"));
    }
}

/// A Go duration (`3s`, `1m30s`, `500ms`, `1.5s`); `None` when unreadable
/// or negative. The server's flags and files read durations with it too.
#[must_use]
pub fn go_duration(text: &str) -> Option<Duration> {
    if text == "0" {
        return Some(Duration::ZERO);
    }
    let mut rest = text;
    let mut seconds = 0f64;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
        let value: f64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let unit = match &rest[..unit_end] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 1e-3,
            "us" | "µs" => 1e-6,
            "ns" => 1e-9,
            _ => return None,
        };
        seconds += value * unit;
        rest = &rest[unit_end..];
    }
    Some(Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::go_duration;
    use std::time::Duration;

    #[test]
    fn go_durations() {
        assert_eq!(go_duration("3s"), Some(Duration::from_secs(3)));
        assert_eq!(go_duration("1m30s"), Some(Duration::from_secs(90)));
        assert_eq!(go_duration("250ms"), Some(Duration::from_millis(250)));
        assert_eq!(go_duration("-1s"), None);
        assert_eq!(go_duration("3"), None);
    }
}
