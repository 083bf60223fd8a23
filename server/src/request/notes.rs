//! What a request's handling tells besides its answer, gathered in the
//! request's scope as kube's request context gathers them: warnings for
//! the client (admission webhooks' `warnings`, answered as `Warning: 299`
//! headers) and annotations for the request's audit event (webhooks'
//! `auditAnnotations`). Outside a request (controllers' own writes) a
//! note is only logged.

use std::cell::RefCell;
use std::future::Future;

/// kube stops adding warnings once their text passes this many bytes.
const MAX_WARNING_BYTES: usize = 4096;

/// What one request's handling gathered.
#[derive(Debug, Default)]
pub struct Notes {
    /// Each text once, in the order raised.
    pub warnings: Vec<String>,
    /// Audit annotations (key, value), in the order raised.
    pub annotations: Vec<(String, String)>,
    /// Audit annotations kept only by events at level Request or above
    /// (a mutating webhook's patch, as kube keeps it).
    pub request_level_annotations: Vec<(String, String)>,
}

tokio::task_local! {
    static GATHERED: RefCell<Notes>;
}

/// Runs `handling`, returning what it answered and the notes it raised.
pub async fn gathering<F: Future>(handling: F) -> (F::Output, Notes) {
    GATHERED
        .scope(RefCell::new(Notes::default()), async move {
            let out = handling.await;
            (out, GATHERED.with(RefCell::take))
        })
        .await
}

/// Tells the request's client `text`.
pub fn warn(text: &str) {
    tracing::debug!("warning: {text}");
    let _ = GATHERED.try_with(|gathered| {
        let warnings = &mut gathered.borrow_mut().warnings;
        let total: usize = warnings.iter().map(String::len).sum();
        if text.is_empty()
            || warnings.iter().any(|w| w == text)
            || total + text.len() > MAX_WARNING_BYTES
        {
            return;
        }
        warnings.push(text.to_string());
    });
}

/// Adds `key: value` to the request's audit event.
pub fn annotate_audit(key: String, value: String) {
    tracing::debug!(key, value, "audit annotation");
    let _ = GATHERED.try_with(|gathered| gathered.borrow_mut().annotations.push((key, value)));
}

/// Adds `key: value` to the request's audit event if it is recorded at
/// level Request or above.
pub fn annotate_audit_at_request_level(key: String, value: String) {
    tracing::debug!(key, value, "audit annotation (level Request)");
    let _ = GATHERED.try_with(|gathered| {
        gathered
            .borrow_mut()
            .request_level_annotations
            .push((key, value));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn notes_are_gathered_in_order_and_warnings_once_within_the_limit() {
        let ((), notes) = gathering(async {
            warn("first");
            warn("first");
            warn("");
            tokio::task::yield_now().await;
            annotate_audit("hook.example.com/k".into(), "v".into());
            warn("second");
            warn(&"x".repeat(MAX_WARNING_BYTES));
        })
        .await;
        assert_eq!(notes.warnings, ["first", "second"]);
        assert_eq!(
            notes.annotations,
            [("hook.example.com/k".to_string(), "v".to_string())]
        );
        warn("outside any request: dropped, no panic");
        annotate_audit("k".into(), "v".into());
    }
}
