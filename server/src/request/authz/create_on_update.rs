//! A PUT or an apply that finds its object missing creates it; Kubernetes
//! then authorizes the request as a create as well, so `update` or
//! `patch` alone never creates objects (spec 4.6, rule 11). Runs as a
//! validating admission plugin on creates the store marks as such.

use std::sync::Arc;

use serde_json::Value;

use crate::api::error::ApiError;
use crate::request::admission::{Attributes, Operation, Options, Pins, ValidatingAdmission};
use crate::request::authz::{self, Authorizers, forbidden};
use crate::request::info::RequestInfo;
use crate::util::maybe_async::MaybeAsync;

pub struct CreateOnUpdate {
    authorizers: Arc<Authorizers>,
}

impl CreateOnUpdate {
    #[must_use]
    pub fn new(authorizers: Arc<Authorizers>) -> CreateOnUpdate {
        CreateOnUpdate { authorizers }
    }

    async fn check(&self, attrs: &Attributes<'_>) -> Result<(), ApiError> {
        let info = RequestInfo::resource_request(
            "create",
            &attrs.kind.group,
            &attrs.kind.resource,
            attrs.namespace.unwrap_or_default(),
            attrs.name,
        );
        let asked = authz::Attributes {
            user: attrs.user,
            info: &info,
        };
        let verdict = self.authorizers.decide(&asked).await;
        if verdict.allowed {
            Ok(())
        } else {
            Err(forbidden(&asked, &verdict.reason))
        }
    }
}

impl ValidatingAdmission for CreateOnUpdate {
    fn name(&self) -> &'static str {
        "CreateOnUpdateAuthorization"
    }

    fn handles(&self, operation: Operation) -> bool {
        operation == Operation::Create
    }

    fn validate<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
        _object: Option<&'a Value>,
        _pins: &'a mut Pins,
    ) -> MaybeAsync<'a, Result<(), ApiError>> {
        match attrs.options {
            Options::Write(opts) if opts.create_on_update && opts.user.is_some() => {
                MaybeAsync::pending(self.check(attrs))
            }
            _ => MaybeAsync::Ready(Ok(())),
        }
    }
}
