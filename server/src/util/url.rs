//! The parts of an `http://` or `https://` URL a hand-made client
//! connection needs (the host to dial, the port, the `Host` header, the
//! request target), as the webhook and issuer clients use them.

/// A parsed server URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UrlTarget {
    /// The URL as given.
    pub url: String,
    pub https: bool,
    /// Without brackets for IPv6 literals.
    pub host: String,
    /// As given, else 443 (https) or 80 (http).
    pub port: u16,
    /// `host[:port]` as written, for the `Host` header.
    pub authority: String,
    /// Path and query (`/` when absent); the fragment is dropped.
    pub path_and_query: String,
}

impl UrlTarget {
    /// Reads `url`; errors are one line naming it.
    pub fn parse(url: &str) -> Result<UrlTarget, String> {
        let (https, rest) = if let Some(rest) = url.strip_prefix("https://") {
            (true, rest)
        } else if let Some(rest) = url.strip_prefix("http://") {
            (false, rest)
        } else {
            return Err(format!("{url}: not an http or https URL"));
        };
        let rest = rest.split('#').next().unwrap_or_default();
        let (authority, path) = match rest.find(['/', '?']) {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        let path_and_query = if path.starts_with('?') {
            format!("/{path}")
        } else {
            path.to_owned()
        };
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            let (h, after) = v6
                .split_once(']')
                .ok_or_else(|| format!("{url}: bad host"))?;
            (h.to_owned(), after.strip_prefix(':'))
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h.to_owned(), Some(p)),
                None => (authority.to_owned(), None),
            }
        };
        let port = match port {
            Some(p) => p.parse().map_err(|_| format!("{url}: bad port"))?,
            None if https => 443,
            None => 80,
        };
        if host.is_empty() {
            return Err(format!("{url}: no host"));
        }
        Ok(UrlTarget {
            url: url.to_owned(),
            https,
            host,
            port,
            authority: authority.to_owned(),
            path_and_query,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::UrlTarget;

    #[test]
    fn server_urls_give_host_port_and_path() {
        let t = UrlTarget::parse("https://hook.example:8443/authorize?x=1#frag").expect("url");
        assert!(t.https);
        assert_eq!((t.host.as_str(), t.port), ("hook.example", 8443));
        assert_eq!(
            (t.authority.as_str(), t.path_and_query.as_str()),
            ("hook.example:8443", "/authorize?x=1")
        );
        let t = UrlTarget::parse("http://[::1]").expect("url");
        assert!(!t.https);
        assert_eq!(
            (t.host.as_str(), t.port, t.path_and_query.as_str()),
            ("::1", 80, "/")
        );
        assert_eq!(
            UrlTarget::parse("https://issuer?a=b")
                .expect("url")
                .path_and_query,
            "/?a=b"
        );
        assert!(UrlTarget::parse("ftp://x").is_err());
        assert!(UrlTarget::parse("https://:1/").is_err());
        assert!(UrlTarget::parse("https://h:port/").is_err());
    }
}
