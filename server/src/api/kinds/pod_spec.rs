//! The schema of a core/v1 `PodSpec` and its containers. Deep structures
//! that cairn does not interpret (probes, lifecycle hooks, security
//! contexts, affinity, volume sources) are free-form objects: kept as sent.

use crate::api::schema::Schema;

/// `resource.Quantity`: `500m`, `1Gi` or a bare number.
#[must_use]
pub fn quantity() -> Schema {
    // The format tells protobuf this is a Quantity message, not IntOrString.
    Schema {
        format: Some("quantity".into()),
        ..Schema::int_or_string()
    }
}

/// `map[ResourceName]Quantity` (requests, limits, capacity).
#[must_use]
pub fn resource_list() -> Schema {
    Schema::map(quantity())
}

fn container_port() -> Schema {
    Schema::object([
        ("name", Schema::string()),
        ("hostPort", Schema::integer_i32()),
        ("containerPort", Schema::integer_i32()),
        ("protocol", Schema::string().one_of(["TCP", "UDP", "SCTP"])),
        ("hostIP", Schema::string()),
    ])
    .required(["containerPort"])
    .proto_fields([
        ("name", 1),
        ("hostPort", 2),
        ("containerPort", 3),
        ("protocol", 4),
        ("hostIP", 5),
    ])
}

fn env_var() -> Schema {
    Schema::object([
        ("name", Schema::string()),
        ("value", Schema::string()),
        ("valueFrom", Schema::free_form_object()),
    ])
    .required(["name"])
    // valueFrom (3, EnvVarSource) is free-form here: unnumbered.
    .proto_fields([("name", 1), ("value", 2)])
}

fn volume_mount() -> Schema {
    Schema::object([
        ("name", Schema::string()),
        ("readOnly", Schema::boolean()),
        ("recursiveReadOnly", Schema::string()),
        ("mountPath", Schema::string()),
        ("subPath", Schema::string()),
        ("mountPropagation", Schema::string()),
        ("subPathExpr", Schema::string()),
    ])
    .required(["name", "mountPath"])
    .proto_fields([
        ("name", 1),
        ("readOnly", 2),
        ("mountPath", 3),
        ("subPath", 4),
        ("mountPropagation", 5),
        ("subPathExpr", 6),
        ("recursiveReadOnly", 7),
    ])
}

fn resource_requirements() -> Schema {
    Schema::object([
        ("limits", resource_list()),
        ("requests", resource_list()),
        (
            "claims",
            Schema::array(
                Schema::object([("name", Schema::string()), ("request", Schema::string())])
                    .required(["name"])
                    .proto_fields([("name", 1), ("request", 2)]),
            )
            .map_list(["name"]),
        ),
    ])
    .proto_fields([("limits", 1), ("requests", 2), ("claims", 3)])
}

