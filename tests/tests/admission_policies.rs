//! ValidatingAdmissionPolicy on the real binary: a policy and its binding
//! deny writes with params (by name and by selector), messages and
//! messageExpressions in kube's words and the validation's reason; Warn
//! answers a Warning header and Audit notes the failure (and the policy's
//! audit annotations) in the audit event; variables, `request` and
//! `namespaceObject` are seen; failurePolicy decides about expressions
//! that fail; bad policies and bindings are refused at creation; and
//! `status.typeChecking` warns of fields the matched kinds do not have.

use cairn_tests::audit_log::completed_event;
use cairn_tests::{Response, Server, wait_until};
use serde_json::{Value, json};

const POLICIES: &str = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
const BINDINGS: &str = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings";
const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";

fn configmap(name: &str, labels: Value, data: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "labels": labels}, "data": data})
}

fn policy(name: &str, spec: Value) -> Value {
    json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": name}, "spec": spec})
}

fn binding(name: &str, spec: Value) -> Value {
    json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": name}, "spec": spec})
}

/// Rules for ConfigMaps labelled `checked: <label>`.
fn configmaps_labelled(label: &str) -> Value {
    json!({
        "resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
            "operations": ["CREATE", "UPDATE"], "resources": ["configmaps"]}],
        "objectSelector": {"matchLabels": {"checked": label}}
    })
}

fn create(s: &Server, path: &str, body: &Value) {
    let r = s.post(path, body);
    assert_eq!(r.status, 201, "{}", r.text());
}

/// Creates ConfigMaps labelled `checked: <label>` until one is answered
/// with `status` (the binding is in effect).
fn until_answered(s: &Server, label: &str, data: &Value, status: u16) -> Response {
    let mut n = 0;
    let mut last = None;
    wait_until("the policy to take effect", || {
        n += 1;
        let r = s.post(
            CONFIGMAPS,
            &configmap(
                &format!("probe-{label}-{n}"),
                json!({"checked": label}),
                data.clone(),
            ),
        );
        let done = r.status == status;
        last = Some(r);
        done
    });
    last.expect("an answer")
}

#[test]
fn policies_deny_with_params_messages_and_reasons() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    create(
        &s,
        CONFIGMAPS,
        &configmap("limits", json!({}), json!({"max": "2"})),
    );
    create(
        &s,
        POLICIES,
        &policy(
            "max-keys",
            json!({
                "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
                "matchConstraints": configmaps_labelled("keys"),
                "variables": [{"name": "keys", "expression": "has(object.data) ? object.data.size() : 0"}],
                "validations": [
                    {"expression": "variables.keys <= int(params.data.max)",
                     "messageExpression": "'has ' + string(variables.keys) + ' keys, at most ' + params.data.max + ' allowed'"},
                    {"expression": "!has(object.data) || !('secret' in object.data)",
                     "message": "no secrets here", "reason": "Forbidden"}
                ]
            }),
        ),
    );
    create(
        &s,
        BINDINGS,
        &binding(
            "max-keys-binding",
            json!({"policyName": "max-keys", "validationActions": ["Deny"],
                "paramRef": {"name": "limits", "namespace": "default", "parameterNotFoundAction": "Deny"}}),
        ),
    );
    let r = until_answered(&s, "keys", &json!({"a": "1", "b": "2", "c": "3"}), 422);
    let status = r.json();
    assert_eq!(status["reason"], "Invalid");
    assert!(
        status["message"].as_str().unwrap().ends_with(
            "is forbidden: ValidatingAdmissionPolicy 'max-keys' with binding 'max-keys-binding' denied request: has 3 keys, at most 2 allowed"
        ),
        "{status}"
    );
    assert_eq!(status["details"]["causes"][0]["message"], status["message"]);

    let small = configmap("small", json!({"checked": "keys"}), json!({"a": "1"}));
    assert_eq!(s.post(CONFIGMAPS, &small).status, 201);
    let unchecked = configmap("free", json!({}), json!({"a": "1", "b": "2", "c": "3"}));
    assert_eq!(s.post(CONFIGMAPS, &unchecked).status, 201);

    let secret = configmap("sneaky", json!({"checked": "keys"}), json!({"secret": "x"}));
    let r = s.post(CONFIGMAPS, &secret);
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(
        r.json()["message"],
        "configmaps \"sneaky\" is forbidden: ValidatingAdmissionPolicy 'max-keys' with binding 'max-keys-binding' denied request: no secrets here"
    );

    // Without its param, the binding denies (parameterNotFoundAction: Deny).
    assert_eq!(s.delete(&format!("{CONFIGMAPS}/limits")).status, 200);
    let r = until_answered(&s, "keys", &json!({"a": "1"}), 422);
    assert!(
        r.json()["message"].as_str().unwrap().ends_with(
            "denied request: no params found for policy binding with `Deny` parameterNotFoundAction"
        ),
        "{}",
        r.text()
    );
}

