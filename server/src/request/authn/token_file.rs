//! Static bearer tokens from `--token-auth-file`, kube-apiserver's CSV:
//! `token,user,uid[,"group1,group2"]`, read once at start. As Kubernetes
//! reads it: at least three columns per record (else the start fails), a
//! record with an empty token is skipped with a warning, a repeated token
//! is taken from its last record with a warning, a fourth column is split
//! at commas into groups. Neither errors nor log lines ever show a token.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use crate::api::error::ApiError;
use crate::request::authn::csv::Reader;
use crate::request::authn::token::{Audiences, TokenAuthenticator, TokenUser};
use crate::request::user::{UserInfo, with_authenticated_group};
use crate::util::maybe_async::MaybeAsync;

/// The users of a token file, by token.
pub struct TokenFile {
    users: HashMap<String, Arc<UserInfo>>,
}

impl TokenFile {
    /// Reads `path`; the error is one line naming the file and the record.
    pub fn load(path: &Path) -> Result<TokenFile, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read token file '{}': {e}", path.display()))?;
        TokenFile::parse(&text, &path.display().to_string())
    }

    /// The users of a token file's text; `name` names the file in errors
    /// and warnings.
    pub fn parse(text: &str, name: &str) -> Result<TokenFile, String> {
        let mut users = HashMap::new();
        for (index, record) in Reader::new(text).enumerate() {
            let number = index + 1;
            let record = record.map_err(|e| format!("token file '{name}': {e}"))?;
            let found = record.fields.len();
            let mut fields = record.fields.into_iter();
            let (Some(token), Some(user), Some(uid)) =
                (fields.next(), fields.next(), fields.next())
            else {
                return Err(format!(
                    "token file '{name}' must have at least 3 columns (token, user name, user uid), found {found} (record {number}, line {})",
                    record.line
                ));
            };
            if token.is_empty() {
                tracing::warn!(
                    file = name,
                    record = number,
                    "empty token has been found in token file; record skipped"
                );
                continue;
            }
            let groups = fields
                .next()
                .map(|g| g.split(',').map(str::to_string).collect())
                .unwrap_or_default();
            let info = UserInfo {
                name: user,
                uid,
                groups,
                ..UserInfo::default()
            };
            // Built once in `system:authenticated`, as the request chain
            // would report the user: no copy per request.
            if users
                .insert(token, with_authenticated_group(Arc::new(info)))
                .is_some()
            {
                tracing::warn!(
                    file = name,
                    record = number,
                    "duplicate token has been found in token file; the last record wins"
                );
            }
        }
        Ok(TokenFile { users })
    }

    /// How many tokens the file holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.users.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.users.is_empty()
    }
}

impl TokenAuthenticator for TokenFile {
    /// The file's user for `token`; an unknown token is not this
    /// authenticator's (others may know it). Audiences are the wrapper's
    /// business (`audiences::ImplicitAudiences`): static tokens have none.
    fn authenticate_token<'a>(
        &'a self,
        token: &'a str,
        _audiences: Audiences<'a>,
    ) -> MaybeAsync<'a, Result<Option<TokenUser>, ApiError>> {
        MaybeAsync::Ready(Ok(self.users.get(token).map(|user| TokenUser {
            user: Arc::clone(user),
            audiences: Vec::new(),
        })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(file: &TokenFile, token: &str) -> Option<UserInfo> {
        match file.authenticate_token(token, &[]) {
            MaybeAsync::Ready(Ok(found)) => found.map(|f| UserInfo::clone(&f.user)),
            _ => panic!("a token file answers at once, without errors"),
        }
    }

    #[test]
    fn records_become_users() {
        let file = TokenFile::parse(
            "t1,alice,1001,\"devs,ops\"\nt2,bob,1002\n\nt3,carol,1003,solo,ignored\n",
            "tokens.csv",
        )
        .expect("valid");
        assert_eq!(file.len(), 3);
        let alice = lookup(&file, "t1").expect("alice");
        assert_eq!(
            (alice.name.as_str(), alice.uid.as_str(), alice.groups),
            (
                "alice",
                "1001",
                vec![
                    "devs".to_string(),
                    "ops".to_string(),
                    "system:authenticated".to_string()
                ]
            )
        );
        assert_eq!(
            lookup(&file, "t2").expect("bob").groups,
            ["system:authenticated"]
        );
        assert_eq!(
            lookup(&file, "t3").expect("carol").groups,
            ["solo", "system:authenticated"]
        );
        assert_eq!(lookup(&file, "t4"), None);
        assert_eq!(lookup(&file, "T1"), None, "tokens are exact");
    }

    #[test]
    fn kubernetes_quirks_are_kept() {
        // An empty token is skipped, a repeated one taken from its last
        // record, an empty fourth column is one empty group (Go's split).
        let file = TokenFile::parse(",nobody,0\nt,first,1\nt,second,2,\n", "f").expect("valid");
        assert_eq!(file.len(), 1);
        let second = lookup(&file, "t").expect("user");
        assert_eq!(
            (second.name.as_str(), second.groups),
            (
                "second",
                vec![String::new(), "system:authenticated".to_string()]
            )
        );
        assert_eq!(lookup(&file, ""), None);
    }

    #[test]
    fn a_short_or_malformed_record_fails_without_showing_tokens() {
        let short = TokenFile::parse("good,alice,1\nsecret-token,bob\n", "/etc/tokens.csv")
            .err()
            .expect("short record");
        assert_eq!(
            short,
            "token file '/etc/tokens.csv' must have at least 3 columns (token, user name, user uid), found 2 (record 2, line 2)"
        );
        let quoted = TokenFile::parse("a,b,c\nsec\"ret,bob,2\n", "f")
            .err()
            .expect("bare quote");
        assert_eq!(
            quoted,
            "token file 'f': parse error on line 2, column 4: bare \" in non-quoted-field"
        );
        for message in [short, quoted] {
            assert!(
                !message.contains("secret") && !message.contains("sec\""),
                "{message}"
            );
        }
        let missing = TokenFile::load(Path::new("/nonexistent/tokens.csv"))
            .err()
            .expect("no file");
        assert!(
            missing.starts_with("cannot read token file '/nonexistent/tokens.csv': "),
            "{missing}"
        );
    }
}