/// `corev1.Container`; also the shape of init and ephemeral containers.
#[must_use]
pub fn container() -> Schema {
    Schema::object([
        ("name", Schema::string()),
        ("image", Schema::string()),
        ("command", Schema::string_list().atomic_list()),
        ("args", Schema::string_list().atomic_list()),
        ("workingDir", Schema::string()),
        (
            "ports",
            Schema::array(container_port())
                .map_list(["containerPort", "protocol"])
                .merge_by("containerPort"),
        ),
        (
            "envFrom",
            Schema::array(Schema::free_form_object()).atomic_list(),
        ),
        (
            "env",
            Schema::array(env_var()).map_list(["name"]).merge_by("name"),
        ),
        ("resources", resource_requirements()),
        (
            "resizePolicy",
            Schema::array(
                Schema::object([
                    ("resourceName", Schema::string()),
                    ("restartPolicy", Schema::string()),
                ])
                .proto_fields([("resourceName", 1), ("restartPolicy", 2)]),
            )
            .atomic_list(),
        ),
        ("restartPolicy", Schema::string()),
        (
            "volumeMounts",
            Schema::array(volume_mount())
                .map_list(["mountPath"])
                .merge_by("mountPath"),
        ),
        (
            "volumeDevices",
            Schema::array(
                Schema::object([("name", Schema::string()), ("devicePath", Schema::string())])
                    .proto_fields([("name", 1), ("devicePath", 2)]),
            )
            .map_list(["devicePath"])
            .merge_by("devicePath"),
        ),
        ("livenessProbe", Schema::free_form_object()),
        ("readinessProbe", Schema::free_form_object()),
        ("startupProbe", Schema::free_form_object()),
        ("lifecycle", Schema::free_form_object()),
        ("terminationMessagePath", Schema::string()),
        ("terminationMessagePolicy", Schema::string()),
        (
            "imagePullPolicy",
            Schema::string().one_of(["Always", "Never", "IfNotPresent"]),
        ),
        ("securityContext", Schema::free_form_object()),
        ("stdin", Schema::boolean().omit_zero()),
        ("stdinOnce", Schema::boolean().omit_zero()),
        ("tty", Schema::boolean().omit_zero()),
    ])
    .required(["name"])
    // envFrom (19), probes (10, 11, 22), lifecycle (12) and securityContext
    // (15) are messages this schema leaves free-form: unnumbered.
    .proto_fields([
        ("name", 1),
        ("image", 2),
        ("command", 3),
        ("args", 4),
        ("workingDir", 5),
        ("ports", 6),
        ("env", 7),
        ("resources", 8),
        ("volumeMounts", 9),
        ("terminationMessagePath", 13),
        ("imagePullPolicy", 14),
        ("stdin", 16),
        ("stdinOnce", 17),
        ("tty", 18),
        ("terminationMessagePolicy", 20),
        ("volumeDevices", 21),
        ("resizePolicy", 23),
        ("restartPolicy", 24),
    ])
}

fn volume() -> Schema {
    // Each volume has a name and one source; the sources are kept as sent,
    // and sources not listed here survive too.
    Schema::object([
        ("name", Schema::string()),
        ("emptyDir", Schema::free_form_object()),
        ("configMap", Schema::free_form_object()),
        ("secret", Schema::free_form_object()),
        ("persistentVolumeClaim", Schema::free_form_object()),
        ("hostPath", Schema::free_form_object()),
        ("projected", Schema::free_form_object()),
        ("downwardAPI", Schema::free_form_object()),
        ("ephemeral", Schema::free_form_object()),
        ("csi", Schema::free_form_object()),
        ("nfs", Schema::free_form_object()),
        ("image", Schema::free_form_object()),
    ])
    .required(["name"])
    .preserve_unknown()
}

/// `corev1.Toleration`.
#[must_use]
pub fn toleration() -> Schema {
    Schema::object([
        ("key", Schema::string()),
        ("operator", Schema::string().one_of(["Exists", "Equal", ""])),
        ("value", Schema::string()),
        (
            "effect",
            Schema::string().one_of(["NoSchedule", "PreferNoSchedule", "NoExecute", ""]),
        ),
        ("tolerationSeconds", Schema::integer_i64()),
    ])
    .proto_fields([
        ("key", 1),
        ("operator", 2),
        ("value", 3),
        ("effect", 4),
        ("tolerationSeconds", 5),
    ])
}

fn named_ref() -> Schema {
    Schema::object([("name", Schema::string())])
        .atomic_map()
        .proto_fields([("name", 1)])
}

