//! Who a request acts as (Kubernetes' `user.Info`), and the identities the
//! server itself uses.

use std::collections::BTreeMap;
use std::sync::{Arc, LazyLock};

/// The group whose members may do everything (Kubernetes' privileged group).
pub const MASTERS: &str = "system:masters";
/// The group every authenticated user is in.
pub const AUTHENTICATED: &str = "system:authenticated";

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
