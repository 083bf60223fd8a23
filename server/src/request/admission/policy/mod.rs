//! The ValidatingAdmissionPolicy plugin: every stored
//! ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding, read
//! through informers and compiled once per change, judge each write that
//! both a policy's `matchConstraints` and its binding's `matchResources`
//! cover. For each of the binding's params (`paramKind` objects named or
//! selected by `paramRef`) the policy's CEL runs over `object`,
//! `oldObject`, `request`, `params`, `namespaceObject`, `variables` and
//! `authorizer`; each failed validation is acted on as the binding says:
//! Deny refuses the write (`ValidatingAdmissionPolicy 'p' with binding 'b'
//! denied request: ...`, with the validation's reason), Warn answers a
//! `Warning` header, Audit notes it in the request's audit event. Audit
//! annotations are noted as `<policy>/<key>`.

pub mod compiled;
mod evaluate;
mod params;
pub mod type_check;

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::sync::watch;

use crate::api::error::ApiError;
use crate::api::informer::{Informer, Shared};
use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::api::store::Store;
use crate::request::admission::webhook::review;
use crate::request::admission::{Attributes, Operation, Pins, ValidatingAdmission};
use crate::request::authz::Authorizers;
use crate::request::notes;
use crate::storage::Storage;
use crate::util::maybe_async::MaybeAsync;
use compiled::{Binding, Policy};
use evaluate::{Inputs, evaluate};

pub const VALIDATING_POLICY: &str = "ValidatingAdmissionPolicy";
const FAILURE_ANNOTATION: &str = "validation.policy.admission.k8s.io/validation_failure";

/// What the plugin is started with.
pub struct Setting {
    pub storage: Arc<dyn Storage>,
    pub registry: Arc<crate::api::registry::Registry>,
    pub policies_kind: Arc<KindSpec>,
    pub bindings_kind: Arc<KindSpec>,
    pub namespaces_kind: Arc<KindSpec>,
    pub domain: String,
    pub authorizers: Option<Arc<Authorizers>>,
}

/// The plugin.
pub struct Policies {
    policies: Shared<Arc<Policy>>,
    bindings: Shared<Arc<Binding>>,
    /// Namespace objects by key (`namespaceObject`, namespace selectors).
    namespaces: Shared<Value>,
    namespaces_kind: Arc<KindSpec>,
    /// Reads params.
    reads: Store,
    domain: String,
    authorizers: Option<Arc<Authorizers>>,
}

/// A policy and binding that cover a write, and the equivalent kind the
/// policy matched it as (if not its own).
struct Pair {
    policy: Arc<Policy>,
    binding: Arc<Binding>,
    via: Option<Arc<KindSpec>>,
}

fn whole(kv: &crate::api::informer::KeyValue) -> Option<Value> {
    serde_json::from_slice(&kv.value).ok()
}

impl Policies {
    #[must_use]
    pub fn start(setting: &Setting, stop: &watch::Receiver<bool>) -> Policies {
        let over = |k: &KindSpec| {
            Informer::over(
                Arc::clone(&setting.storage),
                keys::collection_prefix(k, None),
            )
        };
        let no_admission = Arc::new(crate::request::admission::Chain::new(
            Vec::new(),
            Vec::new(),
        ));
        Policies {
            policies: Shared::spawn(over(&setting.policies_kind), compiled::policy, stop.clone()),
            bindings: Shared::spawn(
                over(&setting.bindings_kind),
                compiled::binding,
                stop.clone(),
            ),
            namespaces: Shared::spawn(over(&setting.namespaces_kind), whole, stop.clone()),
            namespaces_kind: Arc::clone(&setting.namespaces_kind),
            reads: Store::new(
                Arc::clone(&setting.storage),
                Arc::clone(&setting.registry),
                no_admission,
            ),
            domain: setting.domain.clone(),
            authorizers: setting.authorizers.clone(),
        }
    }

    fn namespace(&self, name: &str) -> Option<Value> {
        let key = keys::object_key(&self.namespaces_kind, None, name);
        self.namespaces.read().get(&key).cloned()
    }

    /// The (policy, binding) pairs that cover the write, bindings by name.
    fn pairs(&self, attrs: &Attributes<'_>, object: Option<&Value>) -> Vec<Pair> {
        let bindings: Vec<Arc<Binding>> = self.bindings.read().values().cloned().collect();
        if bindings.is_empty() {
            return Vec::new();
        }
        let policies: Vec<Arc<Policy>> = self.policies.read().values().cloned().collect();
        let equivalents = self.reads.registry.equivalents(attrs.kind);
        let labels = |ns: &str| {
            self.namespace(ns).and_then(|n| {
                n.pointer("/metadata/labels")
                    .and_then(Value::as_object)
                    .cloned()
                    .or_else(|| Some(serde_json::Map::new()))
            })
        };
        let mut pairs = Vec::new();
        for binding in bindings {
            let Some(policy) = policies.iter().find(|p| p.name == binding.policy) else {
                continue;
            };
            let Some(via) = policy
                .constraints
                .matches(attrs, object, &equivalents, &labels, false)
            else {
                continue;
            };
            if let Some(m) = &binding.match_resources
                && m.matches(attrs, object, &equivalents, &labels, true)
                    .is_none()
            {
                continue;
            }
            pairs.push(Pair {
                policy: Arc::clone(policy),
                binding,
                via,
            });
        }
        pairs.sort_by(|a, b| a.binding.name.cmp(&b.binding.name));
        pairs
    }

