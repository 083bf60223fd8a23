//! The mutating webhooks' calls: in order, each seeing the object the
//! last one left, their patches applied (taken back to the write's version
//! when a webhook was called through an equivalent one), then once more for
//! those with `reinvocationPolicy: IfNeeded` that a later webhook changed
//! the object after; each call noted in the audit event.

use std::sync::Arc;

use serde_json::Value;

use super::matching::Matched;
use super::{Webhooks, annotations, review};
use crate::api::error::ApiError;
use crate::request::admission::Attributes;

impl Webhooks {
    /// The mutating webhooks, in order, each seeing the last one's object.
    pub(super) async fn mutate(
        &self,
        hooks: Vec<Matched>,
        attrs: &Attributes<'_>,
        object: &mut Value,
    ) -> Result<(), ApiError> {
        let mut changed_after: Vec<bool> = vec![false; hooks.len()];
        for (i, matched) in hooks.iter().enumerate() {
            if self.mutate_once(matched, 0, attrs, object).await? {
                changed_after[..i].iter_mut().for_each(|c| *c = true);
            }
        }
        for (matched, changed) in hooks.iter().zip(changed_after) {
            if matched.hook.reinvoke && changed {
                self.mutate_once(matched, 1, attrs, object).await?;
            }
        }
        Ok(())
    }

    /// One call of a mutating webhook in `round` (1: a reinvocation);
    /// whether its patch changed the object.
    async fn mutate_once(
        &self,
        matched: &Matched,
        round: usize,
        attrs: &Attributes<'_>,
        object: &mut Value,
    ) -> Result<bool, ApiError> {
        let hook = &matched.hook;
        let (seen_object, seen_old) = review::versions(matched, attrs, Some(object));
        let seen_object = seen_object.unwrap_or_default();
        let seen = review::Seen {
            kind: matched.via.as_deref().unwrap_or(attrs.kind),
            object: Some(&seen_object),
            old: seen_old.as_deref(),
        };
        let call = match self.review(hook, attrs, &seen).await {
            Ok(Some(call)) => call,
            Ok(None) => return Ok(false),
            Err(e) => {
                annotations::mutation(round, matched, false);
                return Err(e);
            }
        };
        let answer = Self::call(Arc::clone(hook), call).await;
        let Ok(Some(answer)) = answer else {
            annotations::mutation(round, matched, false);
            return answer.map(|_| false);
        };
        answer.tell(&hook.name);
        let Some(patch) = answer.patch else {
            annotations::mutation(round, matched, false);
            return Ok(false);
        };
        annotations::patch(round, matched, &patch);
        let patched = crate::api::patch::json(&seen_object, &patch).map_err(|e| {
            annotations::mutation(round, matched, false);
            ApiError::Internal(format!(
                "failed calling webhook {:?}: the patch does not apply: {e}",
                hook.name
            ))
        })?;
        let changed = patched != *seen_object;
        annotations::mutation(round, matched, changed);
        if changed {
            *object = match &matched.via {
                Some(via) => review::convert(via, attrs.kind, &patched),
                None => patched,
            };
        }
        Ok(changed)
    }
}