const AUDIT_POLICY: &str = "apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
  resources:
  - group: \"\"
    resources: [configmaps]
- level: None
";

#[test]
fn warn_and_audit_actions_variables_and_failure_policies() {
    let dir = tempfile::tempdir().expect("tempdir");
    let audit_policy = dir.path().join("audit.yaml");
    std::fs::write(&audit_policy, AUDIT_POLICY).expect("write");
    let log = dir.path().join("audit.log");
    let (policy_flag, log_flag) = (
        audit_policy.display().to_string(),
        log.display().to_string(),
    );
    let s = Server::start(&[
        "--api-domain",
        "k8s.io",
        "--audit-policy-file",
        &policy_flag,
        "--audit-log-path",
        &log_flag,
    ]);
    let ns = json!({"apiVersion": "v1", "kind": "Namespace",
        "metadata": {"name": "team-a", "labels": {"team": "a"}}});
    create(&s, "/api/v1/namespaces", &ns);
    create(
        &s,
        POLICIES,
        &policy(
            "owned",
            json!({
                "matchConstraints": configmaps_labelled("owner"),
                "variables": [{"name": "team", "expression": "namespaceObject.metadata.labels.team"}],
                "validations": [{"expression": "has(object.metadata.labels.owner) && object.metadata.labels.owner == variables.team",
                                 "message": "owner must be the namespace's team"}],
                "auditAnnotations": [{"key": "writer", "valueExpression": "request.userInfo.username"}]
            }),
        ),
    );
    create(
        &s,
        BINDINGS,
        &binding(
            "owned-binding",
            json!({"policyName": "owned", "validationActions": ["Warn", "Audit"]}),
        ),
    );
    let path = "/api/v1/namespaces/team-a/configmaps";
    let mut n = 0;
    let mut last = None;
    wait_until("the warning", || {
        n += 1;
        let r = s.post(
            path,
            &configmap(&format!("w{n}"), json!({"checked": "owner"}), json!({})),
        );
        let warned = r.status == 201 && r.header("Warning").is_some();
        last = Some(r);
        warned
    });
    let r = last.unwrap();
    assert_eq!(
        r.header("Warning").unwrap(),
        "299 - \"Validation failed for ValidatingAdmissionPolicy 'owned' with binding 'owned-binding': owner must be the namespace's team\""
    );
    let event = completed_event(&log, &r);
    let notes = &event["annotations"];
    assert_eq!(notes["owned/writer"], "system:admin", "{notes}");
    let failure: Value = serde_json::from_str(
        notes["validation.policy.admission.k8s.io/validation_failure"]
            .as_str()
            .expect("the failure annotation"),
    )
    .unwrap();
    assert_eq!(
        failure,
        json!([{"expressionIndex": 0, "message": "owner must be the namespace's team",
                "validationActions": ["Warn", "Audit"], "binding": "owned-binding", "policy": "owned"}])
    );
    let fine = configmap("fine", json!({"checked": "owner", "owner": "a"}), json!({}));
    let r = s.post(path, &fine);
    assert_eq!(r.status, 201);
    assert!(r.header("Warning").is_none(), "{:?}", r.header("Warning"));

    // An expression that cannot be evaluated: Ignore lets the write
    // through, Fail denies it.
    for (name, failure_policy) in [("ignoring", "Ignore"), ("failing", "Fail")] {
        create(
            &s,
            POLICIES,
            &policy(
                name,
                json!({"failurePolicy": failure_policy,
                    "matchConstraints": configmaps_labelled(name),
                    "validations": [{"expression": "object.data.missing == 'x'"}]}),
            ),
        );
        create(
            &s,
            BINDINGS,
            &binding(
                &format!("{name}-binding"),
                json!({"policyName": name, "validationActions": ["Deny"]}),
            ),
        );
    }
    let r = until_answered(&s, "failing", &json!({"k": "v"}), 422);
    assert!(
        r.json()["message"].as_str().unwrap().contains(
            "ValidatingAdmissionPolicy 'failing' with binding 'failing-binding' denied request: expression 'object.data.missing == 'x'' resulted in error: "
        ),
        "{}",
        r.text()
    );
    let ignored = configmap("ignored", json!({"checked": "ignoring"}), json!({"k": "v"}));
    assert_eq!(s.post(CONFIGMAPS, &ignored).status, 201);
}

