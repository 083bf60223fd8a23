//! A multi-document manifest with one object of every kind the suite adds.

/// Twenty objects, one per new kind (two storage classes count as one kind).
pub const EVERY_KIND: &str = r"
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: nginx}
spec: {controller: k8s.io/ingress-nginx}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
spec:
  ingressClassName: nginx
  tls: [{hosts: [web.example.com], secretName: web-tls}]
  rules:
  - host: web.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny-egress}
spec:
  podSelector: {matchLabels: {app: web}}
  ingress: [{ports: [{port: 80}]}]
  egress: [{to: [{ipBlock: {cidr: 10.0.0.0/8}}]}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec: {maxUnavailable: 25%, selector: {matchLabels: {app: web}}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 10
  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-abc, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
endpoints: [{addresses: [10.0.0.5], conditions: {ready: true}}]
ports: [{name: http, port: 80, protocol: TCP}]
---
apiVersion: v1
kind: Endpoints
metadata: {name: legacy}
subsets: [{addresses: [{ip: 10.0.0.6}], ports: [{port: 8080}]}]
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: data}
spec: {capacity: {storage: 5Gi}, accessModes: [ReadWriteOnce], hostPath: {path: /srv/data}, storageClassName: fast}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 5Gi}}, storageClassName: fast}
---
apiVersion: v1
kind: ReplicationController
metadata: {name: legacy}
spec:
  replicas: 1
  template:
    metadata: {labels: {app: legacy}}
    spec: {containers: [{name: c, image: busybox}]}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: small}
spec: {hard: {pods: '10', requests.cpu: '4'}}
---
apiVersion: v1
kind: LimitRange
metadata: {name: defaults}
spec: {limits: [{type: Container, default: {cpu: 500m}, defaultRequest: {cpu: 100m}}]}
---
apiVersion: v1
kind: PodTemplate
metadata: {name: tmpl}
template:
  metadata: {labels: {app: tmpl}}
  spec: {containers: [{name: c, image: busybox}]}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast, annotations: {storageclass.kubernetes.io/is-default-class: 'true'}}
provisioner: example.com/disk
allowVolumeExpansion: true
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: disk.example.com}
spec: {attachRequired: false}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: node-1}
spec: {drivers: [{name: disk.example.com, nodeID: node-1, topologyKeys: [zone]}]}
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: attach-data}
spec: {attacher: disk.example.com, nodeName: node-1, source: {persistentVolumeName: data}}
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: cap-1}
storageClassName: fast
capacity: 100Gi
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: batch-low}
value: -10
description: background work
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gvisor}
handler: runsc
";
