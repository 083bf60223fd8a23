//! The Kubernetes authorizer library (`library.Authz`): the `authorizer`
//! variable of a rule, bound to the user who writes, and the functions
//! that build a check and read its decision:
//!
//! - `authorizer.path(p)` → PathCheck; `authorizer.group(g)` → GroupCheck;
//!   `authorizer.serviceAccount(ns, name)` → an Authorizer checking as
//!   that service account;
//! - `GroupCheck.resource(r)` → ResourceCheck, refined by `.subresource`,
//!   `.namespace`, `.name` (`""` leaves each unset);
//! - `PathCheck.check(httpVerb)` / `ResourceCheck.check(verb)` → Decision,
//!   asked of the server's authorizer chain;
//! - `Decision.allowed()`, `.reason()`, `.errored()`, `.error()`;
//! - for admission policies, `authorizer.requestResource`: a ResourceCheck
//!   of the resource the request itself addresses.

use std::fmt;
use std::sync::{Arc, LazyLock};

use cel::extractors::This;
use cel::objects::Opaque;
use cel::{Context, ExecutionError, FunctionContext, Value};

use super::authz_decide::decide_now;
use crate::api::kind::NameRule;
use crate::api::meta::name_problem;
use crate::request::authz::{Attributes, Authorizers, Verdict};
use crate::request::info::{RequestInfo, ResourceInfo};
use crate::request::user::{UserInfo, api_server};

type Result<T> = std::result::Result<T, ExecutionError>;

// The library's CEL type names, as Kubernetes declares them (they appear
// in type errors).
/// `authorizer`, and what `serviceAccount` returns.
pub const AUTHORIZER_TYPE: &str = "kubernetes.authorization.Authorizer";
/// What `path` returns.
pub const PATH_CHECK_TYPE: &str = "kubernetes.authorization.PathCheck";
/// What `group` returns.
pub const GROUP_CHECK_TYPE: &str = "kubernetes.authorization.GroupCheck";
/// What `resource` and its refinements return.
pub const RESOURCE_CHECK_TYPE: &str = "kubernetes.authorization.ResourceCheck";
/// What `check` returns.
pub const DECISION_TYPE: &str = "kubernetes.authorization.Decision";

/// Who writes, and the chain that says what they may do: what a rule's
/// `authorizer` checks with. `user` is `None` for the API server's own
/// writes, which check as `system:apiserver`.
#[derive(Clone, Copy)]
pub struct Requester<'a> {
    pub user: Option<&'a Arc<UserInfo>>,
    pub authorizers: &'a Arc<Authorizers>,
}

/// What an admission request addresses, for `authorizer.requestResource`.
pub struct Addressed<'a> {
    pub group: &'a str,
    pub resource: &'a str,
    pub subresource: &'a str,
    pub namespace: &'a str,
    pub name: &'a str,
}

/// The `authorizer` variable of an admission policy and its
/// `requestResource` field, bound under two names: a qualified name
/// resolves to the longest declared variable, so
/// `authorizer.requestResource.check('get')` finds the second.
pub struct AuthorizerBinding {
    pub authorizer: Value,
    pub request_resource: Value,
}

impl Requester<'_> {
    fn principal(&self) -> Principal {
        static API_SERVER: LazyLock<Arc<UserInfo>> =
            LazyLock::new(|| Arc::new(api_server().clone()));
        Principal {
            user: Arc::clone(self.user.unwrap_or(&API_SERVER)),
            authorizers: Arc::clone(self.authorizers),
        }
    }

    /// The `authorizer` variable's value.
    #[must_use]
    pub fn value(&self) -> Value {
        Value::Opaque(Arc::new(AuthorizerVal(self.principal())))
    }

    /// `authorizer` and `authorizer.requestResource` (a ResourceCheck of
    /// what the request addresses) for an admission policy.
    #[must_use]
    pub fn binding(&self, addressed: &Addressed<'_>) -> AuthorizerBinding {
        AuthorizerBinding {
            authorizer: self.value(),
            request_resource: opaque(ResourceCheck {
                principal: self.principal(),
                group: addressed.group.to_string(),
                resource: addressed.resource.to_string(),
                subresource: addressed.subresource.to_string(),
                namespace: addressed.namespace.to_string(),
                name: addressed.name.to_string(),
            }),
        }
    }
}

/// A user and the chain to ask about them.
#[derive(Clone)]
struct Principal {
    user: Arc<UserInfo>,
    authorizers: Arc<Authorizers>,
}

