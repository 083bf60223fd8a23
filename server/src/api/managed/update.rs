//! Recording an Update (create, PUT, merge/JSON/strategic patch, controller
//! edits): never a conflict; changed fields move to the writer and removed
//! fields leave every entry.

use super::Writer;
use super::entries::{Managed, Operation};
use super::walk::Diff;

/// Records `diff` as written by `writer`.
pub fn record_update(managed: &mut Managed, diff: Diff, writer: &Writer<'_>) {
    let Diff {
        added: mut changed,
        modified,
        removed,
    } = diff;
    changed.union_owned(modified);
    for entry in &mut managed.entries {
        if !changed.is_empty() {
            entry.fields.subtract(&changed);
        }
        if !removed.is_empty() {
            entry.fields.subtract(&removed);
        }
    }
    if !changed.is_empty() {
        let entry = managed.entry_mut(
            writer.manager,
            Operation::Update,
            writer.api_version,
            writer.subresource,
        );
        entry.fields.union_owned(changed);
        entry.time = Some(writer.time.to_owned());
    }
    managed.drop_empty();
    managed.cap_updates();
}
