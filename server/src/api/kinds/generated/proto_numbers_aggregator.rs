//! Protobuf field numbers and list markers of kube-aggregator's
//! `apiregistration/v1` messages (facts from the `protobuf` struct tags and
//! list markers of its `types.go`, v1.33).

const PACKAGE: &str = "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1";

/// `(definition, "field=number ...")`, the definition without `PACKAGE.`.
const NUMBERS: &[(&str, &str)] = &[
    ("APIService", "metadata=1 spec=2 status=3"),
    (
        "APIServiceSpec",
        "service=1 group=2 version=3 insecureSkipTLSVerify=4 caBundle=5 groupPriorityMinimum=7 versionPriority=8",
    ),
    ("ServiceReference", "namespace=1 name=2 port=3"),
    ("APIServiceStatus", "conditions=1"),
    (
        "APIServiceCondition",
        "type=1 status=2 lastTransitionTime=3 reason=4 message=5",
    ),
];

/// The numbers of definition `name`, when it is one of these messages.
#[must_use]
pub fn numbers(name: &str) -> Option<&'static str> {
    let short = name.strip_prefix(PACKAGE)?.strip_prefix('.')?;
    NUMBERS.iter().find(|(m, _)| *m == short).map(|(_, n)| *n)
}

/// The list facts of definition `name`'s `field`.
#[must_use]
pub fn list_facts(name: &str, field: &str) -> Option<&'static str> {
    let short = name.strip_prefix(PACKAGE)?.strip_prefix('.')?;
    (short == "APIServiceStatus" && field == "conditions")
        .then_some("list=map:type patch=merge key=type")
}