impl PartialEq for Principal {
    fn eq(&self, other: &Principal) -> bool {
        self.user == other.user && Arc::ptr_eq(&self.authorizers, &other.authorizers)
    }
}

impl Eq for Principal {}

impl fmt::Debug for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Principal")
            .field("user", &self.user.name)
            .finish_non_exhaustive()
    }
}

impl Principal {
    /// Asks the chain; the answer as a Decision value.
    fn check(&self, info: &RequestInfo) -> Value {
        let verdict = decide_now(
            &self.authorizers,
            &Attributes {
                user: &self.user,
                info,
            },
        );
        Value::Opaque(Arc::new(DecisionVal(verdict)))
    }
}

#[derive(Debug, PartialEq, Eq)]
struct AuthorizerVal(Principal);

#[derive(Debug, PartialEq, Eq)]
struct PathCheck {
    principal: Principal,
    path: String,
}

#[derive(Debug, PartialEq, Eq)]
struct GroupCheck {
    principal: Principal,
    group: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct ResourceCheck {
    principal: Principal,
    group: String,
    resource: String,
    subresource: String,
    namespace: String,
    name: String,
}

#[derive(Debug, PartialEq, Eq)]
struct DecisionVal(Verdict);

impl Opaque for AuthorizerVal {
    fn runtime_type_name(&self) -> &'static str {
        AUTHORIZER_TYPE
    }
}

impl Opaque for PathCheck {
    fn runtime_type_name(&self) -> &'static str {
        PATH_CHECK_TYPE
    }
}

impl Opaque for GroupCheck {
    fn runtime_type_name(&self) -> &'static str {
        GROUP_CHECK_TYPE
    }
}

impl Opaque for ResourceCheck {
    fn runtime_type_name(&self) -> &'static str {
        RESOURCE_CHECK_TYPE
    }
}

impl Opaque for DecisionVal {
    fn runtime_type_name(&self) -> &'static str {
        DECISION_TYPE
    }
}

/// Adds the library's functions to `ctx` (only evaluations that bind the
/// `authorizer` variable need them).
pub fn register(ctx: &mut Context<'_, '_>) {
    // `add_function` only fails for names the standard environment
    // declares as overloads; none of these is one (a test holds to it).
    let _ = ctx.add_function("path", path);
    let _ = ctx.add_function("group", group);
    let _ = ctx.add_function("serviceAccount", service_account);
    let _ = ctx.add_function("resource", resource);
    let _ = ctx.add_function("subresource", subresource);
    let _ = ctx.add_function("namespace", namespace);
    let _ = ctx.add_function("name", name);
    let _ = ctx.add_function("check", check);
    let _ = ctx.add_function("allowed", allowed);
    let _ = ctx.add_function("reason", reason);
    let _ = ctx.add_function("errored", errored);
    let _ = ctx.add_function("error", error);
}

/// The receiver as one of the library's values, or CEL's "no matching
/// overload" when it is something else.
fn receiver<'v, T: Opaque>(ftx: &FunctionContext, this: &'v Value) -> Result<&'v T> {
    let found = match this {
        Value::Opaque(o) => o.downcast_ref::<T>(),
        _ => None,
    };
    found.ok_or_else(|| {
        let ty = match this {
            Value::Opaque(o) => o.runtime_type_name().to_owned(),
            other => other.type_of().to_string(),
        };
        ftx.error(format!(
            "found no matching overload for '{}' applied to '{ty}'",
            ftx.name
        ))
    })
}

fn opaque(v: impl Opaque) -> Value {
    Value::Opaque(Arc::new(v))
}

fn path(ftx: &FunctionContext, This(this): This<Value>, path: Arc<String>) -> Result<Value> {
    let authorizer = receiver::<AuthorizerVal>(ftx, &this)?;
    if path.trim().is_empty() {
        return Err(ftx.error("path must not be empty"));
    }
    Ok(opaque(PathCheck {
        principal: authorizer.0.clone(),
        path: path.to_string(),
    }))
}

fn group(ftx: &FunctionContext, This(this): This<Value>, group: Arc<String>) -> Result<Value> {
    let authorizer = receiver::<AuthorizerVal>(ftx, &this)?;
    Ok(opaque(GroupCheck {
        principal: authorizer.0.clone(),
        group: group.to_string(),
    }))
}

