//! `ApiError`: every way a request fails, carrying facts; `http::status` turns
//! it into a Kubernetes `Status` in one place.

/// One field-level cause (`details.causes[]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cause {
    /// Kubernetes cause type, e.g. `FieldValueRequired`.
    pub reason: String,
    /// Text after the field, e.g. `Required value`.
    pub message: String,
    /// Field path, e.g. `metadata.name`.
    pub field: String,
}

impl Cause {
    #[must_use]
    pub fn new(reason: &str, field: impl Into<String>, message: impl Into<String>) -> Cause {
        Cause {
            reason: reason.into(),
            message: message.into(),
            field: field.into(),
        }
    }

    #[must_use]
    pub fn required(field: impl Into<String>) -> Cause {
        Cause::new("FieldValueRequired", field, "Required value")
    }

    #[must_use]
    pub fn invalid(field: impl Into<String>, value: &str, detail: &str) -> Cause {
        Cause::new(
            "FieldValueInvalid",
            field,
            format!("Invalid value: {value:?}: {detail}"),
        )
    }

    #[must_use]
    pub fn forbidden(field: impl Into<String>, detail: &str) -> Cause {
        Cause::new("FieldValueForbidden", field, format!("Forbidden: {detail}"))
    }

    fn line(&self) -> String {
        if self.field.is_empty() {
            self.message.clone()
        } else {
            format!("{}: {}", self.field, self.message)
        }
    }
}

/// What went wrong, by Kubernetes status reason.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{resource} {name:?} not found")]
    NotFound {
        group: String,
        resource: String,
        name: String,
    },
    #[error("{resource} {name:?} already exists")]
    AlreadyExists {
        group: String,
        resource: String,
        name: String,
    },
    #[error("Operation cannot be fulfilled on {resource} {name:?}: {cause}")]
    Conflict {
        group: String,
        resource: String,
        name: String,
        cause: String,
    },
    /// Server-side apply would change fields other managers own (409): the
    /// message lists them, one cause per field; no name or kind in details.
    #[error("{message}")]
    ApplyConflict { message: String, causes: Vec<Cause> },
    /// A semantically invalid object (422), or — for type errors and missing
    /// required fields, which the spec answers with 400 — `code: 400`.
    #[error("{}", invalid_message(kind, group, name, causes))]
    Invalid {
        kind: String,
        group: String,
        name: String,
        causes: Vec<Cause>,
        code: u16,
    },
    #[error("{0}")]
    BadRequest(String),
    /// No authenticator recognised the caller (401; Kubernetes says no more).
    #[error("Unauthorized")]
    Unauthorized,
    /// Refused (403). An empty `resource` is a refused non-resource path.
    #[error("{}", forbidden_message(resource, name, reason))]
    Forbidden {
        group: String,
        resource: String,
        name: String,
        reason: String,
        causes: Vec<Cause>,
    },
    #[error("{action} is not supported on resources of kind {resource:?}")]
    MethodNotAllowed { action: String, resource: String },
    /// 405 with its own message.
    #[error("{0}")]
    NotAllowed(String),
    #[error("only the following media types are accepted: {}", .0.join(", "))]
    NotAcceptable(Vec<String>),
    #[error("the body of the request was in an unknown format - accepted media types include: {}", .0.join(", "))]
    UnsupportedMediaType(Vec<String>),
    /// 413; the text after `Request entity too large: `.
    #[error("Request entity too large: {0}")]
    TooLarge(String),
    /// 410 with reason Expired (too old resource version, expired continue token).
    #[error("{message}")]
    Expired {
        message: String,
        continue_token: Option<String>,
    },
    #[error("Timeout: {message}")]
    Timeout {
        message: String,
        retry_after: Option<u32>,
        causes: Vec<Cause>,
    },
    /// 429: the in-flight limits are reached.
    #[error("Too many requests, please try again later.")]
    TooManyRequests { retry_after: u32 },
    /// 429 refusing one operation for now (an eviction a disruption budget
    /// forbids), with its causes and no retry hint.
    #[error("{message}")]
    Refused { message: String, causes: Vec<Cause> },
    #[error("Internal error occurred: {0}")]
    Internal(String),
    /// A refusal whose code and message an admission webhook chose; like
    /// Kubernetes, no reason of its own.
    #[error("{message}")]
    Rejected { code: u16, message: String },
    /// A ValidatingAdmissionPolicy's denial: worded as a 403 of the object,
    /// answered with the reason (and its code) the validation chose, the
    /// message also as the one cause.
    #[error("{}", forbidden_message(resource, name, message))]
    PolicyDenied {
        group: String,
        resource: String,
        name: String,
        message: String,
        /// `Invalid` (422), `Forbidden` (403), `Unauthorized` (401) or
        /// `RequestEntityTooLarge` (413).
        reason: &'static str,
    },
    #[error("{0}")]
    ServiceUnavailable(String),
    /// An unknown URL: Kubernetes answers with a plain-text 404, not a Status.
    #[error("404 page not found")]
    PathNotFound,
    /// A request the filters before the handlers cannot make sense of
    /// (impersonating groups without a user): Kubernetes answers with a
    /// plain-text 500, `Internal Server Error: "<uri>": <cause>`.
    #[error("Internal Server Error: {uri:?}: {cause}")]
    FilterFailed { uri: String, cause: String },
}