    async fn judge(
        &self,
        attrs: &Attributes<'_>,
        object: Option<&Value>,
        pairs: Vec<Pair>,
    ) -> Result<(), ApiError> {
        let authorizer = self.authorizers.as_ref().map(|authorizers| {
            let user = Arc::new(attrs.user.clone());
            let addressed = crate::api::cel::Addressed {
                group: &attrs.kind.group,
                resource: &attrs.kind.resource,
                subresource: attrs.subresource.unwrap_or_default(),
                namespace: attrs.namespace.unwrap_or_default(),
                name: attrs.name,
            };
            crate::api::cel::Requester {
                user: Some(&user),
                authorizers,
            }
            .binding(&addressed)
        });
        let namespace_object = attrs
            .namespace
            .filter(|_| attrs.kind.namespaced)
            .and_then(|ns| self.namespace(ns))
            .unwrap_or(Value::Null);
        let mut denial: Option<ApiError> = None;
        let mut audited = Vec::new();
        for Pair {
            policy,
            binding,
            via,
        } in pairs
        {
            let (seen_object, seen_old) = review::versions_as(via.as_deref(), attrs, object);
            let seen = review::Seen {
                kind: via.as_deref().unwrap_or(attrs.kind),
                object: seen_object.as_deref(),
                old: seen_old.as_deref(),
            };
            let uid = crate::util::random::uuid_v4();
            let mut request = review::request(attrs, &seen, &self.domain, "v1", &uid);
            let request = request["request"].take();
            let params = params::resolve(&self.reads, &policy, &binding, attrs).await;
            let failures = match params {
                Ok(list) => {
                    let mut failures = Vec::new();
                    for param in &list {
                        let inputs = Inputs {
                            object: seen_object.as_deref().unwrap_or(&Value::Null),
                            old_object: seen_old.as_deref().unwrap_or(&Value::Null),
                            request: &request,
                            params: param,
                            namespace_object: &namespace_object,
                            authorizer: authorizer.as_ref(),
                        };
                        let verdict = evaluate(&policy, &inputs);
                        for (key, value) in verdict.annotations {
                            notes::annotate_audit(format!("{}/{key}", policy.name), value);
                        }
                        failures.extend(verdict.failures);
                    }
                    failures
                }
                Err(failure) if policy.ignore_failures && !failure.always => Vec::new(),
                Err(failure) => vec![failure.failure],
            };
            for failure in failures {
                if binding.deny && denial.is_none() {
                    denial = Some(ApiError::PolicyDenied {
                        group: attrs.kind.group.clone(),
                        resource: attrs.kind.resource.clone(),
                        name: attrs.name.to_string(),
                        message: format!(
                            "ValidatingAdmissionPolicy '{}' with binding '{}' denied request: {}",
                            policy.name, binding.name, failure.message
                        ),
                        reason: failure.reason,
                    });
                }
                if binding.warn {
                    notes::warn(&format!(
                        "Validation failed for ValidatingAdmissionPolicy '{}' with binding '{}': {}",
                        policy.name, binding.name, failure.message
                    ));
                }
                if binding.audit {
                    audited.push(json!({
                        "expressionIndex": failure.index.unwrap_or(0),
                        "message": failure.message,
                        "validationActions": binding.actions,
                        "binding": binding.name,
                        "policy": policy.name,
                    }));
                }
            }
        }
        if !audited.is_empty() {
            notes::annotate_audit(FAILURE_ANNOTATION.into(), Value::Array(audited).to_string());
        }
        denial.map_or(Ok(()), Err)
    }
}

impl ValidatingAdmission for Policies {
    fn name(&self) -> &'static str {
        VALIDATING_POLICY
    }

    fn handles(&self, _operation: Operation) -> bool {
        !self.bindings.read().is_empty()
    }

    fn validate<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
        object: Option<&'a Value>,
        _pins: &'a mut Pins,
    ) -> MaybeAsync<'a, Result<(), ApiError>> {
        let pairs = self.pairs(attrs, object.or(attrs.old_object));
        if pairs.is_empty() {
            return MaybeAsync::Ready(Ok(()));
        }
        MaybeAsync::pending(self.judge(attrs, object, pairs))
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
