//! The `Status` object an error is answered with: message, reason, code
//! and the details (name, group, kind, causes, retry hints) Kubernetes
//! gives each kind of failure.

use serde_json::{Value, json};

use super::error::{ApiError, Cause};

impl ApiError {
    /// The `Status` object for this error.
    #[must_use]
    pub fn status(&self) -> Value {
        fn causes_of(details: &mut serde_json::Map<String, Value>, causes: &[Cause]) {
            if !causes.is_empty() {
                let list: Vec<Value> = causes
                    .iter()
                    .map(|c| {
                        let mut cause = json!({"reason": c.reason, "message": c.message});
                        // Go's `omitempty`: a cause about no field has none.
                        if !c.field.is_empty() {
                            cause["field"] = json!(c.field);
                        }
                        cause
                    })
                    .collect();
                details.insert("causes".into(), Value::Array(list));
            }
        }
        fn named(
            details: &mut serde_json::Map<String, Value>,
            group: &str,
            kind: &str,
            name: &str,
        ) {
            if !name.is_empty() {
                details.insert("name".into(), json!(name));
            }
            if !group.is_empty() {
                details.insert("group".into(), json!(group));
            }
            if !kind.is_empty() {
                details.insert("kind".into(), json!(kind));
            }
        }
        let mut details = serde_json::Map::new();
        match self {
            ApiError::NotFound {
                group,
                resource,
                name,
            }
            | ApiError::AlreadyExists {
                group,
                resource,
                name,
            }
            | ApiError::Conflict {
                group,
                resource,
                name,
                ..
            } => named(&mut details, group, resource, name),
            ApiError::Invalid {
                kind,
                group,
                name,
                causes,
                ..
            } => {
                named(&mut details, group, kind, name);
                causes_of(&mut details, causes);
            }
            ApiError::Forbidden {
                group,
                resource,
                name,
                causes,
                ..
            } => {
                named(&mut details, group, resource, name);
                causes_of(&mut details, causes);
            }
            ApiError::PolicyDenied {
                group,
                resource,
                name,
                ..
            } => {
                named(&mut details, group, resource, name);
                let cause = json!({"message": self.to_string()});
                details.insert("causes".into(), json!([cause]));
            }
            ApiError::ApplyConflict { causes, .. } | ApiError::Refused { causes, .. } => {
                causes_of(&mut details, causes);
            }
            ApiError::Timeout {
                causes,
                retry_after,
                ..
            } => {
                causes_of(&mut details, causes);
                if let Some(s) = retry_after {
                    details.insert("retryAfterSeconds".into(), json!(s));
                }
            }
            ApiError::TooManyRequests { retry_after } => {
                details.insert("retryAfterSeconds".into(), json!(retry_after));
            }
            _ => {}
        }
        let mut metadata = serde_json::Map::new();
        if let ApiError::Expired {
            continue_token: Some(t),
            ..
        } = self
        {
            metadata.insert("continue".into(), json!(t));
        }
        let mut status = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": metadata,
            "status": "Failure",
            "message": self.to_string(),
            "reason": self.reason(),
        });
        // Kubernetes' 403 and 504 always have details (maybe empty).
        if !details.is_empty()
            || matches!(self, ApiError::Forbidden { .. } | ApiError::Timeout { .. })
        {
            status["details"] = Value::Object(details);
        }
        if self.reason().is_empty()
            && let Some(fields) = status.as_object_mut()
        {
            fields.remove("reason");
        }
        status["code"] = json!(self.code());
        status
    }
}
