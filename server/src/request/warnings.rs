//! Warnings a request's handling gathers for its client (admission
//! webhooks' `warnings`), answered as `Warning: 299` headers — what kube's
//! warning recorder in the request context does. Outside a gathering scope
//! (controllers' own writes) a warning is only logged.

use std::cell::RefCell;
use std::future::Future;

/// kube stops adding warnings once their text passes this many bytes.
const MAX_TOTAL_BYTES: usize = 4096;

tokio::task_local! {
    static GATHERED: RefCell<Vec<String>>;
}

/// Runs `handling`, returning what it answered and the warnings it raised,
/// in order and without repeats.
pub async fn gathering<F: Future>(handling: F) -> (F::Output, Vec<String>) {
    GATHERED
        .scope(RefCell::new(Vec::new()), async move {
            let out = handling.await;
            (out, GATHERED.with(|w| w.take()))
        })
        .await
}

/// Tells the request's client `text` (logged at debug level as well).
pub fn add(text: &str) {
    tracing::debug!("warning: {text}");
    let _ = GATHERED.try_with(|gathered| {
        let mut gathered = gathered.borrow_mut();
        let total: usize = gathered.iter().map(String::len).sum();
        if text.is_empty()
            || gathered.iter().any(|w| w == text)
            || total + text.len() > MAX_TOTAL_BYTES
        {
            return;
        }
        gathered.push(text.to_string());
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn warnings_are_gathered_once_each_within_the_limit() {
        let ((), warnings) = gathering(async {
            add("first");
            add("first");
            add("");
            tokio::task::yield_now().await;
            add("second");
            add(&"x".repeat(MAX_TOTAL_BYTES));
        })
        .await;
        assert_eq!(warnings, ["first", "second"]);
        add("outside any request: dropped, no panic");
    }
}
