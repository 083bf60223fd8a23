//! How long a non-long-running request may take: `--request-timeout`, or
//! less when `?timeout=` (a Go duration) asks for less; a list's
//! `timeoutSeconds` shortens it too. A request past its deadline is
//! answered 504 with kube-apiserver's Status.

use std::time::Duration;

use crate::api::error::ApiError;
use crate::util::duration;

/// The message (after `Timeout: `) of a request that ran out of time.
pub const TIMED_OUT: &str = "request did not complete within the allotted timeout";

/// The request's time limit: `maximum` unless `timeout` asks for a
/// positive, shorter one (0 or a negative value means "no limit of my
/// own", as kube reads it), or a list's positive `timeout_seconds` does.
/// An unreadable `timeout` is a 400 with kube's message.
pub fn request_deadline(
    timeout: Option<&str>,
    list_timeout_seconds: Option<&str>,
    maximum: Duration,
) -> Result<Duration, ApiError> {
    let mut limit = maximum;
    if let Some(value) = timeout.filter(|v| !v.is_empty()) {
        let (negative, asked) = duration::parse_signed(value).map_err(|e| {
            ApiError::BadRequest(format!(
                "invalid timeout specified in the request URL - {e}"
            ))
        })?;
        if !negative && !asked.is_zero() {
            limit = limit.min(asked);
        }
    }
    if let Some(seconds) = list_timeout_seconds
        .and_then(|s| s.parse::<u64>().ok())
        .filter(|&s| s > 0)
    {
        limit = limit.min(Duration::from_secs(seconds));
    }
    Ok(limit)
}

/// The 504 a request past its deadline gets.
#[must_use]
pub fn timed_out() -> ApiError {
    ApiError::Timeout {
        message: TIMED_OUT.into(),
        retry_after: None,
        causes: Vec::new(),
    }
}

/// How long a watch without `timeoutSeconds` lives: a random time in
/// [min, 2·min), so that watches opened together do not all end (and
/// come back) together.
#[must_use]
pub fn spread_watch_timeout(min_request_timeout: Duration) -> Duration {
    min_request_timeout.mul_f64(1.0 + crate::util::random::unit_fraction())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE: Duration = Duration::from_secs(60);

    #[test]
    fn timeout_shortens_but_never_lengthens_the_limit() {
        assert_eq!(request_deadline(None, None, MINUTE).unwrap(), MINUTE);
        assert_eq!(
            request_deadline(Some("250ms"), None, MINUTE).unwrap(),
            Duration::from_millis(250)
        );
        assert_eq!(request_deadline(Some("2h"), None, MINUTE).unwrap(), MINUTE);
        assert_eq!(request_deadline(Some("0s"), None, MINUTE).unwrap(), MINUTE);
        assert_eq!(request_deadline(Some("-5s"), None, MINUTE).unwrap(), MINUTE);
        assert_eq!(
            request_deadline(None, Some("2"), MINUTE).unwrap(),
            Duration::from_secs(2)
        );
    }

    #[test]
    fn an_unreadable_timeout_is_a_bad_request_in_kube_words() {
        let e = request_deadline(Some("soon"), None, MINUTE).unwrap_err();
        assert_eq!(e.code(), 400);
        assert_eq!(
            e.to_string(),
            "invalid timeout specified in the request URL - time: invalid duration \"soon\""
        );
    }

    #[test]
    fn watch_timeouts_spread_over_min_to_twice_min() {
        for _ in 0..100 {
            let t = spread_watch_timeout(MINUTE);
            assert!(t >= MINUTE && t < 2 * MINUTE, "{t:?}");
        }
    }
}
