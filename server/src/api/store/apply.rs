//! PATCH with `application/apply-patch+yaml`: server-side apply through the
//! same update loop as every write; a missing object is created.

use std::sync::Arc;

use serde_json::Value;

use crate::api::decode::Decoded;
use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::managed::{self, Managed};
use crate::api::object;
use crate::api::store::ownership::{WriterInfo, scope};
use crate::api::store::write::Mutation;
use crate::api::store::{Store, WriteOptions, WriteOutcome};

impl Store {
    /// Applies a configuration (the decoded body) as `opts.field_manager`;
    /// `force` takes conflicting fields from their managers.
    pub async fn apply(
        &self,
        kind: &Arc<KindSpec>,
        ns: Option<&str>,
        name: &str,
        body: Decoded,
        opts: &WriteOptions,
        force: bool,
    ) -> Result<WriteOutcome, ApiError> {
        if body
            .value
            .get("metadata")
            .and_then(|m| m.get("managedFields"))
            .is_some_and(|m| !m.is_null())
        {
            return Err(ApiError::BadRequest(
                "metadata.managedFields must be nil".into(),
            ));
        }
        // The configuration names its version and kind, as Kubernetes
        // requires of apply patches.
        let version = body
            .value
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if version != kind.api_version() {
            return Err(ApiError::BadRequest(format!(
                "Incorrect version specified in apply patch. Specified patch version: {version}, expected: {}",
                kind.api_version()
            )));
        }
        if body
            .value
            .get("kind")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            return Err(ApiError::BadRequest(format!(
                "failed to create typed patch object ({}): kind must be set in an apply patch",
                kind.api_version()
            )));
        }
        let (mut config, warnings) = Store::check_fields(kind, body, opts.field_validation)?;
        Store::check_present_fields(kind, &config)?;
        object::name_from_url(&mut config, name)?;
        Store::place_in_namespace(kind, ns, &mut config)?;
        crate::api::schema::normalize(&kind.schema, &mut config);
        let precondition = super::parse_rv(object::meta_str(&config, "resourceVersion"))?;
        let uid = object::meta_str(&config, "uid").map(str::to_owned);
        let info = WriterInfo::new(kind, opts);
        let scope = scope(kind, opts.subresource);
        // The configuration merged into the live object (or into nothing),
        // with the fields' managers updated.
        let merge = |live: Option<&Value>, managed: &mut Managed| {
            managed::apply(
                &kind.schema,
                live,
                &config,
                managed,
                &info.writer(),
                force,
                scope,
            )
            .map_err(managed::conflict_error)
        };
        loop {
            let result = self
                .guaranteed_update(kind, ns, name, opts, |live| {
                    if let Some(uid) = uid.as_deref().filter(|u| !u.is_empty()) {
                        let live_uid = object::meta_str(live, "uid").unwrap_or_default();
                        if uid != live_uid {
                            return Err(kind.conflict(
                                name,
                                &format!(
                                    "Precondition failed: UID in precondition: {uid}, UID in object meta: {live_uid}"
                                ),
                            ));
                        }
                    }
                    let mut managed = Managed::decode(live.pointer("/metadata/managedFields"))
                        .unwrap_or_default();
                    let merged = merge(Some(live), &mut managed)?;
                    Ok(Mutation {
                        object: Store::default_and_validate(kind, merged)?,
                        precondition,
                        warnings: warnings.clone(),
                        managed: Some(managed),
                    })
                })
                .await;
            match result {
                Err(ApiError::NotFound { .. }) if opts.subresource.is_none() => {}
                other => return other,
            }
            let mut managed = Managed::default();
            let created = merge(None, &mut managed)?;
            let created = Store::default_and_validate(kind, without_uid(created))?;
            match self
                .create_tracked(
                    kind,
                    ns,
                    created,
                    warnings.clone(),
                    &opts.creating_on_update(),
                    Some(managed),
                )
                .await
            {
                // Another writer created it since it was found missing: this
                // apply merges into theirs instead.
                Err(ApiError::AlreadyExists { .. }) => {}
                created => return created,
            }
        }
    }
}

/// A created object's uid is the server's; a configuration's is a
/// precondition only.
fn without_uid(mut obj: Value) -> Value {
    object::metadata_mut(&mut obj).shift_remove("uid");
    obj
}
