//! PATCH with a merge, JSON or strategic merge patch, through the update
//! loop so a patch is re-applied to the latest object after a lost race.

use std::sync::Arc;

use crate::api::decode::Decoded;
use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::object;
use crate::api::store::{Store, WriteOptions};

use super::write::{Mutation, WriteOutcome};

impl Store {
    /// PATCH with a merge, JSON or strategic merge patch, re-applied to the latest object if a
    /// concurrent write wins the race.
    pub async fn patch(
        &self,
        kind: &Arc<KindSpec>,
        ns: Option<&str>,
        name: &str,
        patch_type: crate::api::patch::PatchType,
        body: &[u8],
        opts: &WriteOptions,
    ) -> Result<WriteOutcome, ApiError> {
        use crate::api::patch::{self, PatchType};
        let validation = opts.field_validation;
        if patch_type == PatchType::Strategic {
            patch::check_strategic_supported(kind)?;
        }
        self.guaranteed_update(kind, ns, name, opts, |current| {
            let (patched, duplicates) = match patch_type {
                PatchType::Merge => patch::merge(current, body)?,
                PatchType::Json => (patch::json(current, body)?, Vec::new()),
                PatchType::Strategic => patch::strategic(&kind.schema, current, body)?,
                PatchType::Apply => {
                    return Err(ApiError::UnsupportedMediaType(vec![
                        "application/json-patch+json".into(),
                        "application/merge-patch+json".into(),
                    ]));
                }
            };
            object::check_url_names(&patched, name, ns)?;
            let pinned = object::meta_str(&patched, "resourceVersion").map(str::to_string);
            let current_rv = object::meta_str(current, "resourceVersion").map(str::to_string);
            let (object, warnings) = Store::decode_object(
                kind,
                Decoded {
                    value: patched,
                    duplicates,
                },
                validation,
            )?;
            // A patch that sets metadata.resourceVersion to another value pins it.
            let precondition = if pinned != current_rv {
                super::parse_rv(pinned.as_deref())?
            } else {
                None
            };
            Ok(Mutation {
                object,
                precondition,
                warnings,
                managed: None,
            })
        })
        .await
    }
}
