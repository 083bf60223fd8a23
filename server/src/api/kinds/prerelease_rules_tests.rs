//! The alpha and beta kinds' rules against kube's messages.

use serde_json::{Value, json};

use super::*;

fn messages(causes: Vec<Cause>) -> Vec<String> {
    causes
        .into_iter()
        .map(|c| format!("{}: {}", c.field, c.message))
        .collect()
}

fn ip_address(name: &str, parent: Value) -> Value {
    json!({"metadata": {"name": name}, "spec": {"parentRef": parent}})
}

#[test]
fn an_ip_address_is_named_canonically_and_has_a_parent() {
    let parent = json!({"resource": "services", "namespace": "default", "name": "web"});
    for name in ["10.0.0.7", "2001:db8::1"] {
        assert!(
            ip_address_checks(&ip_address(name, parent.clone())).is_empty(),
            "{name}"
        );
    }
    assert_eq!(
        messages(ip_address_checks(&ip_address(
            "2001:DB8::1",
            parent.clone()
        ))),
        ["metadata.name: Invalid value: \"2001:DB8::1\": must be a canonical format IP address"]
    );
    assert_eq!(
        messages(ip_address_checks(&ip_address("web", parent))),
        ["metadata.name: Invalid value: \"web\": ParseAddr(\"web\"): unable to parse IP"]
    );
    assert_eq!(
        messages(ip_address_checks(
            &json!({"metadata": {"name": "10.0.0.7"}, "spec": {}})
        )),
        ["spec.parentRef: Required value"]
    );
    assert_eq!(
        messages(ip_address_checks(&ip_address(
            "10.0.0.7",
            json!({"group": "Bad_Group", "name": "a/b"})
        ))),
        [
            "spec.parentRef.group: Invalid value: \"Bad_Group\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
            "spec.parentRef.resource: Required value",
            "spec.parentRef.name: Invalid value: \"a/b\": may not contain '/'",
        ]
    );
}

fn cidrs(list: &[&str]) -> Vec<String> {
    messages(service_cidr_checks(&json!({"spec": {"cidrs": list}})))
}

#[test]
fn a_service_cidr_holds_one_network_per_family_in_canonical_form() {
    assert!(cidrs(&["10.96.0.0/16"]).is_empty());
    assert!(cidrs(&["10.96.0.0/16", "fd00:10:96::/112"]).is_empty());
    assert_eq!(
        cidrs(&[]),
        ["spec.cidrs: Required value: at least one CIDR required"]
    );
    assert_eq!(
        cidrs(&["10.0.0.0/8", "11.0.0.0/8"]),
        [
            "spec.cidrs: Invalid value: networking.ServiceCIDRSpec{CIDRs:[]string{\"10.0.0.0/8\", \"11.0.0.0/8\"}}: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64"
        ]
    );
    assert_eq!(
        cidrs(&["a", "b", "c"]),
        [
            "spec.cidrs: Invalid value: networking.ServiceCIDRSpec{CIDRs:[]string{\"a\", \"b\", \"c\"}}: may only hold up to 2 values"
        ]
    );
    assert_eq!(
        cidrs(&["10.96.0.1/16"]),
        [
            "spec.cidrs[0]: Invalid value: \"10.96.0.1/16\": wrong CIDR format, IP doesn't match network IP address"
        ]
    );
    assert_eq!(
        cidrs(&["FD00::/64"]),
        ["spec.cidrs[0]: Invalid value: \"FD00::/64\": CIDR not in RFC 5952 canonical format"]
    );
    assert_eq!(
        cidrs(&["10.0.0.0"]),
        ["spec.cidrs[0]: Invalid value: \"10.0.0.0\": netip.ParsePrefix(\"10.0.0.0\"): no '/'"]
    );
    assert_eq!(
        cidrs(&["10.0.0.0/33"]),
        [
            "spec.cidrs[0]: Invalid value: \"10.0.0.0/33\": netip.ParsePrefix(\"10.0.0.0/33\"): prefix length out of range"
        ]
    );
}

#[test]
fn a_volume_attributes_class_names_a_driver_and_parameters_it_keeps() {
    let class = json!({"driverName": "csi.example.com", "parameters": {"iops": "100"}});
    assert!(volume_attributes_class_checks(&class).is_empty());
    assert_eq!(
        messages(volume_attributes_class_checks(&json!({}))),
        [
            "driverName: Required value",
            "parameters: Required value: must contain at least one key/value pair"
        ]
    );
    let bad = messages(volume_attributes_class_checks(
        &json!({"driverName": "bad driver!", "parameters": {"": "x"}}),
    ));
    assert!(
        bad[0].starts_with("driverName: Invalid value: \"bad driver!\": name part must consist of"),
        "{bad:?}"
    );
    assert_eq!(
        bad[1],
        "parameters: Invalid value: \"\": field can not be empty."
    );
    let mut changed = class.clone();
    changed["driverName"] = json!("other.example.com");
    changed["parameters"]["iops"] = json!("200");
    assert_eq!(
        messages(volume_attributes_class_update_checks(&changed, &class)),
        [
            "driverName: Forbidden: updates to driverName are forbidden.",
            "parameters: Forbidden: updates to parameters are forbidden."
        ]
    );
}
