//! `GET /metrics`: the page in the format the `Accept` header asks for.

use http::{HeaderValue, Response, StatusCode, header};

use crate::http::body::{Body, full};

/// Answers an authorized `GET /metrics`.
#[must_use]
pub fn serve(accept: Option<&str>) -> Response<Body> {
    let (content_type, page) = crate::metrics::global().scrape(accept);
    let mut resp = Response::new(full(page));
    *resp.status_mut() = StatusCode::OK;
    if let Ok(v) = HeaderValue::from_str(&content_type) {
        resp.headers_mut().insert(header::CONTENT_TYPE, v);
    }
    resp
}
