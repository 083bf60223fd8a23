//! What k8s-openapi's schemas leave out and apply and strategic merge need:
//! `x-kubernetes-list-type` (`list=map:key1,key2`), `x-kubernetes-map-type`
//! (`map=atomic`), `x-kubernetes-patch-strategy` (`patch=merge`) and
//! `x-kubernetes-patch-merge-key` (`key=type`), keyed by definition and
//! field (facts from the `+listType` markers and struct tags of
//! Kubernetes' `types.go`).

/// `(definition, field, facts)`.
pub const FIELDS: &[(&str, &str, &str)] = &[
    (
        "io.k8s.api.apps.v1.StatefulSetSpec",
        "volumeClaimTemplates",
        "list=atomic",
    ),
    (
        "io.k8s.api.apps.v1.StatefulSetStatus",
        "conditions",
        "list=map:type patch=merge key=type",
    ),
    (
        "io.k8s.api.apps.v1.DeploymentSpec",
        "strategy",
        "patch=retainKeys",
    ),
    (
        "io.k8s.api.apps.v1.DeploymentStatus",
        "conditions",
        "list=map:type patch=merge key=type",
    ),
    (
        "io.k8s.api.apps.v1.DaemonSetStatus",
        "conditions",
        "list=map:type patch=merge key=type",
    ),
    (
        "io.k8s.api.apps.v1.ReplicaSetStatus",
        "conditions",
        "list=map:type patch=merge key=type",
    ),
    (
        "io.k8s.api.batch.v1.PodFailurePolicyOnExitCodesRequirement",
        "values",
        "list=set",
    ),
    (
        "io.k8s.api.batch.v1.PodFailurePolicyRule",
        "onPodConditions",
        "list=atomic",
    ),
    (
        "io.k8s.api.batch.v1.PodFailurePolicy",
        "rules",
        "list=atomic",
    ),
    ("io.k8s.api.batch.v1.SuccessPolicy", "rules", "list=atomic"),
    (
        "io.k8s.api.batch.v1.JobSchedulingConfiguration",
        "resourceClaims",
        "list=map:name patch=merge key=name",
    ),
    (
        "io.k8s.api.batch.v1.JobStatus",
        "conditions",
        "list=atomic patch=merge key=type",
    ),
    (
        "io.k8s.api.batch.v1.UncountedTerminatedPods",
        "succeeded",
        "list=set",
    ),
    (
        "io.k8s.api.batch.v1.UncountedTerminatedPods",
        "failed",
        "list=set",
    ),
    ("io.k8s.api.batch.v1.CronJobStatus", "active", "list=atomic"),
    (
        "io.k8s.api.core.v1.PersistentVolumeClaimSpec",
        "accessModes",
        "list=atomic",
    ),
    (
        "io.k8s.api.core.v1.PersistentVolumeClaimStatus",
        "accessModes",
        "list=atomic",
    ),
    (
        "io.k8s.api.core.v1.PersistentVolumeClaimStatus",
        "conditions",
        "list=map:type patch=merge key=type",
    ),
    (
        "io.k8s.api.core.v1.PersistentVolumeClaimStatus",
        "allocatedResourceStatuses",
        "map=granular",
    ),
    (
        "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector",
        "matchExpressions",
        "list=atomic",
    ),
    (
        "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement",
        "values",
        "list=atomic",
    ),
];
