//! Query parameters: parsing and the checks every verb shares (dryRun,
//! fieldManager, fieldValidation, selectors, paging, delete options).

use std::collections::HashMap;

use crate::api::error::{ApiError, Cause};
use crate::api::kind::{KindSpec, Origin};
use crate::api::patch::PatchType;
use crate::api::selectors::{FieldSelector, LabelSelector, ShardSelector};
use crate::api::store::{
    DeleteOptions, FieldValidation, ListOptions, ResourceVersionMatch, WriteOptions,
};
use crate::config::FeatureGates;

/// Decoded query parameters (a name may repeat).
#[derive(Default, Debug)]
pub struct Query {
    values: HashMap<String, Vec<String>>,
}

fn percent_decode(s: &str) -> String {
    let hex = |b: u8| {
        char::from(b)
            .to_digit(16)
            .and_then(|d| u8::try_from(d).ok())
    };
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'+', ..) => out.push(b' '),
            (b'%', Some(hi), Some(lo)) => {
                out.push(hi * 16 + lo);
                i += 2;
            }
            (b, ..) => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl Query {
    #[must_use]
    pub fn parse(raw: Option<&str>) -> Query {
        let mut values: HashMap<String, Vec<String>> = HashMap::new();
        for pair in raw.unwrap_or_default().split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            values
                .entry(percent_decode(k))
                .or_default()
                .push(percent_decode(v));
        }
        Query { values }
    }

    #[must_use]
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values
            .get(name)
            .and_then(|v| v.first())
            .map(String::as_str)
    }

    #[must_use]
    pub fn all(&self, name: &str) -> &[String] {
        self.values.get(name).map_or(&[], Vec::as_slice)
    }

    #[must_use]
    pub fn has(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }

    /// A boolean parameter (`true`/`false`/`1`/`0`; bare means true).
    pub fn bool(&self, name: &str) -> Result<Option<bool>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            Some("" | "true" | "True" | "1") => Ok(Some(true)),
            Some("false" | "False" | "0") => Ok(Some(false)),
            Some(v) => Err(ApiError::BadRequest(format!(
                "{name}: Invalid value: {v:?}: must be true or false"
            ))),
        }
    }

    /// An integer parameter.
    pub fn int(&self, name: &str) -> Result<Option<i64>, ApiError> {
        self.get(name)
            .filter(|v| !v.is_empty())
            .map(|v| {
                v.parse::<i64>().map_err(|_| {
                    ApiError::BadRequest(format!(
                        "{name}: Invalid value: {v:?}: must be an integer"
                    ))
                })
            })
            .transpose()
    }

    /// `dryRun`: bare or `All`; anything else is refused.
    pub fn dry_run(&self) -> Result<bool, ApiError> {
        let values = self.all("dryRun");
        for v in values {
            if !(v.is_empty() || v == "All") {
                return Err(ApiError::BadRequest(format!(
                    "dryRun: Unsupported value: {v:?}: supported values: \"All\""
                )));
            }
        }
        Ok(!values.is_empty())
    }

    /// Options shared by create, update and patch; `options` names the
    /// options object their errors speak of.
    pub fn write_options(
        &self,
        user_agent: Option<&str>,
        options: &OptionsKind<'_>,
    ) -> Result<WriteOptions, ApiError> {
        let field_validation = match self.get("fieldValidation") {
            None | Some("") | Some("Warn") => FieldValidation::Warn,
            Some("Ignore") => FieldValidation::Ignore,
            Some("Strict") => FieldValidation::Strict,
            Some(v) => {
                return Err(ApiError::BadRequest(format!(
                    "fieldValidation: Unsupported value: {v:?}: supported values: \"Ignore\", \"Strict\", \"Warn\""
                )));
            }
        };
        let field_manager = match self.get("fieldManager") {
            Some(m) => {
                if m.chars().count() >= 128 {
                    return Err(options.invalid(Cause::new(
                        "FieldValueTooLong",
                        "fieldManager",
                        "Too long: may not be more than 128 bytes",
                    )));
                }
                if m.chars().any(|c| c.is_control()) {
                    return Err(options.invalid(Cause::invalid(
                        "fieldManager",
                        m,
                        "must only contain printable characters",
                    )));
                }
                Some(m.to_string())
            }
            None => user_agent.map(manager_from_user_agent),
        };
        Ok(WriteOptions {
            dry_run: self.dry_run()?,
            field_validation,
            field_manager,
            system: false,
            subresource: None,
            user: None,
            create_on_update: false,
        })
    }

    /// `force`, which only apply patches take (`options` names PatchOptions).
    pub fn force(
        &self,
        patch_type: PatchType,
        options: &OptionsKind<'_>,
    ) -> Result<bool, ApiError> {
        let force = self.bool("force")?;
        if force.is_some() && patch_type != PatchType::Apply {
            return Err(options.invalid(Cause::forbidden(
                "force",
                "may not be specified for non-apply patch",
            )));
        }
        Ok(force.unwrap_or(false))
    }

    /// Options of a list (and of delete-collection).
    pub fn list_options(
        &self,
        kind: &KindSpec,
        gates: &FeatureGates,
    ) -> Result<ListOptions, ApiError> {
        let shard = match self.get("shardSelector").filter(|s| !s.trim().is_empty()) {
            Some(_) if !gates.enabled("ShardedListAndWatch") => {
                return Err(ApiError::BadRequest(
                    "shardSelector: Forbidden: shardSelector requires the ShardedListAndWatch feature gate, which is disabled".into(),
                ));
            }
            Some(s) => Some(ShardSelector::parse(s).map_err(ApiError::BadRequest)?),
            None => None,
        };
        let label = match self.get("labelSelector").filter(|s| !s.trim().is_empty()) {
            Some(s) => Some(LabelSelector::parse(s).map_err(ApiError::BadRequest)?),
            None => None,
        };
        let field = match self.get("fieldSelector").filter(|s| !s.trim().is_empty()) {
            Some(s) => {
                let f = FieldSelector::parse(s).map_err(ApiError::BadRequest)?;
                if let Some(bad) = f.fields().into_iter().find(|name| !kind.selectable(name)) {
                    return Err(ApiError::BadRequest(unknown_field_label(kind, bad)));
                }
                Some(f)
            }
            None => None,
        };
        let limit = match self.int("limit")? {
            Some(n) if n < 0 => {
                return Err(ApiError::BadRequest(format!(
                    "limit: Invalid value: {n}: must be non-negative"
                )));
            }
            Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
            None => 0,
        };
        let rv_match = match self.get("resourceVersionMatch") {
            None | Some("") => None,
            Some("Exact") => Some(ResourceVersionMatch::Exact),
            Some("NotOlderThan") => Some(ResourceVersionMatch::NotOlderThan),
            Some(v) => {
                return Err(ApiError::BadRequest(format!(
                    "resourceVersionMatch: Unsupported value: {v:?}: supported values: \"Exact\", \"NotOlderThan\""
                )));
            }
        };
        // Watches read it; a list must still be given a whole number.
        self.int("timeoutSeconds")?;
        Ok(ListOptions {
            label,
            field,
            shard,
            limit,
            continue_token: self.get("continue").map(str::to_string),
            resource_version: self.get("resourceVersion").map(str::to_string),
            rv_match,
            streamed: false,
        })
    }

    /// The parameters only a watch takes, refused on a list or a
    /// delete-collection as Kubernetes' ListOptions validation does.
    pub fn check_not_watch_only(&self, meta_group: &str) -> Result<(), ApiError> {
        if self.has("sendInitialEvents") {
            self.bool("sendInitialEvents")?;
            return Err(ApiError::Invalid {
                kind: "ListOptions".into(),
                group: meta_group.into(),
                name: String::new(),
                causes: vec![Cause::forbidden(
                    "sendInitialEvents",
                    "sendInitialEvents is forbidden for list",
                )],
                code: 422,
            });
        }
        Ok(())
    }

    /// Delete options from the query (a body may add to them).
    pub fn delete_options(&self) -> Result<DeleteOptions, ApiError> {
        let unsafe_delete = self
            .bool("ignoreStoreReadErrorWithClusterBreakingPotential")?
            .unwrap_or(false);
        let propagation_policy = match self.get("propagationPolicy") {
            None | Some("") => None,
            Some(p @ ("Orphan" | "Background" | "Foreground")) => Some(p.to_string()),
            Some(p) => {
                return Err(ApiError::BadRequest(format!(
                    "propagationPolicy: Unsupported value: {p:?}: supported values: \"Foreground\", \"Background\", \"Orphan\""
                )));
            }
        };
        let orphan_dependents = self.bool("orphanDependents")?;
        if orphan_dependents.is_some() && propagation_policy.is_some() {
            return Err(ApiError::BadRequest(
                "propagationPolicy: Invalid value: orphanDependents and propagationPolicy cannot both be set".into(),
            ));
        }
        let grace_period_seconds = self.int("gracePeriodSeconds")?;
        Ok(DeleteOptions {
            dry_run: self.dry_run()?,
            precondition_uid: None,
            precondition_rv: None,
            grace_period_seconds,
            propagation_policy,
            orphan_dependents,
            unsafe_delete,
            user: None,
        })
    }
}

