//! The one place a write records field ownership: after the new object is
//! known and before it is stored, every create, update, patch and
//! controller edit updates `metadata.managedFields` here.

use std::time::SystemTime;

use serde_json::Value;

use crate::api::kind::{KindSpec, Origin};
use crate::api::managed::{self, Diff, Managed, Scope, Writer};
use crate::api::object;
use crate::api::store::{Subresource, WriteOptions};
use crate::util::time;

/// The manager of a write that names none (no `fieldManager`, no
/// User-Agent).
const UNKNOWN_MANAGER: &str = "unknown";

/// The identity a write records under, owned (see `Writer`).
pub struct WriterInfo {
    manager: String,
    api_version: String,
    subresource: &'static str,
    time: String,
}

impl WriterInfo {
    #[must_use]
    pub fn new(kind: &KindSpec, opts: &WriteOptions) -> WriterInfo {
        WriterInfo {
            manager: opts
                .field_manager
                .clone()
                .unwrap_or_else(|| UNKNOWN_MANAGER.into()),
            api_version: kind.api_version(),
            subresource: match opts.subresource {
                None => "",
                Some(Subresource::Status) => "status",
                Some(Subresource::Finalize) => "finalize",
                Some(Subresource::Scale) => "scale",
                Some(Subresource::Binding) => "binding",
                Some(Subresource::Approval) => "approval",
            },
            time: time::rfc3339(SystemTime::now()),
        }
    }

    #[must_use]
    pub fn writer(&self) -> Writer<'_> {
        Writer {
            manager: &self.manager,
            api_version: &self.api_version,
            subresource: self.subresource,
            time: &self.time,
        }
    }
}

/// What part of `kind`'s objects a write through `subresource` owns.
#[must_use]
pub fn scope(kind: &KindSpec, subresource: Option<Subresource>) -> Scope {
    let excluded: &'static [&'static str] = match subresource {
        Some(Subresource::Status | Subresource::Approval) => &["spec"],
        Some(Subresource::Finalize | Subresource::Scale | Subresource::Binding) => &[],
        None if kind.subresources.status => &["status"],
        None => &[],
    };
    Scope {
        excluded,
        structs_owned: kind.origin != Origin::BuiltIn,
    }
}

/// Records an Update from `old` (`None`: a create) to `new` in `new`'s
/// managedFields. Clients may write managedFields themselves (rule 15); a
/// list with one empty entry resets them first (rule 14); an empty list
/// keeps the stored ones. An update of an object without managedFields
/// stays untracked, as in Kubernetes.
pub fn track_update(kind: &KindSpec, old: Option<&Value>, new: &mut Value, opts: &WriteOptions) {
    let written = new.pointer("/metadata/managedFields");
    let stored = || Managed::decode(old.and_then(|o| o.pointer("/metadata/managedFields")));
    let reset = opts.subresource.is_none() && Managed::is_reset(written);
    let mut managed = if reset {
        Managed::default()
    } else if opts.subresource.is_some() {
        stored().unwrap_or_default()
    } else {
        match Managed::decode(written) {
            Ok(m) if !m.is_empty() => m,
            _ => stored().unwrap_or_default(),
        }
    };
    if managed.is_empty() && old.is_some() && !reset {
        object::metadata_mut(new).shift_remove("managedFields");
        return;
    }
    let scope = scope(kind, opts.subresource);
    let diff = match old {
        Some(old) => managed::diff(&kind.schema, old, new, scope),
        None => Diff {
            added: managed::created(&kind.schema, new, scope),
            ..Diff::default()
        },
    };
    let info = WriterInfo::new(kind, opts);
    managed::record_update(&mut managed, diff, &info.writer());
    store_entries(new, &managed);
}

/// Writes `managed` into the object (removing the field when empty).
pub fn store_entries(obj: &mut Value, managed: &Managed) {
    let meta = object::metadata_mut(obj);
    if managed.is_empty() {
        meta.shift_remove("managedFields");
    } else {
        meta.insert("managedFields".into(), managed.encode());
    }
}
