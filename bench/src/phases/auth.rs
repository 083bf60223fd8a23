//! What authentication costs: Event creates of the create phase's shape (the
//! same writers, body size and concurrency; HTTP/1.1, one keep-alive
//! connection per writer) on the plain port, over TLS presenting the admin
//! client certificate, and over TLS with bearer tokens (the static token of
//! `--token-auth-file`; a service-account token when the server serves
//! TokenRequest), beside etcd puts. The cases take turns in rounds so that
//! drift on a shared machine hits them alike. Every connection is opened and
//! makes one create before anything is measured: the figures are the steady
//! state (handshakes and first verifications done, caches warm).
//!
//! The static token's user is in system:masters, which every authorizer
//! chain lets through first; the RBAC token's user and the service account
//! are not, so RBAC decides each of their creates under a policy of 1,000
//! Roles and RoleBindings (`rbac.rs`). The RBAC token case against the
//! static token case is what RBAC costs: same authenticator, same token
//! size, one difference.

use std::time::Duration;

use http::{Method, StatusCode};
use memchr::memmem;

use super::cases::Case;
use super::{Ctx, rbac};
use crate::cairn::client::Conn;
use crate::cairn::ops::{self, CairnWriter};
use crate::cairn::{Endpoint, Secure};
use crate::parse::string_field;
use crate::report::{Target, ratio_text};
use crate::{Result, etcd};