/// An authorizer checking as the service account `namespace/name`, with
/// the groups its tokens carry.
fn service_account(
    ftx: &FunctionContext,
    This(this): This<Value>,
    namespace: Arc<String>,
    name: Arc<String>,
) -> Result<Value> {
    let authorizer = receiver::<AuthorizerVal>(ftx, &this)?;
    if name_problem(&name, NameRule::Subdomain).is_some() {
        return Err(ftx.error("Invalid service account name"));
    }
    if name_problem(&namespace, NameRule::Label).is_some() {
        return Err(ftx.error("Invalid service account namespace"));
    }
    let user = UserInfo::new(
        &format!("system:serviceaccount:{namespace}:{name}"),
        &[
            "system:serviceaccounts",
            &format!("system:serviceaccounts:{namespace}"),
        ],
    );
    Ok(opaque(AuthorizerVal(Principal {
        user: Arc::new(user),
        authorizers: Arc::clone(&authorizer.0.authorizers),
    })))
}

fn resource(
    ftx: &FunctionContext,
    This(this): This<Value>,
    resource: Arc<String>,
) -> Result<Value> {
    let group = receiver::<GroupCheck>(ftx, &this)?;
    if resource.trim().is_empty() {
        return Err(ftx.error("resource must not be empty"));
    }
    Ok(opaque(ResourceCheck {
        principal: group.principal.clone(),
        group: group.group.clone(),
        resource: resource.to_string(),
        subresource: String::new(),
        namespace: String::new(),
        name: String::new(),
    }))
}

/// A copy of the receiving ResourceCheck with one field changed.
fn refine(
    ftx: &FunctionContext,
    this: &Value,
    set: impl FnOnce(&mut ResourceCheck),
) -> Result<Value> {
    let mut check = receiver::<ResourceCheck>(ftx, this)?.clone();
    set(&mut check);
    Ok(opaque(check))
}

fn subresource(ftx: &FunctionContext, This(this): This<Value>, s: Arc<String>) -> Result<Value> {
    refine(ftx, &this, |c| c.subresource = s.to_string())
}

fn namespace(ftx: &FunctionContext, This(this): This<Value>, s: Arc<String>) -> Result<Value> {
    refine(ftx, &this, |c| c.namespace = s.to_string())
}

fn name(ftx: &FunctionContext, This(this): This<Value>, s: Arc<String>) -> Result<Value> {
    refine(ftx, &this, |c| c.name = s.to_string())
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_owned())
}

/// `PathCheck.check(httpVerb)` and `ResourceCheck.check(apiVerb)`: the
/// chain's decision, asked as a request of any API version would be.
fn check(ftx: &FunctionContext, This(this): This<Value>, verb: Arc<String>) -> Result<Value> {
    let verb = verb.to_string().into();
    if let Ok(p) = receiver::<PathCheck>(ftx, &this) {
        let info = RequestInfo {
            verb,
            path: p.path.clone(),
            resource: None,
        };
        return Ok(p.principal.check(&info));
    }
    let r = receiver::<ResourceCheck>(ftx, &this)?;
    let info = RequestInfo {
        verb,
        path: String::new(),
        resource: Some(ResourceInfo {
            group: r.group.clone(),
            version: "*".into(),
            namespace: non_empty(&r.namespace),
            resource: r.resource.clone(),
            name: non_empty(&r.name),
            subresource: non_empty(&r.subresource),
            ..ResourceInfo::default()
        }),
    };
    Ok(r.principal.check(&info))
}

fn decision<'v>(ftx: &FunctionContext, this: &'v Value) -> Result<&'v Verdict> {
    receiver::<DecisionVal>(ftx, this).map(|d| &d.0)
}

/// `Decision.allowed()`: the chain allowed it (no opinion is not allowed).
fn allowed(ftx: &FunctionContext, This(this): This<Value>) -> Result<Value> {
    Ok(Value::Bool(decision(ftx, &this)?.allowed))
}

fn reason(ftx: &FunctionContext, This(this): This<Value>) -> Result<Value> {
    Ok(Value::String(Arc::new(
        decision(ftx, &this)?.reason.clone(),
    )))
}

/// `Decision.errored()`: an authorizer failed while deciding.
fn errored(ftx: &FunctionContext, This(this): This<Value>) -> Result<Value> {
    Ok(Value::Bool(
        !decision(ftx, &this)?.evaluation_error.is_empty(),
    ))
}

fn error(ftx: &FunctionContext, This(this): This<Value>) -> Result<Value> {
    Ok(Value::String(Arc::new(
        decision(ftx, &this)?.evaluation_error.clone(),
    )))
}
