//! Protobuf field numbers and list markers of the alpha and beta kinds'
//! messages (`networking/v1beta1`, `storage/v1beta1` and `v1alpha1`,
//! `certificates/v1alpha1`), from the `protobuf` struct tags and markers of
//! Kubernetes 1.32's `types.go`.

/// `(definition, "field=number ...")`.
pub const MESSAGES: &[(&str, &str)] = &[
    (
        "io.k8s.api.networking.v1beta1.IPAddress",
        "metadata=1 spec=2",
    ),
    ("io.k8s.api.networking.v1beta1.IPAddressSpec", "parentRef=1"),
    (
        "io.k8s.api.networking.v1beta1.ParentReference",
        "group=1 resource=2 namespace=3 name=4",
    ),
    (
        "io.k8s.api.networking.v1beta1.ServiceCIDR",
        "metadata=1 spec=2 status=3",
    ),
    ("io.k8s.api.networking.v1beta1.ServiceCIDRSpec", "cidrs=1"),
    (
        "io.k8s.api.networking.v1beta1.ServiceCIDRStatus",
        "conditions=1",
    ),
    (
        "io.k8s.api.storage.v1beta1.VolumeAttributesClass",
        "metadata=1 driverName=2 parameters=3",
    ),
    (
        "io.k8s.api.storage.v1alpha1.VolumeAttributesClass",
        "metadata=1 driverName=2 parameters=3",
    ),
    (
        "io.k8s.api.certificates.v1alpha1.ClusterTrustBundle",
        "metadata=1 spec=2",
    ),
    (
        "io.k8s.api.certificates.v1alpha1.ClusterTrustBundleSpec",
        "signerName=1 trustBundle=2",
    ),
];

/// `(definition, field, facts)` in `list_facts`' notation.
pub const FIELDS: &[(&str, &str, &str)] = &[
    (
        "io.k8s.api.networking.v1beta1.ServiceCIDRSpec",
        "cidrs",
        "list=atomic",
    ),
    (
        "io.k8s.api.networking.v1beta1.ServiceCIDRStatus",
        "conditions",
        "list=map:type patch=merge key=type",
    ),
];
