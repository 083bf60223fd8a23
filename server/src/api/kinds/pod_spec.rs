//! The schema of a core/v1 `PodSpec` and its containers. Deep structures
//! that cairn does not interpret (probes, lifecycle hooks, security
//! contexts, affinity, volume sources) are free-form objects: kept as sent.

use crate::api::schema::Schema;

/// `resource.Quantity`: `500m`, `1Gi` or a bare number.
#[must_use]
pub fn quantity() -> Schema {
    Schema::int_or_string()
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
}

fn env_var() -> Schema {
    Schema::object([
        ("name", Schema::string()),
        ("value", Schema::string()),
        ("valueFrom", Schema::free_form_object()),
    ])
    .required(["name"])
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
}

fn resource_requirements() -> Schema {
    Schema::object([
        ("limits", resource_list()),
        ("requests", resource_list()),
        (
            "claims",
            Schema::array(
                Schema::object([("name", Schema::string()), ("request", Schema::string())])
                    .required(["name"]),
            )
            .map_list(["name"]),
        ),
    ])
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
            Schema::array(Schema::object([
                ("resourceName", Schema::string()),
                ("restartPolicy", Schema::string()),
            ]))
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
            Schema::array(Schema::object([
                ("name", Schema::string()),
                ("devicePath", Schema::string()),
            ]))
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
        ("stdin", Schema::boolean()),
        ("stdinOnce", Schema::boolean()),
        ("tty", Schema::boolean()),
    ])
    .required(["name"])
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
}

fn named_ref() -> Schema {
    Schema::object([("name", Schema::string())]).atomic_map()
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
        ("hostNetwork", Schema::boolean()),
        ("hostPID", Schema::boolean()),
        ("hostIPC", Schema::boolean()),
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
                Schema::object([("conditionType", Schema::string())]).required(["conditionType"]),
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
            Schema::object([("name", Schema::string())]).required(["name"]),
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
    .describe("Specification of the desired behavior of the pod.")
}
