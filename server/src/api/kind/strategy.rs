//! A kind's strategy: the hooks through which Kubernetes' special rules for
//! it (defaults, semantic checks, names, deletion) reach the generic store.

use serde_json::Value;

use crate::api::cel::Requester;
use crate::api::error::{ApiError, Cause};

/// How `metadata.name` is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameRule {
    /// RFC 1123 subdomain: ≤253, lowercase alphanumerics, `-` and `.`.
    Subdomain,
    /// RFC 1123 label: ≤63, lowercase alphanumerics and `-`.
    Label,
    /// Any path segment: not `.` or `..`, no `/` or `%` (RBAC's names,
    /// such as `system:discovery`).
    PathSegment,
    /// None here: the kind's own checks judge the name (an IPAddress is
    /// named by its address, a ClusterTrustBundle by its signer).
    Own,
}

/// What a DELETE does to an object with no finalizers pending.
pub enum DeleteAction {
    /// Remove it from storage now.
    Remove,
    /// Store this updated object instead (e.g. a namespace turning Terminating).
    Update(Value),
}

/// Kind-specific behaviour, called by the generic store in a fixed order:
/// create: `prepare_for_create` → schema validation → `validate_by`;
/// update: `prepare_for_update` → schema validation → `validate_update_by`.
/// `&Value` hooks must not change the object (the compiler sees to it).
pub trait Strategy: Send + Sync {
    /// Normalises a new object (status defaults, required finalizers).
    fn prepare_for_create(&self, _obj: &mut Value) {}
    /// `prepare_for_create` for a write by `requester`, for kinds that
    /// record who asked (a CertificateSigningRequest's `spec.username`).
    fn prepare_for_create_by(&self, obj: &mut Value, _requester: &Requester<'_>) {
        self.prepare_for_create(obj);
    }
    /// Normalises an update given the stored object.
    fn prepare_for_update(&self, _new: &mut Value, _old: &Value) {}
    /// Semantic checks beyond the schema (answered with 422).
    fn validate(&self, _obj: &Value) -> Vec<Cause> {
        Vec::new()
    }
    /// Semantic checks of an update.
    fn validate_update(&self, new: &Value, _old: &Value) -> Vec<Cause> {
        self.validate(new)
    }
    /// `validate` for a write by `requester`, for checks that depend on
    /// who writes (CEL rules using `authorizer`).
    fn validate_by(&self, obj: &Value, _requester: &Requester<'_>) -> Vec<Cause> {
        self.validate(obj)
    }
    /// `validate_update` for a write by `requester`.
    fn validate_update_by(
        &self,
        new: &Value,
        old: &Value,
        _requester: &Requester<'_>,
    ) -> Vec<Cause> {
        self.validate_update(new, old)
    }
    /// The rule for `metadata.name`.
    fn name_rule(&self) -> NameRule {
        NameRule::Subdomain
    }
    /// Decides what a DELETE does once metadata finalizers are clear.
    fn on_delete(&self, _obj: &Value) -> Result<DeleteAction, ApiError> {
        Ok(DeleteAction::Remove)
    }
    /// Whether a terminating object (deletionTimestamp set, metadata
    /// finalizers empty) may now be removed; kinds with their own
    /// finalization (namespaces' `spec.finalizers`) say when.
    fn ready_to_remove(&self, _obj: &Value) -> bool {
        true
    }
    /// Kinds deleted gracefully (pods): the grace period a DELETE without
    /// `gracePeriodSeconds` gets. `None`: deletes take effect at once.
    fn default_grace_period_seconds(&self, _obj: &Value) -> Option<i64> {
        None
    }
    /// Objects of a graceful kind that nothing waits on (a pod never
    /// scheduled, or already finished): deleted at once whatever grace
    /// period the DELETE asks for, as Kubernetes' pod strategy does.
    fn deleted_at_once(&self, _obj: &Value) -> bool {
        false
    }
    /// Takes what the object needs from the server's pools and writes it
    /// in (after validation, before the commit); `old` is the stored
    /// object of an update. Kept by the store once the write commits.
    fn claim(
        &self,
        _obj: &mut Value,
        _old: Option<&Value>,
    ) -> Result<Option<Box<dyn Claim>>, ApiError> {
        Ok(None)
    }
    /// The object was removed from storage: what it held is free again.
    fn removed(&self, _obj: &Value) {}
    /// At start, every stored object of the kind: what they hold is taken.
    fn recover(&self, _stored: &[Value]) {}
}

/// What a write took from a pool the server hands out (a Service's cluster
/// IPs and node ports). Dropped without `keep` (the write failed, or was a
/// dry run) it gives back what it took.
pub trait Claim: Send {
    /// The write committed: what it took stays taken, and what the object
    /// held before and no longer holds is given back.
    fn keep(self: Box<Self>);
}

/// A strategy with every default: plain objects.
pub struct DefaultStrategy;

impl Strategy for DefaultStrategy {}
