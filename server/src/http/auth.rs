//! Who is asking, and may they: the step every resource request passes
//! before dispatch. On the plain-HTTP port every request is `system:admin`
//! in `system:masters`, which may do everything (as in Kubernetes); token and
//! certificate authentication and RBAC plug in here.

use std::sync::LazyLock;

use crate::api::error::ApiError;
use crate::http::router::RequestInfo;

/// An authenticated identity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub name: String,
    pub groups: Vec<String>,
}

/// The identity of every request on the insecure port.
#[must_use]
pub fn insecure_port_user() -> &'static User {
    static USER: LazyLock<User> = LazyLock::new(|| User {
        name: "system:admin".into(),
        groups: vec!["system:masters".into(), "system:authenticated".into()],
    });
    &USER
}

/// Decides whether `user` may perform `verb` on the target.
pub fn authorize(user: &User, verb: &str, info: &RequestInfo) -> Result<(), ApiError> {
    if user.groups.iter().any(|g| g == "system:masters") {
        return Ok(());
    }
    let resource = if info.group.is_empty() {
        info.resource.clone()
    } else {
        format!("{}.{}", info.resource, info.group)
    };
    Err(ApiError::Forbidden {
        group: info.group.clone(),
        resource: resource.clone(),
        name: info.name.clone().unwrap_or_default(),
        reason: format!(
            "User {:?} cannot {verb} resource {:?} in API group {:?}",
            user.name, info.resource, info.group
        ),
        causes: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masters_may_do_anything_others_nothing_yet() {
        let info = RequestInfo {
            group: String::new(),
            version: "v1".into(),
            namespace: Some("default".into()),
            resource: "events".into(),
            name: Some("e".into()),
            subresource: None,
            watch_path: false,
        };
        assert!(authorize(insecure_port_user(), "delete", &info).is_ok());
        let nobody = User {
            name: "system:anonymous".into(),
            groups: vec!["system:unauthenticated".into()],
        };
        let err = authorize(&nobody, "get", &info).expect_err("forbidden");
        assert_eq!(err.code(), 403);
        assert!(err.to_string().contains("cannot get resource \"events\""));
    }
}
