//! Kinds that are never stored: a create of one is a question, answered by
//! a function (TokenReview, SelfSubjectReview; the access reviews later).
//! The generic handlers serve such a kind through this one seam: discovery
//! lists it with the verb `create` only, OpenAPI publishes its create, the
//! body is checked against its schema like any create, and the answer
//! (201) is whatever the function returns. Nothing reaches storage.

use std::sync::Arc;

use serde_json::Value;

use crate::api::error::ApiError;
use crate::api::store::Store;
use crate::request::user::UserInfo;
use crate::util::maybe_async::MaybeAsync;

/// Who asks, and where.
pub struct Question<'a> {
    /// The authenticated requester.
    pub user: &'a Arc<UserInfo>,
    /// The namespace of the URL, for namespaced kinds.
    pub namespace: Option<&'a str>,
    /// The store, for answers that write (a Binding assigns a pod);
    /// `None` where nothing is stored (unit tests of pure answerers).
    pub store: Option<&'a Store>,
    /// `dryRun=All`: an answer that writes changes nothing.
    pub dry_run: bool,
}

/// The function that answers creates of a kind.
pub trait Answerer: Send + Sync {
    /// The object to answer a create of `body` with (`body` already decoded
    /// and checked against the kind's apiVersion, kind and schema).
    fn answer<'a>(
        &'a self,
        question: Question<'a>,
        body: Value,
    ) -> MaybeAsync<'a, Result<Value, ApiError>>;
}

/// The verbs discovery lists for a kind.
#[must_use]
pub fn verbs(answered: bool) -> &'static [&'static str] {
    if answered {
        &["create"]
    } else {
        &[
            "create",
            "delete",
            "deletecollection",
            "get",
            "list",
            "patch",
            "update",
            "watch",
        ]
    }
}
