//! What an admission webhook costs the writes it does not cover: Event
//! creates of the create phase's shape (64 keep-alive writers, 500-byte
//! Events) with no webhook configured, and with one validating webhook on
//! ConfigMaps (issue #22: at most 5% fewer creates per second). The two
//! cases take turns in rounds on one server; before each round the
//! configuration is created or deleted, and a probe ConfigMap proves it in
//! or out of effect (the webhook's URL answers nothing and its failure
//! policy is Fail, so a covered create fails exactly while it is in
//! effect).

use std::time::Duration;

use bytes::Bytes;
use http::{Method, StatusCode};

use super::Ctx;
use super::cases::Case;
use crate::Result;
use crate::cairn::Endpoint;
use crate::cairn::client::Conn;
use crate::cairn::ops::{self, CairnWriter};
use crate::report::{Target, ratio_text};

/// The webhooked case's create rate, relative to the plain case's.
const MIN_RATE_KEPT: f64 = 0.95;

const CONFIGS: &str = "/apis/admissionregistration.svc.io/v1/validatingwebhookconfigurations";
const NAME: &str = "bench-configmaps";
const PROBES: &str = "/api/v1/namespaces/default/configmaps";

fn configuration() -> Bytes {
    // Port 9 (discard) on loopback: nothing answers, so a covered write
    // fails; an uncovered one never dials.
    Bytes::from(format!(
        r#"{{"apiVersion":"admissionregistration.svc.io/v1","kind":"ValidatingWebhookConfiguration",
"metadata":{{"name":"{NAME}"}},"webhooks":[{{"name":"configmaps.bench.cairn.io",
"rules":[{{"operations":["CREATE","UPDATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["configmaps"]}}],
"clientConfig":{{"url":"https://127.0.0.1:9/validate"}},"failurePolicy":"Fail","sideEffects":"None",
"timeoutSeconds":1,"admissionReviewVersions":["v1"]}}]}}"#
    ))
}

/// Creates or deletes the configuration (if it is not so already), then
/// waits until a probe ConfigMap shows it in (refused) or out (created) of
/// effect.
async fn set_webhook(conn: &mut Conn, on: bool, probe: &mut u64) -> Result<()> {
    let path = format!("{CONFIGS}/{NAME}");
    let (status, body) = if on {
        conn.call(Method::POST, CONFIGS, Some(configuration()))
            .await?
    } else {
        conn.call(Method::DELETE, &path, None).await?
    };
    let done = [
        StatusCode::CREATED,
        StatusCode::OK,
        StatusCode::CONFLICT,
        StatusCode::NOT_FOUND,
    ];
    if !done.contains(&status) {
        let text = String::from_utf8_lossy(&body[..body.len().min(300)]).into_owned();
        return Err(format!("webhook configuration (on: {on}): {status}: {text}").into());
    }
    for _ in 0..200 {
        *probe += 1;
        let body = format!(
            r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"webhook-probe-{probe}"}}}}"#
        );
        let (status, _) = conn
            .call(Method::POST, PROBES, Some(Bytes::from(body)))
            .await?;
        if (status == StatusCode::CREATED) != on {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Err(format!("the webhook configuration did not take effect (on: {on})").into())
}

/// Runs both cases from Event index `start` on.
pub async fn run(ctx: &mut Ctx, start: u64) -> Result<()> {
    let conc = ctx.args.concurrency;
    // An even count, taken in ABBA order: each case gets the earlier and
    // the later slots alike, so the store's growth over the phase does not
    // favour either.
    let rounds = ctx.args.auth_rounds.max(2).next_multiple_of(2);
    let per_case = ctx.sizes.webhook_events;
    eprintln!("-- webhook: {per_case} Events per case in {rounds} rounds, {conc} writers");
    let endpoint = Endpoint::plain(ctx.cairn.addr);
    let mut conn = Conn::connect(ctx.cairn.addr).await?;
    let mut cases: Vec<Case<CairnWriter>> = Vec::new();
    for name in [format!("create_{conc}"), format!("create_{conc}_webhooked")] {
        let writers = ops::writers(&endpoint, conc).await?;
        cases.push(Case::new(name, writers, ctx.cairn_pid()));
    }
    let mut next = start;
    for c in &mut cases {
        next = c.warm(next).await?;
    }
    let mut probe = 0;
    for r in 0..rounds {
        let n = per_case / rounds + u64::from(r < per_case % rounds);
        for j in 0..cases.len() {
            let k = if r % 2 == 0 { j } else { cases.len() - 1 - j };
            set_webhook(&mut conn, k == 1, &mut probe).await?;
            cases[k].round(next, n).await?;
            next += n;
        }
    }
    set_webhook(&mut conn, false, &mut probe).await?;
    let (plain, hooked) = (&cases[0], &cases[1]);
    let kept = hooked.load.rate() / plain.load.rate().max(f64::MIN_POSITIVE);
    let cpu = hooked
        .per_op(hooked.server_cpu)
        .zip(plain.per_op(plain.server_cpu))
        .map(|(h, p)| h.as_secs_f64() / p.as_secs_f64());
    ctx.report.note(&format!(
        "webhook: one ValidatingWebhookConfiguration on ConfigMaps (failurePolicy Fail, \
         unreachable URL) present in the webhooked rounds, absent in the others; \
         {rounds} rounds in ABBA order; probe ConfigMaps confirmed each switch"
    ));
    ctx.report
        .figure(&plain.name, &plain.line("create"), None, None, None);
    let line = format!(
        "{} ({} the plain case's rate; {} its server CPU per create)",
        hooked.line("create"),
        ratio_text(kept),
        cpu.map_or("?".into(), ratio_text),
    );
    let target = Target::at_least(kept, MIN_RATE_KEPT, "x the rate without webhooks");
    ctx.report
        .figure(&hooked.name, &line, None, Some(kept), Some(target));
    Ok(())
}
