//! The built-in types whose schemas cairn generates, and their JSON schema
//! definitions as k8s-openapi's `JsonSchema` impls describe them.

use k8s_openapi::api::{apps, batch};
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Map, Value};

/// Where schemars' references point: `#/$defs/<definition name>`.
pub const REF_PREFIX: &str = "#/$defs/";

fn add<T: JsonSchema>(generator: &mut SchemaGenerator) {
    generator.subschema_for::<T>();
}

/// Every definition reachable from the served kinds, keyed by Kubernetes'
/// OpenAPI definition name (`io.k8s.api.apps.v1.Deployment`).
#[must_use]
pub fn definitions() -> Map<String, Value> {
    // Pinned to 2020-12 so references keep the `$defs` form read here.
    let mut generator = SchemaSettings::draft2020_12().into_generator();
    add::<apps::v1::Deployment>(&mut generator);
    add::<apps::v1::ReplicaSet>(&mut generator);
    add::<apps::v1::StatefulSet>(&mut generator);
    add::<apps::v1::DaemonSet>(&mut generator);
    add::<apps::v1::ControllerRevision>(&mut generator);
    add::<batch::v1::Job>(&mut generator);
    add::<batch::v1::CronJob>(&mut generator);
    generator.take_definitions(false)
}
