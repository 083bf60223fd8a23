//! What k8s-openapi's schemas leave out and apply and strategic merge need:
//! `x-kubernetes-list-type` (`list=map:key1,key2`), `x-kubernetes-map-type`
//! (`map=atomic`), `x-kubernetes-patch-strategy` (`patch=merge`) and
//! `x-kubernetes-patch-merge-key` (`key=type`), and Go's non-pointer
//! `omitempty` numbers and booleans (`zero=omit`: a zero reads as unset),
//! keyed by definition and field (facts from the `+listType` markers, field
//! types and struct tags of Kubernetes' `types.go`).

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
    (
        "io.k8s.api.apps.v1.StatefulSetSpec",
        "minReadySeconds",
        "zero=omit",
    ),
    (
        "io.k8s.api.apps.v1.StatefulSetStatus",
        "observedGeneration",
        "zero=omit",
    ),
    (
        "io.k8s.api.apps.v1.StatefulSetStatus",
        "readyReplicas",
        "zero=omit",
    ),
    (
        "io.k8s.api.apps.v1.StatefulSetStatus",
        "currentReplicas",
        "zero=omit",
    ),
    (
        "io.k8s.api.apps.v1.StatefulSetStatus",
        "updatedReplicas",
        "zero=omit",
    ),
    (
        "io.k8s.api.apps.v1.DeploymentSpec",
        "minReadySeconds",
        "zero=omit",
    ),
    ("io.k8s.api.apps.v1.DeploymentSpec", "paused", "zero=omit"),
    (
        "io.k8s.api.apps.v1.DeploymentStatus",
        "observedGeneration",
        "zero=omit",
    ),
    (
        "io.k8s.api.apps.v1.DeploymentStatus",
        "replicas",
        "zero=omit",
    ),
    (
        "io.k8s.api.apps.v1.DeploymentStatus",
        "updatedReplicas",
        "zero=omit",
    ),
    (
        "io.k8s.api.apps.v1.DeploymentStatus",
        "readyReplicas",
        "zero=omit",
    ),
    (
        "io.k8s.api.apps.v1.DeploymentStatus",
        "availableReplicas",
        "zero=omit",
    ),
    (
        "io.k8s.api.apps.v1.DeploymentStatus",
        "unavailableReplicas",
        "zero=omit",
    ),
    (
        "io.k8s.api.apps.v1.DaemonSetSpec",
        "minReadySeconds",
        "zero=omit",
    ),
    (
        "io.k8s.api.apps.v1.DaemonSetStatus",
        "observedGeneration",
        "zero=omit",
    ),
    (
        "io.k8s.api.apps.v1.DaemonSetStatus",
        "updatedNumberScheduled",
        "zero=omit",
    ),
    (
        "io.k8s.api.apps.v1.DaemonSetStatus",
        "numberAvailable",
        "zero=omit",
    ),
    (
        "io.k8s.api.apps.v1.DaemonSetStatus",
        "numberUnavailable",
        "zero=omit",
    ),
    (
        "io.k8s.api.apps.v1.ReplicaSetSpec",
        "minReadySeconds",
        "zero=omit",
    ),
    (
        "io.k8s.api.apps.v1.ReplicaSetStatus",
        "fullyLabeledReplicas",
        "zero=omit",
    ),
    (
        "io.k8s.api.apps.v1.ReplicaSetStatus",
        "readyReplicas",
        "zero=omit",
    ),
    (
        "io.k8s.api.apps.v1.ReplicaSetStatus",
        "availableReplicas",
        "zero=omit",
    ),
    (
        "io.k8s.api.apps.v1.ReplicaSetStatus",
        "observedGeneration",
        "zero=omit",
    ),
    ("io.k8s.api.batch.v1.JobStatus", "active", "zero=omit"),
    ("io.k8s.api.batch.v1.JobStatus", "succeeded", "zero=omit"),
    ("io.k8s.api.batch.v1.JobStatus", "failed", "zero=omit"),
    (
        "io.k8s.api.core.v1.PersistentVolumeClaimVolumeSource",
        "readOnly",
        "zero=omit",
    ),
];