fn invalid_message(kind: &str, group: &str, name: &str, causes: &[Cause]) -> String {
    let qualified = if group.is_empty() {
        kind.to_string()
    } else {
        format!("{kind}.{group}")
    };
    let lines: Vec<String> = causes.iter().map(Cause::line).collect();
    let body = match lines.len() {
        1 => lines[0].clone(),
        _ => format!("[{}]", lines.join(", ")),
    };
    format!("{qualified} {name:?} is invalid: {body}")
}

fn forbidden_message(resource: &str, name: &str, reason: &str) -> String {
    if resource.is_empty() {
        format!("forbidden: {reason}")
    } else if name.is_empty() {
        format!("{resource} is forbidden: {reason}")
    } else {
        format!("{resource} {name:?} is forbidden: {reason}")
    }
}

impl ApiError {
    /// HTTP status code.
    #[must_use]
    pub fn code(&self) -> u16 {
        match self {
            ApiError::NotFound { .. } | ApiError::PathNotFound => 404,
            ApiError::AlreadyExists { .. }
            | ApiError::Conflict { .. }
            | ApiError::ApplyConflict { .. } => 409,
            ApiError::Invalid { code, .. } => *code,
            ApiError::BadRequest(_) => 400,
            ApiError::Unauthorized => 401,
            ApiError::Forbidden { .. } => 403,
            ApiError::MethodNotAllowed { .. } | ApiError::NotAllowed(_) => 405,
            ApiError::NotAcceptable(_) => 406,
            ApiError::UnsupportedMediaType(_) => 415,
            ApiError::TooLarge(_) => 413,
            ApiError::Expired { .. } => 410,
            ApiError::Timeout { .. } => 504,
            ApiError::TooManyRequests { .. } | ApiError::Refused { .. } => 429,
            ApiError::Internal(_) | ApiError::FilterFailed { .. } => 500,
            ApiError::ServiceUnavailable(_) => 503,
            ApiError::Rejected { code, .. } => *code,
            ApiError::PolicyDenied { reason, .. } => match *reason {
                "Forbidden" => 403,
                "Unauthorized" => 401,
                "RequestEntityTooLarge" => 413,
                _ => 422,
            },
        }
    }

    /// Kubernetes `StatusReason`.
    #[must_use]
    pub fn reason(&self) -> &'static str {
        match self {
            ApiError::NotFound { .. } | ApiError::PathNotFound => "NotFound",
            ApiError::AlreadyExists { .. } => "AlreadyExists",
            ApiError::Conflict { .. } | ApiError::ApplyConflict { .. } => "Conflict",
            ApiError::Invalid { code: 422, .. } => "Invalid",
            ApiError::Invalid { .. } | ApiError::BadRequest(_) => "BadRequest",
            ApiError::Unauthorized => "Unauthorized",
            ApiError::Forbidden { .. } => "Forbidden",
            ApiError::MethodNotAllowed { .. } | ApiError::NotAllowed(_) => "MethodNotAllowed",
            ApiError::NotAcceptable(_) => "NotAcceptable",
            ApiError::UnsupportedMediaType(_) => "UnsupportedMediaType",
            ApiError::TooLarge(_) => "RequestEntityTooLarge",
            ApiError::Expired { .. } => "Expired",
            ApiError::Timeout { .. } => "Timeout",
            ApiError::TooManyRequests { .. } | ApiError::Refused { .. } => "TooManyRequests",
            ApiError::Internal(_) | ApiError::FilterFailed { .. } => "InternalError",
            ApiError::ServiceUnavailable(_) => "ServiceUnavailable",
            ApiError::Rejected { .. } => "",
            ApiError::PolicyDenied { reason, .. } => reason,
        }
    }

    /// Seconds a client should wait before retrying, when the error says so.
    #[must_use]
    pub fn retry_after(&self) -> Option<u32> {
        match self {
            ApiError::Timeout { retry_after, .. } => *retry_after,
            ApiError::TooManyRequests { retry_after } => Some(*retry_after),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_follow_kubernetes() {
        let e = ApiError::NotFound {
            group: String::new(),
            resource: "events".into(),
            name: "x".into(),
        };
        assert_eq!(e.to_string(), "events \"x\" not found");
        let s = e.status();
        assert_eq!(s["details"], json!({"name": "x", "kind": "events"}));
        assert_eq!(
            (s["code"].as_u64(), s["reason"].as_str()),
            (Some(404), Some("NotFound"))
        );
        let inv = ApiError::Invalid {
            kind: "Event".into(),
            group: String::new(),
            name: "e".into(),
            causes: vec![
                Cause::required("involvedObject"),
                Cause::required("metadata.name"),
            ],
            code: 422,
        };
        assert_eq!(
            inv.to_string(),
            "Event \"e\" is invalid: [involvedObject: Required value, metadata.name: Required value]"
        );
        assert_eq!(
            inv.status()["details"]["causes"][0]["reason"],
            "FieldValueRequired"
        );
    }
}
