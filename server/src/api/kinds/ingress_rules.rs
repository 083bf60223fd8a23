//! networking/v1 Ingress checks a manifest author meets (9.3): a default
//! backend or rules, each backend a service (name, and a port number or
//! name, not both) or a resource, `pathType` required and one of Exact,
//! Prefix, ImplementationSpecific, and paths as Kubernetes accepts them.

use serde_json::Value;

use super::checks::{items_at, str_at};
use crate::api::error::Cause;
use crate::api::meta::is_subdomain;

const PATH_TYPES: &str = "\"Exact\", \"ImplementationSpecific\", \"Prefix\"";
const BAD_SEQUENCES: [&str; 5] = ["//", "/./", "/../", "%2f", "%2F"];
const BAD_SUFFIXES: [&str; 2] = ["/..", "/."];

/// Every Ingress check.
#[must_use]
pub fn checks(obj: &Value) -> Vec<Cause> {
    let mut out = Vec::new();
    let rules = items_at(obj, "/spec/rules");
    let default_backend = obj.pointer("/spec/defaultBackend").filter(|b| !b.is_null());
    if rules.is_empty() && default_backend.is_none() {
        out.push(Cause::new(
            "FieldValueInvalid",
            "spec.rules",
            "Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified",
        ));
    }
    if let Some(backend) = default_backend {
        backend_causes(backend, "spec.defaultBackend", &mut out);
    }
    for (i, rule) in rules.iter().enumerate() {
        let here = format!("spec.rules[{i}]");
        host_causes(str_at(rule, "/host"), &format!("{here}.host"), &mut out);
        let Some(http) = rule.get("http").filter(|h| !h.is_null()) else {
            continue;
        };
        let paths = items_at(http, "/paths");
        if paths.is_empty() {
            out.push(Cause::required(format!("{here}.http.paths")));
        }
        for (j, path) in paths.iter().enumerate() {
            path_causes(path, &format!("{here}.http.paths[{j}]"), &mut out);
        }
    }
    for (i, tls) in items_at(obj, "/spec/tls").iter().enumerate() {
        for (j, host) in items_at(tls, "/hosts").iter().enumerate() {
            let host = host.as_str().unwrap_or_default();
            if !is_host(host) {
                out.push(subdomain_cause(&format!("spec.tls[{i}].hosts[{j}]"), host));
            }
        }
    }
    out
}

fn is_host(host: &str) -> bool {
    is_subdomain(host.strip_prefix("*.").unwrap_or(host))
}

fn subdomain_cause(field: &str, value: &str) -> Cause {
    Cause::invalid(
        field,
        value,
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    )
}

