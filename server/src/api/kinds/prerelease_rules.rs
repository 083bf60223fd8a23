//! Rules of the alpha and beta kinds Kubernetes 1.32 still has:
//! `networking/v1beta1` IPAddress and ServiceCIDR and the
//! VolumeAttributesClass of `storage/v1beta1`, with kube's field paths and
//! messages. ClusterTrustBundle's are in `trust_bundle_rules`.

use std::net::IpAddr;

use serde_json::Value;

use super::checks::{items_at, object_at, str_at};
use crate::api::error::Cause;
use crate::api::kind::NameRule;
use crate::api::meta::{is_subdomain, name_problem};
use crate::api::selectors::qualified_name_errors;

/// Go's `netip.ParseAddr` error for text that is no IP address.
fn parse_addr(text: &str) -> Result<IpAddr, String> {
    text.parse()
        .map_err(|_| format!("ParseAddr({text:?}): unable to parse IP"))
}

/// An IPAddress: named by its address in canonical form, owned by a
/// parent object.
#[must_use]
pub fn ip_address_checks(obj: &Value) -> Vec<Cause> {
    let mut out = Vec::new();
    let name = str_at(obj, "/metadata/name");
    if !name.is_empty() {
        match parse_addr(name) {
            Err(e) => out.push(Cause::invalid("metadata.name", name, &e)),
            Ok(ip) if ip.to_string() != name => out.push(Cause::invalid(
                "metadata.name",
                name,
                "must be a canonical format IP address",
            )),
            Ok(_) => {}
        }
    }
    let Some(parent) = object_at(obj, "/spec/parentRef") else {
        out.push(Cause::required("spec.parentRef"));
        return out;
    };
    let text = |field: &str| parent.get(field).and_then(Value::as_str).unwrap_or("");
    let group = text("group");
    if !group.is_empty() && !is_subdomain(group) {
        let detail = name_problem(group, NameRule::Subdomain).unwrap_or_default();
        out.push(Cause::invalid("spec.parentRef.group", group, &detail));
    }
    for (field, required) in [("resource", true), ("name", true), ("namespace", false)] {
        let value = text(field);
        let at = format!("spec.parentRef.{field}");
        if value.is_empty() {
            if required {
                out.push(Cause::required(at));
            }
        } else if let Some(detail) = name_problem(value, NameRule::PathSegment) {
            out.push(Cause::invalid(at, value, &detail));
        }
    }
    out
}

/// Go's `%#v` of a ServiceCIDRSpec, as kube shows the spec in its causes.
fn shown_spec(cidrs: &[&str]) -> String {
    let quoted: Vec<String> = cidrs.iter().map(|c| format!("{c:?}")).collect();
    format!(
        "networking.ServiceCIDRSpec{{CIDRs:[]string{{{}}}}}",
        quoted.join(", ")
    )
}

/// `(address, prefix length)` of a CIDR, or Go's `netip.ParsePrefix` error.
fn parse_prefix(text: &str) -> Result<(IpAddr, u8), String> {
    let fail = |why: String| format!("netip.ParsePrefix({text:?}): {why}");
    let Some((addr, bits)) = text.split_once('/') else {
        return Err(fail("no '/'".into()));
    };
    let ip = parse_addr(addr).map_err(fail)?;
    let bits: u8 = bits
        .parse()
        .map_err(|_| fail(format!("bad bits after slash: {bits:?}")))?;
    let max = if ip.is_ipv4() { 32 } else { 128 };
    if bits > max {
        return Err(fail("prefix length out of range".into()));
    }
    Ok((ip, bits))
}

/// Whether the bits after the prefix are all zero.
fn is_network_address(ip: IpAddr, bits: u8) -> bool {
    let (value, width) = match ip {
        IpAddr::V4(v4) => (u128::from(u32::from(v4)), 32),
        IpAddr::V6(v6) => (u128::from(v6), 128),
    };
    let host_bits = u32::from(width - bits);
    host_bits == 0 || value & ((1u128 << host_bits) - 1) == 0
}

