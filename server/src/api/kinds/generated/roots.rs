//! The built-in types whose schemas cairn generates, and their JSON schema
//! definitions as k8s-openapi's `JsonSchema` impls describe them.

use k8s_openapi::api::{
    apps, autoscaling, batch, certificates, core, discovery, networking, node, policy, scheduling,
    storage,
};
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
    add::<networking::v1::Ingress>(&mut generator);
    add::<networking::v1::IngressClass>(&mut generator);
    add::<networking::v1::NetworkPolicy>(&mut generator);
    add::<policy::v1::PodDisruptionBudget>(&mut generator);
    add::<autoscaling::v2::HorizontalPodAutoscaler>(&mut generator);
    add::<autoscaling::v1::HorizontalPodAutoscaler>(&mut generator);
    add::<discovery::v1::EndpointSlice>(&mut generator);
    add::<core::v1::Endpoints>(&mut generator);
    add::<core::v1::PersistentVolume>(&mut generator);
    add::<core::v1::PersistentVolumeClaim>(&mut generator);
    add::<core::v1::ReplicationController>(&mut generator);
    add::<core::v1::ResourceQuota>(&mut generator);
    add::<core::v1::LimitRange>(&mut generator);
    add::<core::v1::PodTemplate>(&mut generator);
    add::<storage::v1::StorageClass>(&mut generator);
    add::<storage::v1::CSIDriver>(&mut generator);
    add::<storage::v1::CSINode>(&mut generator);
    add::<storage::v1::VolumeAttachment>(&mut generator);
    add::<storage::v1::CSIStorageCapacity>(&mut generator);
    add::<scheduling::v1::PriorityClass>(&mut generator);
    add::<node::v1::RuntimeClass>(&mut generator);
    add::<certificates::v1::CertificateSigningRequest>(&mut generator);
    add::<networking::v1beta1::IPAddress>(&mut generator);
    add::<networking::v1beta1::ServiceCIDR>(&mut generator);
    add::<storage::v1beta1::VolumeAttributesClass>(&mut generator);
    add::<storage::v1alpha1::VolumeAttributesClass>(&mut generator);
    add::<certificates::v1alpha1::ClusterTrustBundle>(&mut generator);
    add::<k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService>(&mut generator);
    generator.take_definitions(false)
}
