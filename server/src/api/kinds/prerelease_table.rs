//! Table columns of the alpha and beta kinds (IPAddress, ServiceCIDR,
//! VolumeAttributesClass, ClusterTrustBundle), as kubectl prints them.

use serde_json::Value;

use super::checks::{items_at, object_at, str_at};
use super::storage_table::name_marked_default;
use crate::api::kind::Column;

/// `resource[.group][/namespace]/name` of an IPAddress's parent, or `<none>`.
fn parent_ref(obj: &Value) -> Value {
    let Some(parent) = object_at(obj, "/spec/parentRef") else {
        return Value::from("<none>");
    };
    let text = |field: &str| parent.get(field).and_then(Value::as_str).unwrap_or("");
    let mut shown = match text("group") {
        "" => text("resource").to_lowercase(),
        group => format!("{}.{}", text("resource"), group).to_lowercase(),
    };
    for part in [text("namespace"), text("name")] {
        if !part.is_empty() {
            shown.push('/');
            shown.push_str(part);
        }
    }
    Value::from(shown)
}

#[must_use]
pub fn ip_address_columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::computed(
            "ParentRef",
            "string",
            0,
            parent_ref,
            "ParentRef references the resource that an IPAddress is attached to. An IPAddress must reference a parent object.",
        ),
    ]
}

fn cidrs(obj: &Value) -> Value {
    let list: Vec<&str> = items_at(obj, "/spec/cidrs")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    Value::from(list.join(","))
}

#[must_use]
pub fn service_cidr_columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::computed(
            "CIDRs",
            "string",
            0,
            cidrs,
            "CIDRs defines the IP blocks in CIDR notation (e.g. \"192.168.0.0/24\" or \"2001:db8::/64\") from which to assign service cluster IPs.",
        ),
        Column::age(),
    ]
}

fn attributes_class_name(obj: &Value) -> Value {
    name_marked_default(
        obj,
        &["volumeattributesclass.alpha.kubernetes.io/is-default-class"],
    )
}

#[must_use]
pub fn volume_attributes_class_columns() -> Vec<Column> {
    vec![
        Column::name_computed(attributes_class_name),
        Column::new(
            "DriverName",
            "string",
            0,
            ".driverName",
            "Name of the CSI driver This field is immutable.",
        ),
        Column::age(),
    ]
}

fn signer_name(obj: &Value) -> Value {
    match str_at(obj, "/spec/signerName") {
        "" => Value::from("<none>"),
        signer => Value::from(signer),
    }
}

#[must_use]
pub fn trust_bundle_columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::computed(
            "SignerName",
            "string",
            0,
            signer_name,
            "signerName indicates the associated signer, if any.",
        ),
    ]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_parent_is_shown_as_resource_group_namespace_and_name() {
        let ip = |parent: Value| json!({"spec": {"parentRef": parent}});
        assert_eq!(
            parent_ref(&ip(
                json!({"resource": "services", "namespace": "default", "name": "kubernetes"})
            )),
            "services/default/kubernetes"
        );
        assert_eq!(
            parent_ref(&ip(
                json!({"group": "Example.com", "resource": "Gateways", "name": "g"})
            )),
            "gateways.example.com/g"
        );
        assert_eq!(parent_ref(&json!({"spec": {}})), "<none>");
    }

    #[test]
    fn cidrs_are_joined_and_a_missing_signer_is_none() {
        assert_eq!(
            cidrs(&json!({"spec": {"cidrs": ["10.0.0.0/8", "fd00::/64"]}})),
            "10.0.0.0/8,fd00::/64"
        );
        assert_eq!(signer_name(&json!({"spec": {}})), "<none>");
    }
}
