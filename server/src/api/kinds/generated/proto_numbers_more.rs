//! Protobuf field numbers of the messages the networking, policy,
//! autoscaling, discovery, storage, scheduling, node and further core kinds
//! use, keyed by OpenAPI definition name (facts from the `protobuf` struct
//! tags of Kubernetes' `types.go`, v1.33). A field Go inlines from another
//! struct carries its number in that struct's message (`inline=` in
//! `list_facts_more`).

/// `(definition, "field=number ...")`.
pub const MESSAGES: &[(&str, &str)] = &[
    (
        "io.k8s.api.networking.v1.Ingress",
        "metadata=1 spec=2 status=3",
    ),
    (
        "io.k8s.api.networking.v1.IngressSpec",
        "ingressClassName=4 defaultBackend=1 tls=2 rules=3",
    ),
    (
        "io.k8s.api.networking.v1.IngressBackend",
        "service=4 resource=3",
    ),
    (
        "io.k8s.api.networking.v1.IngressServiceBackend",
        "name=1 port=2",
    ),
    (
        "io.k8s.api.networking.v1.ServiceBackendPort",
        "name=1 number=2",
    ),
    (
        "io.k8s.api.networking.v1.IngressTLS",
        "hosts=1 secretName=2",
    ),
    ("io.k8s.api.networking.v1.IngressRule", "host=1 http=1"),
    ("io.k8s.api.networking.v1.IngressRuleValue", "http=1"),
    ("io.k8s.api.networking.v1.HTTPIngressRuleValue", "paths=1"),
    (
        "io.k8s.api.networking.v1.HTTPIngressPath",
        "path=1 pathType=3 backend=2",
    ),
    ("io.k8s.api.networking.v1.IngressStatus", "loadBalancer=1"),
    (
        "io.k8s.api.networking.v1.IngressLoadBalancerStatus",
        "ingress=1",
    ),
    (
        "io.k8s.api.networking.v1.IngressLoadBalancerIngress",
        "ip=1 hostname=2 ports=4",
    ),
    (
        "io.k8s.api.networking.v1.IngressPortStatus",
        "port=1 protocol=2 error=3",
    ),
    ("io.k8s.api.networking.v1.IngressClass", "metadata=1 spec=2"),
    (
        "io.k8s.api.networking.v1.IngressClassSpec",
        "controller=1 parameters=2",
    ),
    (
        "io.k8s.api.networking.v1.IngressClassParametersReference",
        "apiGroup=1 kind=2 name=3 scope=4 namespace=5",
    ),
    (
        "io.k8s.api.networking.v1.NetworkPolicy",
        "metadata=1 spec=2",
    ),
    (
        "io.k8s.api.networking.v1.NetworkPolicySpec",
        "podSelector=1 ingress=2 egress=3 policyTypes=4",
    ),
    (
        "io.k8s.api.networking.v1.NetworkPolicyIngressRule",
        "ports=1 from=2",
    ),
    (
        "io.k8s.api.networking.v1.NetworkPolicyPort",
        "protocol=1 port=2 endPort=3",
    ),
    (
        "io.k8s.api.networking.v1.NetworkPolicyPeer",
        "podSelector=1 namespaceSelector=2 ipBlock=3",
    ),
    ("io.k8s.api.networking.v1.IPBlock", "cidr=1 except=2"),
    (
        "io.k8s.api.networking.v1.NetworkPolicyEgressRule",
        "ports=1 to=2",
    ),
    (
        "io.k8s.api.policy.v1.PodDisruptionBudget",
        "metadata=1 spec=2 status=3",
    ),
    (
        "io.k8s.api.policy.v1.PodDisruptionBudgetSpec",
        "minAvailable=1 selector=2 maxUnavailable=3 unhealthyPodEvictionPolicy=4",
    ),
    (
        "io.k8s.api.policy.v1.PodDisruptionBudgetStatus",
        "observedGeneration=1 disruptedPods=2 disruptionsAllowed=3 currentHealthy=4 desiredHealthy=5 expectedPods=6 conditions=7",
    ),
    (
        "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler",
        "metadata=1 spec=2 status=3",
    ),
    (
        "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec",
        "scaleTargetRef=1 minReplicas=2 maxReplicas=3 metrics=4 behavior=5",
    ),
    (
        "io.k8s.api.autoscaling.v2.CrossVersionObjectReference",
        "kind=1 name=2 apiVersion=3",
    ),
    (
        "io.k8s.api.autoscaling.v2.MetricSpec",
        "type=1 object=2 pods=3 resource=4 containerResource=7 external=5",
    ),
    (
        "io.k8s.api.autoscaling.v2.ObjectMetricSource",
        "describedObject=1 target=2 metric=3",
    ),
    (
        "io.k8s.api.autoscaling.v2.MetricTarget",
        "type=1 value=2 averageValue=3 averageUtilization=4",
    ),
    (
        "io.k8s.api.autoscaling.v2.MetricIdentifier",
        "name=1 selector=2",
    ),
    (
        "io.k8s.api.autoscaling.v2.PodsMetricSource",
        "metric=1 target=2",
    ),
    (
        "io.k8s.api.autoscaling.v2.ResourceMetricSource",
        "name=1 target=2",
    ),
    (
        "io.k8s.api.autoscaling.v2.ContainerResourceMetricSource",
        "name=1 target=2 container=3",
    ),
    (
        "io.k8s.api.autoscaling.v2.ExternalMetricSource",
        "metric=1 target=2",
    ),
    (
        "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerBehavior",
        "scaleUp=1 scaleDown=2",
    ),
    (
        "io.k8s.api.autoscaling.v2.HPAScalingRules",
        "stabilizationWindowSeconds=3 selectPolicy=1 policies=2 tolerance=4",
    ),
    (
        "io.k8s.api.autoscaling.v2.HPAScalingPolicy",
        "type=1 value=2 periodSeconds=3",
    ),
    (
        "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerStatus",
        "observedGeneration=1 lastScaleTime=2 currentReplicas=3 desiredReplicas=4 currentMetrics=5 conditions=6",
    ),
    (
        "io.k8s.api.autoscaling.v2.MetricStatus",
        "type=1 object=2 pods=3 resource=4 containerResource=7 external=5",
    ),
    (
        "io.k8s.api.autoscaling.v2.ObjectMetricStatus",
        "metric=1 current=2 describedObject=3",
    ),
    (
        "io.k8s.api.autoscaling.v2.MetricValueStatus",
        "value=1 averageValue=2 averageUtilization=3",
    ),
    (
        "io.k8s.api.autoscaling.v2.PodsMetricStatus",
        "metric=1 current=2",
    ),
    (
        "io.k8s.api.autoscaling.v2.ResourceMetricStatus",
        "name=1 current=2",
    ),
    (
        "io.k8s.api.autoscaling.v2.ContainerResourceMetricStatus",
        "name=1 current=2 container=3",
    ),
    (
        "io.k8s.api.autoscaling.v2.ExternalMetricStatus",
        "metric=1 current=2",
    ),
    (
        "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerCondition",
        "type=1 status=2 lastTransitionTime=3 reason=4 message=5",
    ),
    (
        "io.k8s.api.discovery.v1.EndpointSlice",
        "metadata=1 addressType=4 endpoints=2 ports=3",
    ),
    (
        "io.k8s.api.discovery.v1.Endpoint",
        "addresses=1 conditions=2 hostname=3 targetRef=4 deprecatedTopology=5 nodeName=6 zone=7 hints=8",
    ),
    (
        "io.k8s.api.discovery.v1.EndpointConditions",
        "ready=1 serving=2 terminating=3",
    ),
    (
        "io.k8s.api.discovery.v1.EndpointHints",
        "forZones=1 forNodes=2",
    ),
    ("io.k8s.api.discovery.v1.ForZone", "name=1"),
    ("io.k8s.api.discovery.v1.ForNode", "name=1"),
    (
        "io.k8s.api.discovery.v1.EndpointPort",
        "name=1 protocol=2 port=3 appProtocol=4",
    ),
    ("io.k8s.api.core.v1.Endpoints", "metadata=1 subsets=2"),
    (
        "io.k8s.api.core.v1.EndpointSubset",
        "addresses=1 notReadyAddresses=2 ports=3",
    ),
    (
        "io.k8s.api.core.v1.EndpointAddress",
        "ip=1 hostname=3 nodeName=4 targetRef=2",
    ),
    (
        "io.k8s.api.core.v1.EndpointPort",
        "name=1 port=2 protocol=3 appProtocol=4",
    ),
    (
        "io.k8s.api.core.v1.PersistentVolume",
        "metadata=1 spec=2 status=3",
    ),
    (
        "io.k8s.api.core.v1.PersistentVolumeSpec",
        "capacity=1 gcePersistentDisk=1 awsElasticBlockStore=2 hostPath=3 glusterfs=4 nfs=5 rbd=6 iscsi=7 cinder=8 cephfs=9 fc=10 flocker=11 flexVolume=12 azureFile=13 vsphereVolume=14 quobyte=15 azureDisk=16 photonPersistentDisk=17 portworxVolume=18 scaleIO=19 local=20 storageos=21 csi=22 accessModes=3 claimRef=4 persistentVolumeReclaimPolicy=5 storageClassName=6 mountOptions=7 volumeMode=8 nodeAffinity=9 volumeAttributesClassName=10",
    ),
    (
        "io.k8s.api.core.v1.PersistentVolumeSource",
        "gcePersistentDisk=1 awsElasticBlockStore=2 hostPath=3 glusterfs=4 nfs=5 rbd=6 iscsi=7 cinder=8 cephfs=9 fc=10 flocker=11 flexVolume=12 azureFile=13 vsphereVolume=14 quobyte=15 azureDisk=16 photonPersistentDisk=17 portworxVolume=18 scaleIO=19 local=20 storageos=21 csi=22",
    ),
    (
        "io.k8s.api.core.v1.GCEPersistentDiskVolumeSource",
        "pdName=1 fsType=2 partition=3 readOnly=4",
    ),
    (
        "io.k8s.api.core.v1.AWSElasticBlockStoreVolumeSource",
        "volumeID=1 fsType=2 partition=3 readOnly=4",
    ),
    ("io.k8s.api.core.v1.HostPathVolumeSource", "path=1 type=2"),
    (
        "io.k8s.api.core.v1.GlusterfsPersistentVolumeSource",
        "endpoints=1 path=2 readOnly=3 endpointsNamespace=4",
    ),
    (
        "io.k8s.api.core.v1.NFSVolumeSource",
        "server=1 path=2 readOnly=3",
    ),
    (
        "io.k8s.api.core.v1.RBDPersistentVolumeSource",
        "monitors=1 image=2 fsType=3 pool=4 user=5 keyring=6 secretRef=7 readOnly=8",
    ),
    ("io.k8s.api.core.v1.SecretReference", "name=1 namespace=2"),
    (
        "io.k8s.api.core.v1.ISCSIPersistentVolumeSource",
        "targetPortal=1 iqn=2 lun=3 iscsiInterface=4 fsType=5 readOnly=6 portals=7 chapAuthDiscovery=8 chapAuthSession=11 secretRef=10 initiatorName=12",
    ),
    (
        "io.k8s.api.core.v1.CinderPersistentVolumeSource",
        "volumeID=1 fsType=2 readOnly=3 secretRef=4",
    ),
    (
        "io.k8s.api.core.v1.CephFSPersistentVolumeSource",
        "monitors=1 path=2 user=3 secretFile=4 secretRef=5 readOnly=6",
    ),
    (
        "io.k8s.api.core.v1.FCVolumeSource",
        "targetWWNs=1 lun=2 fsType=3 readOnly=4 wwids=5",
    ),
    (
        "io.k8s.api.core.v1.FlockerVolumeSource",
        "datasetName=1 datasetUUID=2",
    ),
    (
        "io.k8s.api.core.v1.FlexPersistentVolumeSource",
        "driver=1 fsType=2 secretRef=3 readOnly=4 options=5",
    ),
    (
        "io.k8s.api.core.v1.AzureFilePersistentVolumeSource",
        "secretName=1 shareName=2 readOnly=3 secretNamespace=4",
    ),
    (
        "io.k8s.api.core.v1.VsphereVirtualDiskVolumeSource",
        "volumePath=1 fsType=2 storagePolicyName=3 storagePolicyID=4",
    ),
    (
        "io.k8s.api.core.v1.QuobyteVolumeSource",
        "registry=1 volume=2 readOnly=3 user=4 group=5 tenant=6",
    ),
    (
        "io.k8s.api.core.v1.AzureDiskVolumeSource",
        "diskName=1 diskURI=2 cachingMode=3 fsType=4 readOnly=5 kind=6",
    ),
    (
        "io.k8s.api.core.v1.PhotonPersistentDiskVolumeSource",
        "pdID=1 fsType=2",
    ),
    (
        "io.k8s.api.core.v1.PortworxVolumeSource",
        "volumeID=1 fsType=2 readOnly=3",
    ),
    (
        "io.k8s.api.core.v1.ScaleIOPersistentVolumeSource",
        "gateway=1 system=2 secretRef=3 sslEnabled=4 protectionDomain=5 storagePool=6 storageMode=7 volumeName=8 fsType=9 readOnly=10",
    ),
    ("io.k8s.api.core.v1.LocalVolumeSource", "path=1 fsType=2"),
    (
        "io.k8s.api.core.v1.StorageOSPersistentVolumeSource",
        "volumeName=1 volumeNamespace=2 fsType=3 readOnly=4 secretRef=5",
    ),
    (
        "io.k8s.api.core.v1.CSIPersistentVolumeSource",
        "driver=1 volumeHandle=2 readOnly=3 fsType=4 volumeAttributes=5 controllerPublishSecretRef=6 nodeStageSecretRef=7 nodePublishSecretRef=8 controllerExpandSecretRef=9 nodeExpandSecretRef=10",
    ),
    ("io.k8s.api.core.v1.VolumeNodeAffinity", "required=1"),
    ("io.k8s.api.core.v1.NodeSelector", "nodeSelectorTerms=1"),
    (
        "io.k8s.api.core.v1.NodeSelectorTerm",
        "matchExpressions=1 matchFields=2",
    ),
    (
        "io.k8s.api.core.v1.NodeSelectorRequirement",
        "key=1 operator=2 values=3",
    ),
    (
        "io.k8s.api.core.v1.PersistentVolumeStatus",
        "phase=1 message=2 reason=3 lastPhaseTransitionTime=4",
    ),
    (
        "io.k8s.api.core.v1.ReplicationController",
        "metadata=1 spec=2 status=3",
    ),
    (
        "io.k8s.api.core.v1.ReplicationControllerSpec",
        "replicas=1 minReadySeconds=4 selector=2 template=3",
    ),
    (
        "io.k8s.api.core.v1.ReplicationControllerStatus",
        "replicas=1 fullyLabeledReplicas=2 readyReplicas=4 availableReplicas=5 observedGeneration=3 conditions=6",
    ),
    (
        "io.k8s.api.core.v1.ReplicationControllerCondition",
        "type=1 status=2 lastTransitionTime=3 reason=4 message=5",
    ),
    (
        "io.k8s.api.core.v1.ResourceQuota",
        "metadata=1 spec=2 status=3",
    ),
    (
        "io.k8s.api.core.v1.ResourceQuotaSpec",
        "hard=1 scopes=2 scopeSelector=3",
    ),
    ("io.k8s.api.core.v1.ScopeSelector", "matchExpressions=1"),
    (
        "io.k8s.api.core.v1.ScopedResourceSelectorRequirement",
        "scopeName=1 operator=2 values=3",
    ),
    ("io.k8s.api.core.v1.ResourceQuotaStatus", "hard=1 used=2"),
    ("io.k8s.api.core.v1.LimitRange", "metadata=1 spec=2"),
    ("io.k8s.api.core.v1.LimitRangeSpec", "limits=1"),
    (
        "io.k8s.api.core.v1.LimitRangeItem",
        "type=1 max=2 min=3 default=4 defaultRequest=5 maxLimitRequestRatio=6",
    ),
    ("io.k8s.api.core.v1.PodTemplate", "metadata=1 template=2"),
    (
        "io.k8s.api.storage.v1.StorageClass",
        "metadata=1 provisioner=2 parameters=3 reclaimPolicy=4 mountOptions=5 allowVolumeExpansion=6 volumeBindingMode=7 allowedTopologies=8",
    ),
    (
        "io.k8s.api.core.v1.TopologySelectorTerm",
        "matchLabelExpressions=1",
    ),
    (
        "io.k8s.api.core.v1.TopologySelectorLabelRequirement",
        "key=1 values=2",
    ),
    ("io.k8s.api.storage.v1.CSIDriver", "metadata=1 spec=2"),
    (
        "io.k8s.api.storage.v1.CSIDriverSpec",
        "attachRequired=1 podInfoOnMount=2 volumeLifecycleModes=3 storageCapacity=4 fsGroupPolicy=5 tokenRequests=6 requiresRepublish=7 seLinuxMount=8 nodeAllocatableUpdatePeriodSeconds=9",
    ),
    (
        "io.k8s.api.storage.v1.TokenRequest",
        "audience=1 expirationSeconds=2",
    ),
    ("io.k8s.api.storage.v1.CSINode", "metadata=1 spec=2"),
    ("io.k8s.api.storage.v1.CSINodeSpec", "drivers=1"),
    (
        "io.k8s.api.storage.v1.CSINodeDriver",
        "name=1 nodeID=2 topologyKeys=3 allocatable=4",
    ),
    ("io.k8s.api.storage.v1.VolumeNodeResources", "count=1"),
    (
        "io.k8s.api.storage.v1.VolumeAttachment",
        "metadata=1 spec=2 status=3",
    ),
    (
        "io.k8s.api.storage.v1.VolumeAttachmentSpec",
        "attacher=1 source=2 nodeName=3",
    ),
    (
        "io.k8s.api.storage.v1.VolumeAttachmentSource",
        "persistentVolumeName=1 inlineVolumeSpec=2",
    ),
    (
        "io.k8s.api.storage.v1.VolumeAttachmentStatus",
        "attached=1 attachmentMetadata=2 attachError=3 detachError=4",
    ),
    (
        "io.k8s.api.storage.v1.VolumeError",
        "time=1 message=2 errorCode=3",
    ),
    (
        "io.k8s.api.storage.v1.CSIStorageCapacity",
        "metadata=1 nodeTopology=2 storageClassName=3 capacity=4 maximumVolumeSize=5",
    ),
    (
        "io.k8s.api.scheduling.v1.PriorityClass",
        "metadata=1 value=2 globalDefault=3 description=4 preemptionPolicy=5",
    ),
    (
        "io.k8s.api.node.v1.RuntimeClass",
        "metadata=1 handler=2 overhead=3 scheduling=4",
    ),
    ("io.k8s.api.node.v1.Overhead", "podFixed=1"),
    (
        "io.k8s.api.node.v1.Scheduling",
        "nodeSelector=1 tolerations=2",
    ),
    (
        "io.k8s.api.core.v1.Toleration",
        "key=1 operator=2 value=3 effect=4 tolerationSeconds=5",
    ),
    (
        "io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler",
        "metadata=1 spec=2 status=3",
    ),
    (
        "io.k8s.api.autoscaling.v1.HorizontalPodAutoscalerSpec",
        "scaleTargetRef=1 minReplicas=2 maxReplicas=3 targetCPUUtilizationPercentage=4",
    ),
    (
        "io.k8s.api.autoscaling.v1.CrossVersionObjectReference",
        "kind=1 name=2 apiVersion=3",
    ),
    (
        "io.k8s.api.autoscaling.v1.HorizontalPodAutoscalerStatus",
        "observedGeneration=1 lastScaleTime=2 currentReplicas=3 desiredReplicas=4 currentCPUUtilizationPercentage=5",
    ),
    (
        "io.k8s.apimachinery.pkg.apis.meta.v1.Condition",
        "type=1 status=2 observedGeneration=3 lastTransitionTime=4 reason=5 message=6",
    ),
    (
        "io.k8s.api.certificates.v1.CertificateSigningRequest",
        "metadata=1 spec=2 status=3",
    ),
    (
        "io.k8s.api.certificates.v1.CertificateSigningRequestSpec",
        "request=1 signerName=7 expirationSeconds=8 usages=5 username=2 uid=3 groups=4 extra=6",
    ),
    (
        "io.k8s.api.certificates.v1.CertificateSigningRequestStatus",
        "conditions=1 certificate=2",
    ),
    (
        "io.k8s.api.certificates.v1.CertificateSigningRequestCondition",
        "type=1 status=6 reason=2 message=3 lastUpdateTime=4 lastTransitionTime=5",
    ),
];