/// `corev1.PodSpec`. Fields not declared here are kept as sent.
#[must_use]
pub fn pod_spec() -> Schema {
    Schema::object([
        (
            "volumes",
            Schema::array(volume())
                .map_list(["name"])
                .merge_by("name")
                .patch_strategy("merge,retainKeys"),
        ),
        (
            "initContainers",
            Schema::array(container())
                .map_list(["name"])
                .merge_by("name"),
        ),
        (
            "containers",
            Schema::array(container())
                .map_list(["name"])
                .merge_by("name"),
        ),
        (
            "ephemeralContainers",
            Schema::array(container().preserve_unknown())
                .map_list(["name"])
                .merge_by("name"),
        ),
        (
            "restartPolicy",
            Schema::string().one_of(["Always", "OnFailure", "Never"]),
        ),
        ("terminationGracePeriodSeconds", Schema::integer_i64()),
        ("activeDeadlineSeconds", Schema::integer_i64()),
        (
            "dnsPolicy",
            Schema::string().one_of(["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"]),
        ),
        ("nodeSelector", Schema::string_map().atomic_map()),
        ("serviceAccountName", Schema::string()),
        ("serviceAccount", Schema::string()),
        ("automountServiceAccountToken", Schema::boolean()),
        ("nodeName", Schema::string()),
        ("hostNetwork", Schema::boolean().omit_zero()),
        ("hostPID", Schema::boolean().omit_zero()),
        ("hostIPC", Schema::boolean().omit_zero()),
        ("shareProcessNamespace", Schema::boolean()),
        ("securityContext", Schema::free_form_object()),
        (
            "imagePullSecrets",
            Schema::array(named_ref())
                .map_list(["name"])
                .merge_by("name"),
        ),
        ("hostname", Schema::string()),
        ("subdomain", Schema::string()),
        ("affinity", Schema::free_form_object()),
        ("schedulerName", Schema::string()),
        ("tolerations", Schema::array(toleration()).atomic_list()),
        (
            "hostAliases",
            Schema::array(Schema::free_form_object())
                .map_list(["ip"])
                .merge_by("ip"),
        ),
        ("priorityClassName", Schema::string()),
        ("priority", Schema::integer_i32()),
        ("dnsConfig", Schema::free_form_object()),
        (
            "readinessGates",
            Schema::array(
                Schema::object([("conditionType", Schema::string())])
                    .required(["conditionType"])
                    .proto_fields([("conditionType", 1)]),
            )
            .atomic_list(),
        ),
        ("runtimeClassName", Schema::string()),
        ("enableServiceLinks", Schema::boolean()),
        (
            "preemptionPolicy",
            Schema::string().one_of(["PreemptLowerPriority", "Never"]),
        ),
        ("overhead", resource_list()),
        (
            "topologySpreadConstraints",
            Schema::array(Schema::free_form_object())
                .map_list(["topologyKey", "whenUnsatisfiable"])
                .merge_by("topologyKey"),
        ),
        ("setHostnameAsFQDN", Schema::boolean()),
        (
            "os",
            Schema::object([("name", Schema::string())])
                .required(["name"])
                .proto_fields([("name", 1)]),
        ),
        ("hostUsers", Schema::boolean()),
        (
            "schedulingGates",
            Schema::array(named_ref())
                .map_list(["name"])
                .merge_by("name"),
        ),
        (
            "resourceClaims",
            Schema::array(Schema::free_form_object())
                .map_list(["name"])
                .merge_by("name")
                .patch_strategy("merge,retainKeys"),
        ),
        ("resources", resource_requirements()),
    ])
    .required(["containers"])
    .preserve_unknown()
    // Unnumbered: volumes (1) and ephemeralContainers (34), whose messages
    // nest what the JSON inlines (VolumeSource, EphemeralContainerCommon),
    // and the messages kept free-form here: securityContext (14), affinity
    // (18), hostAliases (23), dnsConfig (26), topologySpreadConstraints (33)
    // and resourceClaims (39).
    .proto_fields([
        ("containers", 2),
        ("restartPolicy", 3),
        ("terminationGracePeriodSeconds", 4),
        ("activeDeadlineSeconds", 5),
        ("dnsPolicy", 6),
        ("nodeSelector", 7),
        ("serviceAccountName", 8),
        ("serviceAccount", 9),
        ("nodeName", 10),
        ("hostNetwork", 11),
        ("hostPID", 12),
        ("hostIPC", 13),
        ("imagePullSecrets", 15),
        ("hostname", 16),
        ("subdomain", 17),
        ("schedulerName", 19),
        ("initContainers", 20),
        ("automountServiceAccountToken", 21),
        ("tolerations", 22),
        ("priorityClassName", 24),
        ("priority", 25),
        ("shareProcessNamespace", 27),
        ("readinessGates", 28),
        ("runtimeClassName", 29),
        ("enableServiceLinks", 30),
        ("preemptionPolicy", 31),
        ("overhead", 32),
        ("setHostnameAsFQDN", 35),
        ("os", 36),
        ("hostUsers", 37),
        ("schedulingGates", 38),
        ("resources", 40),
    ])
    .describe("Specification of the desired behavior of the pod.")
}