/// A ServiceCIDR: one CIDR, or two of different families, each a network
/// address in canonical form.
#[must_use]
pub fn service_cidr_checks(obj: &Value) -> Vec<Cause> {
    let cidrs: Vec<&str> = items_at(obj, "/spec/cidrs")
        .iter()
        .map(|c| c.as_str().unwrap_or(""))
        .collect();
    let field = "spec.cidrs";
    match cidrs.len() {
        0 => {
            return vec![Cause::new(
                "FieldValueRequired",
                field,
                "Required value: at least one CIDR required",
            )];
        }
        1 => {}
        2 => {
            let families: Vec<Option<bool>> = cidrs
                .iter()
                .map(|c| parse_prefix(c).ok().map(|(ip, _)| ip.is_ipv4()))
                .collect();
            if families.contains(&None) || families[0] == families[1] {
                return vec![invalid_spec(
                    &cidrs,
                    "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64",
                )];
            }
        }
        _ => return vec![invalid_spec(&cidrs, "may only hold up to 2 values")],
    }
    let mut out = Vec::new();
    for (i, cidr) in cidrs.iter().enumerate() {
        let at = format!("{field}[{i}]");
        match parse_prefix(cidr) {
            Err(e) => out.push(Cause::invalid(&at, cidr, &e)),
            Ok((ip, bits)) => {
                if !is_network_address(ip, bits) {
                    out.push(Cause::invalid(
                        &at,
                        cidr,
                        "wrong CIDR format, IP doesn't match network IP address",
                    ));
                }
                if format!("{ip}/{bits}") != *cidr {
                    out.push(Cause::invalid(
                        &at,
                        cidr,
                        "CIDR not in RFC 5952 canonical format",
                    ));
                }
            }
        }
    }
    out
}

fn invalid_spec(cidrs: &[&str], detail: &str) -> Cause {
    Cause::new(
        "FieldValueInvalid",
        "spec.cidrs",
        format!("Invalid value: {}: {detail}", shown_spec(cidrs)),
    )
}

/// Kube's bounds on a VolumeAttributesClass's parameters.
const MAX_PARAMETERS: usize = 512;
const MAX_PARAMETERS_BYTES: usize = 256 * 1024;

fn too_long(field: &str, limit: usize) -> Cause {
    Cause::new(
        "FieldValueTooLong",
        field,
        format!("Too long: may not be more than {limit} bytes"),
    )
}

/// A VolumeAttributesClass: a driver named as a provisioner is, and at
/// least one parameter.
#[must_use]
pub fn volume_attributes_class_checks(obj: &Value) -> Vec<Cause> {
    let mut out = Vec::new();
    let driver = str_at(obj, "/driverName");
    if driver.is_empty() {
        out.push(Cause::required("driverName"));
    } else {
        let lowered = driver.to_lowercase();
        for error in qualified_name_errors(&lowered) {
            out.push(Cause::invalid("driverName", driver, &error));
        }
    }
    let parameters = object_at(obj, "/parameters");
    let count = parameters.map_or(0, serde_json::Map::len);
    if count > MAX_PARAMETERS {
        out.push(too_long("parameters", MAX_PARAMETERS));
        return out;
    }
    let mut bytes = 0;
    for (key, value) in parameters.into_iter().flatten() {
        if key.is_empty() {
            out.push(Cause::invalid("parameters", "", "field can not be empty."));
        }
        bytes += key.len() + value.as_str().map_or(0, str::len);
    }
    if bytes > MAX_PARAMETERS_BYTES {
        out.push(too_long("parameters", MAX_PARAMETERS_BYTES));
    }
    if count == 0 {
        out.push(Cause::new(
            "FieldValueRequired",
            "parameters",
            "Required value: must contain at least one key/value pair",
        ));
    }
    out
}

/// A VolumeAttributesClass's driver and parameters are fixed.
#[must_use]
pub fn volume_attributes_class_update_checks(new: &Value, old: &Value) -> Vec<Cause> {
    ["driverName", "parameters"]
        .into_iter()
        .filter(|field| new.get(field) != old.get(field))
        .map(|field| Cause::forbidden(field, &format!("updates to {field} are forbidden.")))
        .collect()
}

#[cfg(test)]
#[path = "prerelease_rules_tests.rs"]
mod tests;