#[test]
fn bad_policies_and_bindings_are_refused() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let bad = policy(
        "bad",
        json!({"matchConstraints": configmaps_labelled("x"),
            "validations": [{"expression": "object.data.size() <"}]}),
    );
    let r = s.post(POLICIES, &bad);
    assert_eq!(r.status, 422, "{}", r.text());
    let message = r.json()["message"].as_str().unwrap().to_string();
    assert!(
        message.starts_with("ValidatingAdmissionPolicy.admissionregistration.k8s.io \"bad\" is invalid: spec.validations[0].expression: Invalid value: \"object.data.size() <\": compilation failed: "),
        "{message}"
    );
    let r = s.post(BINDINGS, &binding("b", json!({"policyName": "p"})));
    assert_eq!(r.status, 422, "{}", r.text());
    assert_eq!(
        r.json()["message"],
        "ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io \"b\" is invalid: spec.validationActions: Required value"
    );
    let not_bool = policy(
        "not-bool",
        json!({"matchConstraints": configmaps_labelled("x"),
            "validations": [{"expression": "'yes'"}]}),
    );
    let r = s.post(POLICIES, &not_bool);
    assert_eq!(r.status, 422, "{}", r.text());
    assert_eq!(
        r.json()["message"],
        "ValidatingAdmissionPolicy.admissionregistration.k8s.io \"not-bool\" is invalid: spec.validations[0].expression: Invalid value: \"'yes'\": must evaluate to bool"
    );
    let r = s.get(POLICIES);
    assert_eq!(r.status, 200, "{}", r.text());
}

/// The policy once its status has caught up with `generation`.
fn checked(s: &Server, name: &str, generation: i64) -> Value {
    let mut found = Value::Null;
    wait_until("the policy's type checking", || {
        found = s.get(&format!("{POLICIES}/{name}")).json();
        found["status"]["observedGeneration"] == generation
    });
    found
}

#[test]
fn type_checking_warns_of_fields_the_matched_kinds_lack() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let rules = json!({"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"],
        "operations": ["CREATE"], "resources": ["deployments", "statefulsets"]}]});
    let typo = policy(
        "typo",
        json!({"matchConstraints": rules,
        "validations": [
            {"expression": "object.spec.replicas <= 5"},
            {"expression": "object.spec.replica <= 5", "messageExpression": "'too many in ' + object.metadata.name"}
        ]}),
    );
    create(&s, POLICIES, &typo);
    let found = checked(&s, "typo", 1);
    let warnings = found["status"]["typeChecking"]["expressionWarnings"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(warnings.len(), 1, "{found}");
    assert_eq!(warnings[0]["fieldRef"], "spec.validations[1].expression");
    let text = warnings[0]["warning"].as_str().unwrap_or_default();
    for expected in [
        "apps/v1, Kind=Deployment: ERROR: <input>:1:",
        "apps/v1, Kind=StatefulSet: ERROR: <input>:1:",
        "undefined field 'replica'",
        "| object.spec.replica <= 5",
    ] {
        assert!(text.contains(expected), "{expected} in {text}");
    }

    let mut fixed = found.clone();
    fixed["spec"]["validations"][1]["expression"] = json!("object.spec.replicas <= 5");
    let r = s.put(&format!("{POLICIES}/typo"), &fixed);
    assert_eq!(r.status, 200, "{}", r.text());
    let found = checked(&s, "typo", 2);
    assert_eq!(found["status"]["typeChecking"], json!({}), "{found}");
}

const REPLICA_LIMIT: &str = "apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replica-limit}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  validations:
  - expression: object.spec.replicas <= 5
    messageExpression: \"'replicas must be at most 5, not ' + string(object.spec.replicas)\"
  - expression: authorizer.group('apps').resource('deployments').namespace('default').check('delete').allowed()
    message: the writer must be able to delete deployments
  - expression: authorizer.requestResource.check('delete').allowed()
    message: the writer must be able to delete what it writes
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-limit}
spec: {policyName: replica-limit, validationActions: [Deny]}
";

#[test]
fn kubectl_applies_a_policy_and_sees_its_denial() {
    if !cairn_tests::kubectl_present() {
        return;
    }
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let ok = |args: &[&str], stdin: Option<&str>| {
        let (ok, out) = cairn_tests::kubectl(&s, args, stdin);
        assert!(ok, "kubectl {args:?}: {out}");
        out
    };
    let out = ok(&["apply", "-f", "-"], Some(REPLICA_LIMIT));
    assert!(
        out.contains(
            "validatingadmissionpolicy.admissionregistration.k8s.io/replica-limit created"
        ),
        "{out}"
    );
    let mut out = String::new();
    wait_until("the policy to deny", || {
        let (created, text) = cairn_tests::kubectl(
            &s,
            &[
                "create",
                "deployment",
                "web",
                "--image=nginx",
                "--replicas=9",
            ],
            None,
        );
        out = text;
        !created
    });
    assert!(
        out.contains("ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit' denied request: replicas must be at most 5, not 9"),
        "{out}"
    );
    let out = ok(
        &[
            "create",
            "deployment",
            "web",
            "--image=nginx",
            "--replicas=2",
        ],
        None,
    );
    assert!(out.contains("deployment.apps/web created"), "{out}");
    let out = ok(&["get", "validatingadmissionpolicies"], None);
    assert!(
        out.contains("VALIDATIONS") && out.contains("replica-limit"),
        "{out}"
    );
}
