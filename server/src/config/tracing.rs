//! `--tracing-config-file`: the TracingConfiguration file (spec 2.7), read
//! strictly and validated with kube-apiserver's rules: where spans go
//! (`endpoint`, an OTLP gRPC collector reached without TLS) and how many
//! traces this server starts (`samplingRatePerMillion`).

use std::path::Path;

use serde_json::Value;

use crate::api::schema::FieldError;
use crate::config::authn::decode::{int32, known, object, present, string};
use crate::config::authn::{aggregate, check_type};
use crate::config::document::{self, Problem};

const KIND: &str = "TracingConfiguration";
/// The collector kube's components report to when `endpoint` is unset.
pub const DEFAULT_ENDPOINT: &str = "localhost:4317";
const MAX_SAMPLING_RATE_PER_MILLION: i32 = 1_000_000;

/// A validated configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TracingSettings {
    /// `host:port` (or a URL) of the collector.
    pub endpoint: String,
    /// Root spans sampled per million; 0 (unset) starts no trace of its
    /// own and only follows a sampled parent.
    pub sampling_rate_per_million: i32,
}

impl TracingSettings {
    /// The collector's URL for a gRPC channel (plain HTTP/2).
    #[must_use]
    pub fn collector_url(&self) -> String {
        if self.endpoint.contains("://") {
            self.endpoint.clone()
        } else {
            format!("http://{}", self.endpoint)
        }
    }

    /// The fraction of traces started here (parents aside).
    #[must_use]
    pub fn ratio(&self) -> f64 {
        f64::from(self.sampling_rate_per_million) / f64::from(MAX_SAMPLING_RATE_PER_MILLION)
    }
}

/// Reads and validates the file at `path` (apiVersion at `domain`).
pub fn load(path: &Path, domain: &str) -> Result<TracingSettings, String> {
    document::load(path, "tracing configuration", KIND, |data| {
        parse(data, domain)
    })
}

/// Reads and validates a document (YAML or JSON).
pub fn parse(data: &[u8], domain: &str) -> Result<TracingSettings, Problem> {
    let doc = document::decode(data)?;
    let fields = object(&doc, "").map_err(Problem::Load)?;
    known(
        fields,
        "",
        &["apiVersion", "kind", "endpoint", "samplingRatePerMillion"],
    )
    .map_err(Problem::Load)?;
    let api_version = string(fields, "", "apiVersion").map_err(Problem::Load)?;
    let kind = string(fields, "", "kind").map_err(Problem::Load)?;
    check_type(&api_version, &kind, KIND, domain).map_err(Problem::Load)?;
    let endpoint = match present(fields, "endpoint") {
        Some(_) => Some(string(fields, "", "endpoint").map_err(Problem::Load)?),
        None => None,
    };
    let rate = int32(fields, "", "samplingRatePerMillion").map_err(Problem::Load)?;
    let mut errors = Vec::new();
    if let Some(endpoint) = &endpoint
        && let Err(why) = check_endpoint(endpoint)
    {
        errors.push(FieldError::invalid(
            "endpoint",
            Value::String(endpoint.clone()),
            why,
        ));
    }
    if let Some(rate) = rate {
        if rate < 0 {
            errors.push(FieldError::invalid(
                "samplingRatePerMillion",
                rate.into(),
                "sampling rate must be positive",
            ));
        } else if rate > MAX_SAMPLING_RATE_PER_MILLION {
            errors.push(FieldError::invalid(
                "samplingRatePerMillion",
                rate.into(),
                "sampling rate per million must be less than or equal to one million",
            ));
        }
    }
    if !errors.is_empty() {
        return Err(Problem::Invalid(format!(
            "invalid tracing configuration: {}",
            aggregate(&errors)
        )));
    }
    Ok(TracingSettings {
        endpoint: endpoint.unwrap_or_else(|| DEFAULT_ENDPOINT.to_string()),
        sampling_rate_per_million: rate.unwrap_or(0),
    })
}

/// An address a gRPC channel can dial: `host:port`, `host`, or an
/// `http(s)://host[:port]` URL.
fn check_endpoint(endpoint: &str) -> Result<(), String> {
    let address = match endpoint.split_once("://") {
        Some(("http" | "https", rest)) => rest.trim_end_matches('/'),
        Some((scheme, _)) => return Err(format!("unsupported scheme {scheme:?}")),
        None => endpoint,
    };
    let url = format!("http://{address}");
    match url.parse::<http::Uri>() {
        Ok(uri) if uri.host().is_some_and(|h| !h.is_empty()) && !address.contains('/') => Ok(()),
        Ok(_) => Err("must be a host:port address".into()),
        Err(e) => Err(format!("not a host:port address: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<TracingSettings, Problem> {
        parse(text.as_bytes(), "k8s.io")
    }

    const HEAD: &str = "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: TracingConfiguration\n";

    #[test]
    fn unset_fields_take_kubes_defaults() {
        let settings = parsed(HEAD).unwrap();
        assert_eq!(settings.endpoint, "localhost:4317");
        assert_eq!(settings.sampling_rate_per_million, 0);
        assert_eq!(settings.collector_url(), "http://localhost:4317");
        assert!(settings.ratio() == 0.0);
        let full = parsed(&format!(
            "{HEAD}endpoint: 127.0.0.1:9999\nsamplingRatePerMillion: 1000000\n"
        ))
        .unwrap();
        assert_eq!(full.collector_url(), "http://127.0.0.1:9999");
        assert!(full.ratio() == 1.0);
    }

    #[test]
    fn bad_values_are_refused_with_the_field_named() {
        let cases = [
            (
                "samplingRatePerMillion: -10\n",
                "invalid tracing configuration: samplingRatePerMillion: Invalid value: -10: sampling rate must be positive",
            ),
            (
                "samplingRatePerMillion: 1000001\n",
                "samplingRatePerMillion: Invalid value: 1000001: sampling rate per million must be less than or equal to one million",
            ),
            (
                "endpoint: \"ftp://x:1\"\n",
                "endpoint: Invalid value: \"ftp://x:1\": unsupported scheme \"ftp\"",
            ),
            (
                "endpoint: \"a b:1\"\n",
                "endpoint: Invalid value: \"a b:1\"",
            ),
            ("endpoint: \"host:1/path\"\n", "must be a host:port address"),
        ];
        for (body, expected) in cases {
            let Err(Problem::Invalid(line)) = parsed(&format!("{HEAD}{body}")) else {
                panic!("{body} was accepted");
            };
            assert!(line.contains(expected), "{body}: {line}");
        }
    }

    #[test]
    fn unknown_fields_wrong_types_and_kinds_fail_to_load() {
        let cases = [
            (format!("{HEAD}sampling: 1\n"), "unknown field \"sampling\""),
            (
                format!("{HEAD}samplingRatePerMillion: \"10\"\n"),
                "samplingRatePerMillion: cannot unmarshal string into a value of type int32",
            ),
            (
                format!("{HEAD}samplingRatePerMillion: 1.5\n"),
                "cannot unmarshal number",
            ),
            (
                "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfig\n".to_string(),
                "no kind \"TracingConfig\" is registered",
            ),
        ];
        for (text, expected) in cases {
            let Err(Problem::Load(line)) = parsed(&text) else {
                panic!("{text} was accepted");
            };
            assert!(line.contains(expected), "{text}: {line}");
        }
    }
}
