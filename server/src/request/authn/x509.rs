//! Client certificates: a chain that verifies to a client CA
//! (`--client-ca-file`, by default the cluster CA) for client
//! authentication makes the user its subject's CommonName, in a group per
//! Organization. The chain is checked once per connection (the handshake
//! already proved the client holds the key); each request then only checks
//! that the certificates are still within their validity.

use std::sync::{Arc, OnceLock};

use rustls::pki_types::{CertificateDer, TrustAnchor, UnixTime};
use x509_parser::prelude::{FromDer, X509Certificate};

use crate::api::error::ApiError;
use crate::request::authn::{Authenticator, RequestHead};
use crate::request::user::{AUTHENTICATED, UserInfo};
use crate::util::maybe_async::MaybeAsync;

/// The certificates a TLS client presented, and what they were found to
/// prove (decided on the connection's first request).
pub struct PeerCertificates {
    chain: Vec<CertificateDer<'static>>,
    verdict: OnceLock<Verdict>,
    /// The same question asked of the front proxy's CA.
    front_proxy_verdict: OnceLock<Verdict>,
}

#[derive(Clone)]
enum Verdict {
    User {
        user: Arc<UserInfo>,
        /// Unix seconds between which every certificate of the chain holds.
        not_before: i64,
        not_after: i64,
    },
    /// A verified chain without a CommonName names nobody.
    Nobody,
    Refused(String),
}

impl PeerCertificates {
    /// `None` when the client sent no certificate.
    #[must_use]
    pub fn new(chain: Option<&[CertificateDer<'_>]>) -> Option<PeerCertificates> {
        let chain = chain.filter(|c| !c.is_empty())?;
        Some(PeerCertificates {
            chain: chain.iter().map(|c| c.clone().into_owned()).collect(),
            verdict: OnceLock::new(),
            front_proxy_verdict: OnceLock::new(),
        })
    }
}

/// The client-certificate authenticator.
pub struct ClientCertificates {
    anchors: Vec<TrustAnchor<'static>>,
}

impl ClientCertificates {
    /// Trusts the CA certificates `cas` (DER); an error names one that is
    /// not a usable CA certificate.
    pub fn new(cas: &[CertificateDer<'_>]) -> Result<ClientCertificates, String> {
        let anchors = cas
            .iter()
            .map(|c| {
                webpki::anchor_from_trusted_cert(c)
                    .map(|a| a.to_owned())
                    .map_err(|e| format!("client CA certificate unusable: {e}"))
            })
            .collect::<Result<_, _>>()?;
        Ok(ClientCertificates { anchors })
    }

    fn judge(&self, chain: &[CertificateDer<'static>]) -> Verdict {
        let Some((leaf, intermediates)) = chain.split_first() else {
            return Verdict::Nobody;
        };
        let verified = webpki::EndEntityCert::try_from(leaf).and_then(|ee| {
            ee.verify_for_usage(
                webpki::ALL_VERIFICATION_ALGS,
                &self.anchors,
                intermediates,
                UnixTime::now(),
                webpki::KeyUsage::client_auth(),
                None,
                None,
            )
            .map(|_| ())
        });
        if let Err(e) = verified {
            return Verdict::Refused(format!("verifying certificate: {e}"));
        }
        let mut not_before = i64::MIN;
        let mut not_after = i64::MAX;
        for der in chain {
            if let Ok((_, cert)) = X509Certificate::from_der(der) {
                not_before = not_before.max(cert.validity().not_before.timestamp());
                not_after = not_after.min(cert.validity().not_after.timestamp());
            }
        }
        let Ok((_, cert)) = X509Certificate::from_der(leaf) else {
            return Verdict::Refused("unreadable certificate".into());
        };
        let subject = cert.subject();
        let name = subject
            .iter_common_name()
            .next()
            .and_then(|cn| cn.as_str().ok())
            .unwrap_or_default();
        if name.is_empty() {
            return Verdict::Nobody;
        }
        let mut groups: Vec<String> = subject
            .iter_organization()
            .filter_map(|o| o.as_str().ok())
            .map(str::to_string)
            .collect();
        if !groups.iter().any(|g| g == AUTHENTICATED) {
            groups.push(AUTHENTICATED.to_string());
        }
        Verdict::User {
            user: Arc::new(UserInfo {
                name: name.to_string(),
                groups,
                ..UserInfo::default()
            }),
            not_before,
            not_after,
        }
    }
}

impl ClientCertificates {
    /// The subject of `peer`'s chain as these CAs judge it: `Ok(None)`
    /// without a CommonName, an error when it does not verify or is out of
    /// its validity now. `front_proxy` keeps the verdict apart from the
    /// client-CA one.
    pub fn subject(
        &self,
        peer: &PeerCertificates,
        front_proxy: bool,
    ) -> Result<Option<Arc<UserInfo>>, ApiError> {
        let slot = if front_proxy {
            &peer.front_proxy_verdict
        } else {
            &peer.verdict
        };
        let verdict = slot.get_or_init(|| self.judge(&peer.chain));
        match verdict {
            Verdict::User {
                user,
                not_before,
                not_after,
            } => {
                let now = UnixTime::now().as_secs();
                let now = i64::try_from(now).unwrap_or(i64::MAX);
                if now < *not_before || now > *not_after {
                    tracing::debug!(user = %user.name, "client certificate outside its validity");
                    Err(ApiError::Unauthorized)
                } else {
                    Ok(Some(Arc::clone(user)))
                }
            }
            Verdict::Nobody => Ok(None),
            Verdict::Refused(reason) => {
                tracing::debug!(reason = %reason, "client certificate refused");
                Err(ApiError::Unauthorized)
            }
        }
    }
}

impl Authenticator for ClientCertificates {
    fn authenticate<'a>(
        &'a self,
        head: &'a RequestHead<'a>,
    ) -> MaybeAsync<'a, Result<Option<Arc<UserInfo>>, ApiError>> {
        let Some(peer) = head.peer else {
            return MaybeAsync::Ready(Ok(None));
        };
        MaybeAsync::Ready(self.subject(peer, false))
    }
}