/// The options object of a write (`CreateOptions`, `UpdateOptions`,
/// `PatchOptions` in group `meta.<api domain>`), which Kubernetes names when
/// its parameters are invalid.
pub struct OptionsKind<'a> {
    pub kind: &'static str,
    pub group: &'a str,
}

impl OptionsKind<'_> {
    /// A bad option: Kubernetes' wording and causes, with the 400 the
    /// cairn contract (issue #5) asks for where Kubernetes answers 422.
    #[must_use]
    pub fn invalid(&self, cause: Cause) -> ApiError {
        ApiError::Invalid {
            kind: self.kind.into(),
            group: self.group.into(),
            name: String::new(),
            causes: vec![cause],
            code: 400,
        }
    }
}

/// The field manager Kubernetes derives from a User-Agent: the text before
/// the first `/`, printable characters only, at most 128 bytes.
#[must_use]
pub fn manager_from_user_agent(ua: &str) -> String {
    let prefix: String = ua
        .split('/')
        .next()
        .unwrap_or_default()
        .chars()
        .filter(|c| !c.is_control())
        .collect();
    let mut end = prefix.len().min(128);
    while !prefix.is_char_boundary(end) {
        end -= 1;
    }
    if prefix.is_empty() {
        "unknown".into()
    } else {
        prefix[..end].to_string()
    }
}

