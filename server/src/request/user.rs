//! Who a request acts as (Kubernetes' `user.Info`), and the identities the
//! server itself uses.

use std::collections::BTreeMap;
use std::sync::{Arc, LazyLock};

/// The group whose members may do everything (Kubernetes' privileged group).
pub const MASTERS: &str = "system:masters";
/// The group every authenticated user is in.
pub const AUTHENTICATED: &str = "system:authenticated";
/// The group of requests no authenticator recognised.
pub const UNAUTHENTICATED: &str = "system:unauthenticated";
/// The user of requests no authenticator recognised.
pub const ANONYMOUS: &str = "system:anonymous";

/// An authenticated identity.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UserInfo {
    pub name: String,
    pub uid: String,
    pub groups: Vec<String>,
    /// Authenticator-specific facts (e.g. a service account token's pod),
    /// which authorizers and webhooks may read.
    pub extra: BTreeMap<String, Vec<String>>,
}

impl UserInfo {
    /// A user with a name and groups, nothing else.
    #[must_use]
    pub fn new(name: &str, groups: &[&str]) -> UserInfo {
        UserInfo {
            name: name.into(),
            groups: groups.iter().map(|g| (*g).to_string()).collect(),
            ..UserInfo::default()
        }
    }

    #[must_use]
    pub fn in_group(&self, group: &str) -> bool {
        self.groups.iter().any(|g| g == group)
    }
}

/// `user` with `system:authenticated` among its groups, as Kubernetes'
/// authenticated-group adder leaves every authenticated user: anonymous and
/// users already in `system:authenticated` or `system:unauthenticated` are
/// left as they are (and not copied).
#[must_use]
pub fn with_authenticated_group(user: Arc<UserInfo>) -> Arc<UserInfo> {
    if user.name == ANONYMOUS
        || user
            .groups
            .iter()
            .any(|g| g == AUTHENTICATED || g == UNAUTHENTICATED)
    {
        return user;
    }
    let mut added = UserInfo::clone(&user);
    added.groups.push(AUTHENTICATED.to_string());
    Arc::new(added)
}

/// The identity of every request on the insecure port, as Kubernetes' old
/// insecure port had it.
#[must_use]
pub fn insecure_port_user() -> Arc<UserInfo> {
    Arc::new(UserInfo::new("system:admin", &[MASTERS, AUTHENTICATED]))
}

/// The API server acting on its own (Kubernetes' loopback identity): what
/// admission sees for the writes of in-process controllers.
#[must_use]
pub fn api_server() -> &'static UserInfo {
    static USER: LazyLock<UserInfo> =
        LazyLock::new(|| UserInfo::new("system:apiserver", &[AUTHENTICATED, MASTERS]));
    &USER
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authenticated_users_join_system_authenticated_once() {
        let jane = with_authenticated_group(Arc::new(UserInfo::new("jane", &["devs"])));
        assert_eq!(jane.groups, ["devs", AUTHENTICATED]);
        let again = with_authenticated_group(Arc::clone(&jane));
        assert!(Arc::ptr_eq(&jane, &again), "already a member: not copied");
        let anonymous = with_authenticated_group(Arc::new(UserInfo::new(ANONYMOUS, &[])));
        assert!(anonymous.groups.is_empty());
        let unauthenticated =
            with_authenticated_group(Arc::new(UserInfo::new("guest", &[UNAUTHENTICATED])));
        assert_eq!(unauthenticated.groups, [UNAUTHENTICATED]);
    }
}