fn host_causes(host: &str, field: &str, out: &mut Vec<Cause>) {
    if host.is_empty() {
        return;
    }
    if host.parse::<std::net::IpAddr>().is_ok() {
        out.push(Cause::invalid(
            field,
            host,
            "must be a DNS name, not an IP address",
        ));
    } else if host.contains('*') && !host.starts_with("*.") {
        out.push(Cause::invalid(
            field,
            host,
            "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ));
    } else if !is_host(host) {
        out.push(subdomain_cause(field, host));
    }
}

fn path_causes(path: &Value, here: &str, out: &mut Vec<Cause>) {
    let text = str_at(path, "/path");
    let field = format!("{here}.path");
    match path.get("pathType").and_then(Value::as_str) {
        None => out.push(Cause::new(
            "FieldValueRequired",
            format!("{here}.pathType"),
            "Required value: pathType must be specified",
        )),
        Some("Exact" | "Prefix") => {
            if !text.starts_with('/') {
                out.push(Cause::invalid(&field, text, "must be an absolute path"));
            }
            for bad in BAD_SEQUENCES.iter().filter(|s| text.contains(**s)) {
                out.push(Cause::invalid(
                    &field,
                    text,
                    &format!("must not contain '{bad}'"),
                ));
            }
            for bad in BAD_SUFFIXES.iter().filter(|s| text.ends_with(**s)) {
                out.push(Cause::invalid(
                    &field,
                    text,
                    &format!("cannot end with '{bad}'"),
                ));
            }
        }
        Some("ImplementationSpecific") => {
            if !text.is_empty() && !text.starts_with('/') {
                out.push(Cause::invalid(&field, text, "must be an absolute path"));
            }
        }
        Some(other) => out.push(Cause::new(
            "FieldValueNotSupported",
            format!("{here}.pathType"),
            format!("Unsupported value: {other:?}: supported values: {PATH_TYPES}"),
        )),
    }
    match path.get("backend").filter(|b| !b.is_null()) {
        Some(backend) => backend_causes(backend, &format!("{here}.backend"), out),
        None => out.push(Cause::required(format!("{here}.backend"))),
    }
}

/// A service or resource backend, as Kubernetes' `validateIngressBackend`.
pub fn backend_causes(backend: &Value, here: &str, out: &mut Vec<Cause>) {
    let service = backend.get("service").filter(|s| !s.is_null());
    let resource = backend.get("resource").filter(|s| !s.is_null());
    match (service, resource) {
        (Some(_), Some(_)) => out.push(Cause::invalid(
            here,
            "",
            "cannot set both resource and service backends",
        )),
        (None, Some(_)) => {}
        (None, None) => out.push(Cause::invalid(
            here,
            "",
            "resource or service backend is required",
        )),
        (Some(service), None) => service_causes(service, here, out),
    }
}

fn service_causes(service: &Value, here: &str, out: &mut Vec<Cause>) {
    let name = str_at(service, "/name");
    if name.is_empty() {
        out.push(Cause::required(format!("{here}.service.name")));
    } else if !is_dns1035_label(name) {
        out.push(Cause::invalid(
            format!("{here}.service.name"),
            name,
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        ));
    }
    let port_name = str_at(service, "/port/name");
    let port_number = service
        .pointer("/port/number")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    match (port_name.is_empty(), port_number) {
        (false, n) if n != 0 => out.push(Cause::invalid(
            here,
            "",
            "cannot set both port name & port number",
        )),
        (false, _) => {
            for problem in port_name_problems(port_name) {
                out.push(Cause::invalid(
                    format!("{here}.service.port.name"),
                    port_name,
                    problem,
                ));
            }
        }
        (true, 0) => out.push(Cause::new(
            "FieldValueRequired",
            here,
            "Required value: port name or number is required",
        )),
        (true, n) if !(1..=65535).contains(&n) => out.push(Cause::new(
            "FieldValueInvalid",
            format!("{here}.service.port.number"),
            format!("Invalid value: {n}: must be between 1 and 65535, inclusive"),
        )),
        (true, _) => {}
    }
}

fn is_dns1035_label(s: &str) -> bool {
    s.len() <= 63
        && s.starts_with(|c: char| c.is_ascii_lowercase())
        && s.ends_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// Kubernetes' `IsValidPortName` (an IANA service name).
#[must_use]
pub fn port_name_problems(name: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    if name.len() > 15 {
        out.push("must be no more than 15 characters");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        out.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
    }
    if !name.bytes().any(|b| b.is_ascii_lowercase()) {
        out.push("must contain at least one letter (a-z)");
    }
    if name.contains("--") {
        out.push("must not contain consecutive hyphens");
    }
    if name.starts_with('-') || name.ends_with('-') {
        out.push("must not begin or end with a hyphen");
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::cause_lines;
    use super::*;

    fn ingress(rules: Value) -> Value {
        json!({"metadata": {"name": "i"}, "spec": {"rules": rules}})
    }

    #[test]
    fn a_rule_with_a_numbered_service_port_is_valid() {
        let ok = ingress(json!([{"host": "a.example.com", "http": {"paths": [
            {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {"number": 80}}}},
            {"pathType": "ImplementationSpecific", "backend": {"service": {"name": "web", "port": {"name": "http"}}}}
        ]}}]));
        assert_eq!(cause_lines(&checks(&ok)), Vec::<String>::new());
    }

    #[test]
    fn rules_or_a_default_backend_are_required() {
        let lines = cause_lines(&checks(&json!({"spec": {}})));
        assert_eq!(
            lines,
            [
                "spec.rules: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified"
            ]
        );
    }

    #[test]
    fn path_type_and_ports_follow_kubernetes() {
        let bad = ingress(json!([{"host": "10.0.0.1", "http": {"paths": [
            {"path": "/a", "backend": {"service": {"name": "web", "port": {"number": 80}}}},
            {"path": "a//b", "pathType": "Exact", "backend": {"service": {"name": "web", "port": {"number": 80, "name": "x"}}}},
            {"path": "/", "pathType": "Regex", "backend": {"service": {"name": "Web", "port": {}}}}
        ]}}]));
        assert_eq!(
            cause_lines(&checks(&bad)),
            [
                "spec.rules[0].host: Invalid value: \"10.0.0.1\": must be a DNS name, not an IP address",
                "spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified",
                "spec.rules[0].http.paths[1].path: Invalid value: \"a//b\": must be an absolute path",
                "spec.rules[0].http.paths[1].path: Invalid value: \"a//b\": must not contain '//'",
                "spec.rules[0].http.paths[1].backend: Invalid value: \"\": cannot set both port name & port number",
                "spec.rules[0].http.paths[2].pathType: Unsupported value: \"Regex\": supported values: \"Exact\", \"ImplementationSpecific\", \"Prefix\"",
                "spec.rules[0].http.paths[2].backend.service.name: Invalid value: \"Web\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
                "spec.rules[0].http.paths[2].backend: Required value: port name or number is required",
            ]
        );
    }

    #[test]
    fn port_names_are_iana_service_names() {
        assert!(port_name_problems("http").is_empty());
        assert_eq!(
            port_name_problems("80"),
            ["must contain at least one letter (a-z)"]
        );
    }
}