/// The client-certificate case's create rate, relative to etcd's put rate.
const MIN_X509_VS_ETCD: f64 = 2.0;
/// A bearer-token case's server CPU per create, relative to the plain port's.
const MAX_TOKEN_CPU: f64 = 1.10;
/// The RBAC-decided token case's server CPU per create, relative to the
/// masters token case's (RBAC's share of a create).
const MAX_RBAC_CPU: f64 = 1.05;
/// A service-account token from TokenRequest on the plain port, or why not.
async fn service_account_token(conn: &mut Conn) -> Result<std::result::Result<String, String>> {
    let (_, discovery) = conn.call(Method::GET, "/api/v1", None).await?;
    if memmem::find(&discovery, b"\"serviceaccounts/token\"").is_none() {
        return Ok(Err(
            "the server does not serve serviceaccounts/token (TokenRequest)".into(),
        ));
    }
    let path = "/api/v1/namespaces/default/serviceaccounts/default/token";
    let body = br#"{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":3600}}"#;
    let mut last = String::new();
    // The default ServiceAccount appears shortly after start.
    for _ in 0..50 {
        let (status, resp) = conn
            .call(Method::POST, path, Some(body.as_slice().into()))
            .await?;
        if status == StatusCode::CREATED
            && let Some(token) = string_field(&resp, "token")
        {
            return Ok(Ok(String::from_utf8_lossy(token).into_owned()));
        }
        last = format!(
            "{status}: {}",
            String::from_utf8_lossy(&resp[..resp.len().min(200)])
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(Err(format!("TokenRequest failed: {last}")))
}

/// The cairn cases: the plain port first (the baseline), then TLS.
async fn endpoints(ctx: &mut Ctx, secure: &Secure) -> Result<Vec<(&'static str, Endpoint)>> {
    let mut out = vec![
        ("plain", Endpoint::plain(ctx.cairn.addr)),
        ("tls_x509", secure.client_cert()),
    ];
    match &secure.static_token {
        Some(token) => out.push(("tls_token", secure.bearer(token))),
        None => ctx.report.note(
            "auth: this cairn-apiserver has no --token-auth-file; the static-token case is skipped",
        ),
    }
    let policy = rbac::setup(&Endpoint::plain(ctx.cairn.addr)).await?;
    ctx.report.note(&policy);
    if let Some(token) = &secure.rbac_token {
        let endpoint = secure.bearer(token);
        rbac::await_allowed(&endpoint).await?;
        out.push(("tls_token_rbac", endpoint));
    }
    let mut conn = Conn::connect(ctx.cairn.addr).await?;
    match service_account_token(&mut conn).await? {
        Ok(token) => {
            let endpoint = secure.bearer(&token);
            rbac::await_allowed(&endpoint).await?;
            out.push(("tls_sa_token", endpoint));
        }
        Err(why) => ctx.report.note(&format!(
            "auth: {why}; the service-account token case is skipped"
        )),
    }
    Ok(out)
}

/// Runs the cases from Event index `start` on.
pub async fn run(ctx: &mut Ctx, start: u64) -> Result<()> {
    let Some(secure) = ctx.cairn.secure.take() else {
        ctx.report.note(
            "auth: skipped (the bench did not start this cairn, so it knows no HTTPS port or credentials)",
        );
        return Ok(());
    };
    let outcome = measure(ctx, &secure, start).await;
    ctx.cairn.secure = Some(secure);
    outcome
}

async fn measure(ctx: &mut Ctx, secure: &Secure, start: u64) -> Result<()> {
    let conc = ctx.args.concurrency;
    let rounds = ctx.args.auth_rounds.max(1);
    let per_case = ctx.sizes.auth_events;
    eprintln!("-- auth: {per_case} Events per case in {rounds} rounds, {conc} writers");
    let mut cases: Vec<Case<CairnWriter>> = Vec::new();
    let mut transports = Vec::new();
    for (name, endpoint) in endpoints(ctx, secure).await? {
        let writers = ops::writers(&endpoint, conc)
            .await
            .map_err(|e| format!("{name}: {e}"))?;
        if let Some(w) = writers.first() {
            transports.push(format!("{name} {}", w.transport()));
        }
        cases.push(Case::new(
            format!("create_{conc}_{name}"),
            writers,
            ctx.cairn_pid(),
        ));
    }
    let mut etcd_case = ctx
        .etcd
        .as_ref()
        .map(|e| Case::new(format!("put_{conc}"), etcd::ops::writers(e, conc), e.pid));
    ctx.report.note(&format!(
        "auth: HTTP/1.1 on every cairn case (ALPN http/1.1, no h2), as the create phase: \
         one keep-alive connection per writer, {conc} writers, {}-byte Events; {}; \
         {rounds} interleaved rounds; connections warmed (one create each) before measuring",
        crate::event::VALUE_SIZE,
        transports.join(", "),
    ));
    let mut next = start;
    for c in &mut cases {
        next = c.warm(next).await?;
    }
    if let Some(e) = &mut etcd_case {
        next = e.warm(next).await?;
    }
    let slots = cases.len() + usize::from(etcd_case.is_some());
    for r in 0..rounds {
        let n = per_case / rounds + u64::from(r < per_case % rounds);
        for j in 0..slots {
            // Each round starts with another case, so none is always first.
            let k = (j + r as usize) % slots;
            match cases.get_mut(k) {
                Some(c) => c.round(next, n).await?,
                None => {
                    if let Some(e) = &mut etcd_case {
                        e.round(next, n).await?;
                    }
                }
            }
            next += n;
        }
    }
    report(ctx, &cases, etcd_case.as_ref());
    Ok(())
}

fn report(ctx: &mut Ctx, cases: &[Case<CairnWriter>], etcd: Option<&Case<etcd::ops::EtcdWriter>>) {
    let cpu_of = |suffix: &str| {
        cases
            .iter()
            .find(|c| c.name.ends_with(suffix))
            .and_then(|c| c.per_op(c.server_cpu))
            .map(|d| d.as_secs_f64())
    };
    let plain_cpu = cpu_of("_plain");
    let masters_token_cpu = cpu_of("_tls_token");
    let etcd_line = etcd.map(|e| e.line("put"));
    for (i, c) in cases.iter().enumerate() {
        let cpu = c.per_op(c.server_cpu).map(|d| d.as_secs_f64());
        let cpu_ratio = cpu.zip(plain_cpu).map(|(c, p)| c / p);
        let mut line = c.line("create");
        // The token lines' ratio is this one; the client-certificate line's is etcd's.
        if i > 0
            && !c.name.contains("_token")
            && let Some(r) = cpu_ratio
        {
            line.push_str(&format!(" ({} the plain port's CPU)", ratio_text(r)));
        }
        let vs_etcd = etcd.map(|e| c.load.rate() / e.load.rate());
        if c.name.ends_with("_tls_x509") {
            let target =
                vs_etcd.map(|r| Target::at_least(r, MIN_X509_VS_ETCD, "x etcd's put rate"));
            ctx.report
                .figure(&c.name, &line, etcd_line.as_deref(), vs_etcd, target);
        } else if c.name.ends_with("_token_rbac") {
            let share = cpu.zip(masters_token_cpu).map(|(c, m)| c / m);
            line.push_str(&format!(
                " ({} the plain port's CPU; {} the masters token's)",
                cpu_ratio.map_or("?".into(), ratio_text),
                share.map_or("?".into(), ratio_text)
            ));
            let target = share.map(|r| {
                Target::at_most(
                    r,
                    MAX_RBAC_CPU,
                    "x the masters token's server CPU per create (RBAC's share)",
                )
            });
            ctx.report.figure(&c.name, &line, None, share, target);
        } else if c.name.contains("_token") {
            let target = cpu_ratio.map(|r| {
                Target::at_most(r, MAX_TOKEN_CPU, "x the plain port's server CPU per create")
            });
            ctx.report.figure(&c.name, &line, None, cpu_ratio, target);
        } else {
            ctx.report
                .figure(&c.name, &line, etcd_line.as_deref(), vs_etcd, None);
        }
    }
}
