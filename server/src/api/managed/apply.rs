//! Server-side apply on one object: merge the configuration into the live
//! object, prune what the applier stopped sending, then settle ownership —
//! a changed field owned by another manager is a conflict unless forced.

use serde_json::Value;

use super::Writer;
use super::entries::{Managed, Operation};
use super::merge::merge;
use super::path::{PathElement, path_text};
use super::prune::prune;
use super::set::FieldSet;
use super::walk::{Scope, claimed_by, created, diff};
use crate::api::error::{ApiError, Cause};
use crate::api::schema::Schema;

/// A field another manager owns that the apply would change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// The manager as conflict messages name it (`"m" using v1`).
    pub manager: String,
    pub path: Vec<PathElement>,
}

/// Manager recorded for the fields of an object that had no managedFields
/// when it was first applied to.
pub const BEFORE_FIRST_APPLY: &str = "before-first-apply";

/// Applies `config` to `live` (`None`: the object does not exist yet).
/// Returns the new object; `managed` becomes its new entries.
pub fn apply(
    schema: &Schema,
    live: Option<&Value>,
    config: &Value,
    managed: &mut Managed,
    writer: &Writer<'_>,
    force: bool,
    scope: Scope,
) -> Result<Value, Vec<Conflict>> {
    let config_set = claimed_by(schema, config, scope);
    let Some(live) = live else {
        managed.entries.clear();
        let entry = managed.entry_mut(writer.manager, Operation::Apply, "", writer.subresource);
        writer.api_version.clone_into(&mut entry.api_version);
        entry.fields = config_set;
        entry.time = Some(writer.time.to_owned());
        managed.drop_empty();
        return Ok(config.clone());
    };
    if managed.is_empty() {
        let entry = managed.entry_mut(
            BEFORE_FIRST_APPLY,
            Operation::Update,
            writer.api_version,
            "",
        );
        entry.fields = created(
            schema,
            live,
            Scope {
                structs_owned: false,
                ..scope
            },
        );
        entry.time = Some(writer.time.to_owned());
        managed.drop_empty();
    }
    for entry in &mut managed.entries {
        super::reconcile::collapse_atomic(schema, &mut entry.fields);
    }
    let mut merged = merge(Some(schema), live.clone(), config);
    let entry = managed.entry_mut(writer.manager, Operation::Apply, "", writer.subresource);
    let last = std::mem::replace(&mut entry.fields, config_set);
    writer.api_version.clone_into(&mut entry.api_version);
    if !last.is_empty() {
        let mut owned = FieldSet::default();
        for e in &managed.entries {
            owned.union_with(&e.fields);
        }
        prune(schema, &mut merged, &last, &owned);
    }
    let changes = diff(schema, live, &merged, scope);
    let changed = changes.changed();
    let mut conflicts = Vec::new();
    for entry in &mut managed.entries {
        if entry.is(writer.manager, Operation::Apply, "", writer.subresource) {
            let moved = entry.fields != last || !changes.is_empty();
            if moved || entry.time.is_none() {
                entry.time = Some(writer.time.to_owned());
            }
            continue;
        }
        let taken = entry.fields.intersection(&changed);
        if !taken.is_empty() {
            if !force {
                let manager = entry.describe();
                conflicts.extend(taken.paths().into_iter().map(|path| Conflict {
                    manager: manager.clone(),
                    path,
                }));
                continue;
            }
            entry.fields.subtract(&taken);
        }
        if !changes.removed.is_empty() {
            entry.fields.subtract(&changes.removed);
        }
    }
    if !conflicts.is_empty() {
        return Err(conflicts);
    }
    managed.drop_empty();
    managed.cap_updates();
    Ok(merged)
}

/// The 409 for apply conflicts, worded as Kubernetes words it.
#[must_use]
pub fn conflict_error(mut conflicts: Vec<Conflict>) -> ApiError {
    conflicts.sort_by(|a, b| (&a.manager, &a.path).cmp(&(&b.manager, &b.path)));
    let causes = conflicts
        .iter()
        .map(|c| {
            Cause::new(
                "FieldManagerConflict",
                path_text(&c.path),
                format!("conflict with {}", c.manager),
            )
        })
        .collect();
    let message = if let [only] = conflicts.as_slice() {
        format!(
            "Apply failed with 1 conflict: conflict with {}: {}",
            only.manager,
            path_text(&only.path)
        )
    } else {
        let mut lines: Vec<String> = Vec::new();
        let mut current: Option<&str> = None;
        for c in &conflicts {
            if current != Some(c.manager.as_str()) {
                lines.push(format!("conflicts with {}:", c.manager));
                current = Some(&c.manager);
            }
            lines.push(format!("- {}", path_text(&c.path)));
        }
        format!(
            "Apply failed with {} conflicts: {}",
            conflicts.len(),
            lines.join("\n")
        )
    };
    ApiError::ApplyConflict { message, causes }
}
