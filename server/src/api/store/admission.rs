//! Where the store's writes meet the admission chain. Each write runs,
//! in order: decoding and defaulting, mutating admission, the kind's
//! preparation and validation, validating admission, then the guarded
//! commit — whose guards include what validating admission read, so a
//! lost race admits again. Create: `create_tracked`; update, patch, apply
//! and the `/status`, `/scale`, `/finalize` writes: `guaranteed_update`;
//! delete, deletecollection and `/eviction`: `delete` (mutating admission
//! once, validating admission against each stored object it reads).

use serde_json::Value;

use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::object;
use crate::api::store::{Store, WriteOptions};
use crate::request::admission::{Attributes, Operation};

impl Store {
    /// Mutating admission of an object about to be created. The object is
    /// lent out mutably, so its name is copied for the attributes — only
    /// when some plugin will look.
    pub(super) async fn admit_new(
        &self,
        kind: &KindSpec,
        ns: Option<&str>,
        opts: &WriteOptions,
        obj: &mut Value,
    ) -> Result<(), ApiError> {
        if !self.admission.mutates(Operation::Create) {
            return Ok(());
        }
        let name = object::name(obj).to_string();
        self.admission
            .admit(&Attributes::create(kind, ns, &name, opts), Some(obj))
            .await
    }
}