/// Kubernetes' words for a field selector on a field the kind does not
/// offer: built-in kinds with fields of their own (and custom resources)
/// name the field; the others fall back to the metadata-only conversion.
fn unknown_field_label(kind: &KindSpec, field: &str) -> String {
    if kind.selectable_fields.is_empty() && matches!(kind.origin, Origin::BuiltIn) {
        format!(
            "{field:?} is not a known field selector: only \"metadata.name\", \"metadata.namespace\""
        )
    } else {
        format!("field label not supported: {field}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_decodes() {
        let q = Query::parse(Some(
            "labelSelector=app%3Dweb%2Ctier+in+(a)&dryRun&dryRun=All&limit=5",
        ));
        assert_eq!(q.get("labelSelector"), Some("app=web,tier in (a)"));
        assert_eq!(q.all("dryRun").len(), 2);
        assert_eq!(q.dry_run().ok(), Some(true));
        assert_eq!(q.int("limit").ok().flatten(), Some(5));
        assert!(Query::parse(Some("dryRun=Yes")).dry_run().is_err());
        assert_eq!(
            manager_from_user_agent("kubectl/v1.32.0 (linux/amd64) kubernetes/abc"),
            "kubectl"
        );
        assert_eq!(manager_from_user_agent(""), "unknown");
    }
}
