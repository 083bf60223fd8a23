//! The API errors that name a kind: not found, already exists, conflict,
//! invalid.

use super::KindSpec;
use crate::api::error::{ApiError, Cause};

impl KindSpec {
    #[must_use]
    pub fn not_found(&self, name: &str) -> ApiError {
        ApiError::NotFound {
            group: self.group.clone(),
            resource: self.resource.clone(),
            name: name.into(),
        }
    }

    #[must_use]
    pub fn already_exists(&self, name: &str) -> ApiError {
        ApiError::AlreadyExists {
            group: self.group.clone(),
            resource: self.resource.clone(),
            name: name.into(),
        }
    }

    #[must_use]
    pub fn conflict(&self, name: &str, cause: &str) -> ApiError {
        ApiError::Conflict {
            group: self.group.clone(),
            resource: self.qualified_resource(),
            name: name.into(),
            cause: cause.into(),
        }
    }

    /// 422 Invalid (or 400 with `code`) naming this kind.
    #[must_use]
    pub fn invalid(&self, name: &str, causes: Vec<Cause>, code: u16) -> ApiError {
        ApiError::Invalid {
            kind: self.kind.clone(),
            group: self.group.clone(),
            name: name.into(),
            causes,
            code,
        }
    }
}
