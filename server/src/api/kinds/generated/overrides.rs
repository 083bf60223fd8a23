//! Definitions cairn models itself instead of converting k8s-openapi's:
//! `ObjectMeta` (checked everywhere alike), the timestamp and number
//! wrappers (formats, protobuf forms), and `PodSpec`, so a workload's pod
//! template is the very schema a Pod has (defaults, protobuf, merge keys).

use crate::api::kinds::pod_spec::{pod_spec, quantity};
use crate::api::schema::Schema;

const META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.";

/// cairn's own schema for definition `name`, if it has one.
#[must_use]
pub fn schema(name: &str) -> Option<Schema> {
    if let Some(meta) = name.strip_prefix(META) {
        return match meta {
            "ObjectMeta" => Some(Schema::object_meta()),
            "Time" => Some(Schema::time()),
            "MicroTime" => Some(Schema::micro_time()),
            _ => None,
        };
    }
    match name {
        "io.k8s.apimachinery.pkg.util.intstr.IntOrString" => Some(Schema::int_or_string()),
        "io.k8s.apimachinery.pkg.api.resource.Quantity" => Some(quantity()),
        "io.k8s.apimachinery.pkg.runtime.RawExtension" => Some(Schema::free_form_object()),
        "io.k8s.api.core.v1.ObjectReference" => Some(Schema::object_reference()),
        "io.k8s.api.core.v1.PodSpec" => Some(pod_spec()),
        _ => None,
    }
}
