//! Protobuf field numbers of the built-in messages the generated kinds use,
//! keyed by OpenAPI definition name: one `field=number` list per message
//! (facts from Kubernetes' `generated.proto`). Messages cairn replaces with
//! its own schemas (`ObjectMeta`, `PodSpec`, ...) carry their numbers there.

/// `(definition, "field=number ...")`.
pub const MESSAGES: &[(&str, &str)] = &[
    (
        "io.k8s.api.apps.v1.StatefulSet",
        "metadata=1 spec=2 status=3",
    ),
    (
        "io.k8s.api.apps.v1.StatefulSetUpdateStrategy",
        "type=1 rollingUpdate=2",
    ),
    (
        "io.k8s.api.apps.v1.RollingUpdateStatefulSetStrategy",
        "partition=1 maxUnavailable=2",
    ),
    (
        "io.k8s.api.apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy",
        "whenDeleted=1 whenScaled=2",
    ),
    ("io.k8s.api.apps.v1.StatefulSetOrdinals", "start=1"),
    (
        "io.k8s.api.apps.v1.StatefulSetSpec",
        "replicas=1 selector=2 template=3 volumeClaimTemplates=4 serviceName=5 podManagementPolicy=6 updateStrategy=7 revisionHistoryLimit=8 minReadySeconds=9 persistentVolumeClaimRetentionPolicy=10 ordinals=11",
    ),
    (
        "io.k8s.api.apps.v1.StatefulSetStatus",
        "observedGeneration=1 replicas=2 readyReplicas=3 currentReplicas=4 updatedReplicas=5 currentRevision=6 updateRevision=7 collisionCount=9 conditions=10 availableReplicas=11",
    ),
    (
        "io.k8s.api.apps.v1.StatefulSetCondition",
        "type=1 status=2 lastTransitionTime=3 reason=4 message=5",
    ),
    (
        "io.k8s.api.apps.v1.Deployment",
        "metadata=1 spec=2 status=3",
    ),
    (
        "io.k8s.api.apps.v1.DeploymentSpec",
        "replicas=1 selector=2 template=3 strategy=4 minReadySeconds=5 revisionHistoryLimit=6 paused=7 progressDeadlineSeconds=9",
    ),
    (
        "io.k8s.api.apps.v1.DeploymentStrategy",
        "type=1 rollingUpdate=2",
    ),
    (
        "io.k8s.api.apps.v1.RollingUpdateDeployment",
        "maxUnavailable=1 maxSurge=2",
    ),
    (
        "io.k8s.api.apps.v1.DeploymentStatus",
        "observedGeneration=1 replicas=2 updatedReplicas=3 readyReplicas=7 availableReplicas=4 unavailableReplicas=5 terminatingReplicas=9 conditions=6 collisionCount=8",
    ),
    (
        "io.k8s.api.apps.v1.DeploymentCondition",
        "type=1 status=2 lastUpdateTime=6 lastTransitionTime=7 reason=4 message=5",
    ),
    (
        "io.k8s.api.apps.v1.DaemonSetUpdateStrategy",
        "type=1 rollingUpdate=2",
    ),
    (
        "io.k8s.api.apps.v1.RollingUpdateDaemonSet",
        "maxUnavailable=1 maxSurge=2",
    ),
    (
        "io.k8s.api.apps.v1.DaemonSetSpec",
        "selector=1 template=2 updateStrategy=3 minReadySeconds=4 revisionHistoryLimit=6",
    ),
    (
        "io.k8s.api.apps.v1.DaemonSetStatus",
        "currentNumberScheduled=1 numberMisscheduled=2 desiredNumberScheduled=3 numberReady=4 observedGeneration=5 updatedNumberScheduled=6 numberAvailable=7 numberUnavailable=8 collisionCount=9 conditions=10",
    ),
    (
        "io.k8s.api.apps.v1.DaemonSetCondition",
        "type=1 status=2 lastTransitionTime=3 reason=4 message=5",
    ),
    ("io.k8s.api.apps.v1.DaemonSet", "metadata=1 spec=2 status=3"),
    (
        "io.k8s.api.apps.v1.ReplicaSet",
        "metadata=1 spec=2 status=3",
    ),
    (
        "io.k8s.api.apps.v1.ReplicaSetSpec",
        "replicas=1 minReadySeconds=4 selector=2 template=3",
    ),
    (
        "io.k8s.api.apps.v1.ReplicaSetStatus",
        "replicas=1 fullyLabeledReplicas=2 readyReplicas=4 availableReplicas=5 terminatingReplicas=7 observedGeneration=3 conditions=6",
    ),
    (
        "io.k8s.api.apps.v1.ReplicaSetCondition",
        "type=1 status=2 lastTransitionTime=3 reason=4 message=5",
    ),
    (
        "io.k8s.api.apps.v1.ControllerRevision",
        "metadata=1 data=2 revision=3",
    ),
    ("io.k8s.api.batch.v1.Job", "metadata=1 spec=2 status=3"),
    (
        "io.k8s.api.batch.v1.PodFailurePolicyOnExitCodesRequirement",
        "containerName=1 operator=2 values=3",
    ),
    (
        "io.k8s.api.batch.v1.PodFailurePolicyOnPodConditionsPattern",
        "type=1 status=2",
    ),
    (
        "io.k8s.api.batch.v1.PodFailurePolicyRule",
        "action=1 onExitCodes=2 onPodConditions=3",
    ),
    ("io.k8s.api.batch.v1.PodFailurePolicy", "rules=1"),
    ("io.k8s.api.batch.v1.SuccessPolicy", "rules=1"),
    (
        "io.k8s.api.batch.v1.SuccessPolicyRule",
        "succeededIndexes=1 succeededCount=2",
    ),
    (
        "io.k8s.api.batch.v1.JobSpec",
        "parallelism=1 completions=2 activeDeadlineSeconds=3 podFailurePolicy=11 successPolicy=16 backoffLimit=7 backoffLimitPerIndex=12 maxFailedIndexes=13 selector=4 manualSelector=5 template=6 ttlSecondsAfterFinished=8 completionMode=9 suspend=10 podReplacementPolicy=14 managedBy=15 scheduling=17",
    ),
    (
        "io.k8s.api.batch.v1.JobSchedulingConfiguration",
        "schedulingPolicy=1 schedulingConstraints=2 disruptionMode=3 resourceClaims=4",
    ),
    (
        "io.k8s.api.batch.v1.JobStatus",
        "conditions=1 startTime=2 completionTime=3 active=4 succeeded=5 failed=6 terminating=11 completedIndexes=7 failedIndexes=10 uncountedTerminatedPods=8 ready=9",
    ),
    (
        "io.k8s.api.batch.v1.UncountedTerminatedPods",
        "succeeded=1 failed=2",
    ),
    (
        "io.k8s.api.batch.v1.JobCondition",
        "type=1 status=2 lastProbeTime=3 lastTransitionTime=4 reason=5 message=6",
    ),
    ("io.k8s.api.batch.v1.JobTemplateSpec", "metadata=1 spec=2"),
    ("io.k8s.api.batch.v1.CronJob", "metadata=1 spec=2 status=3"),
    (
        "io.k8s.api.batch.v1.CronJobSpec",
        "schedule=1 timeZone=8 startingDeadlineSeconds=2 concurrencyPolicy=3 suspend=4 jobTemplate=5 successfulJobsHistoryLimit=6 failedJobsHistoryLimit=7",
    ),
    (
        "io.k8s.api.batch.v1.CronJobStatus",
        "active=1 lastScheduleTime=4 lastSuccessfulTime=5",
    ),
    (
        "io.k8s.api.core.v1.PersistentVolumeClaimVolumeSource",
        "claimName=1 readOnly=2",
    ),
    (
        "io.k8s.api.core.v1.PersistentVolumeClaim",
        "metadata=1 spec=2 status=3",
    ),
    (
        "io.k8s.api.core.v1.PersistentVolumeClaimSpec",
        "accessModes=1 selector=4 resources=2 volumeName=3 storageClassName=5 volumeMode=6 dataSource=7 dataSourceRef=8 volumeAttributesClassName=9",
    ),
    (
        "io.k8s.api.core.v1.TypedObjectReference",
        "apiGroup=1 kind=2 name=3 namespace=4",
    ),
    (
        "io.k8s.api.core.v1.ModifyVolumeStatus",
        "targetVolumeAttributesClassName=1 status=2",
    ),
    (
        "io.k8s.api.core.v1.PersistentVolumeClaimCondition",
        "type=1 status=2 lastProbeTime=3 lastTransitionTime=4 reason=5 message=6",
    ),
    (
        "io.k8s.api.core.v1.PersistentVolumeClaimStatus",
        "phase=1 accessModes=2 capacity=3 conditions=4 allocatedResources=5 allocatedResourceStatuses=7 currentVolumeAttributesClassName=8 modifyVolumeStatus=9 healthStatus=10",
    ),
    (
        "io.k8s.api.core.v1.PersistentVolumeClaimTemplate",
        "metadata=1 spec=2",
    ),
    (
        "io.k8s.api.core.v1.VolumeResourceRequirements",
        "limits=1 requests=2",
    ),
    ("io.k8s.api.core.v1.PodTemplateSpec", "metadata=1 spec=2"),
    (
        "io.k8s.api.core.v1.TypedLocalObjectReference",
        "apiGroup=1 kind=2 name=3",
    ),
    (
        "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector",
        "matchLabels=1 matchExpressions=2",
    ),
    (
        "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement",
        "key=1 operator=2 values=3",
    ),
];
