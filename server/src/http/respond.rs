//! Building responses: objects in the negotiated encoding, `Status` errors
//! (the one place an `ApiError` meets HTTP), `Warning` headers.

use http::{HeaderValue, Response, StatusCode, header};
use serde_json::Value;

use crate::api::error::ApiError;
use crate::http::body::{Body, full};
use crate::http::negotiate::{Encoding, TableTarget, encode};

/// How to write a response.
#[derive(Clone, Copy, Debug)]
pub struct Writer {
    pub encoding: Encoding,
    pub pretty: bool,
    /// Resources are answered as a Table of this version (`as=Table`).
    pub table: Option<TableTarget>,
}

impl Default for Writer {
    fn default() -> Writer {
        Writer {
            encoding: Encoding::Json,
            pretty: false,
            table: None,
        }
    }
}

impl Writer {
    /// An object (or list, or Status) with a status code and warnings.
    #[must_use]
    pub fn object(&self, code: u16, value: &Value, warnings: &[String]) -> Response<Body> {
        if let Encoding::Protobuf(p) = self.encoding {
            return crate::http::protobuf::untyped(*self, p, code, value, warnings);
        }
        let mut resp = Response::new(full(encode(value, self.encoding, self.pretty)));
        *resp.status_mut() = StatusCode::from_u16(code).unwrap_or(StatusCode::OK);
        resp.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(self.encoding.content_type()),
        );
        add_warnings(&mut resp, warnings);
        resp
    }

    /// Whether this response is compact JSON (stored bytes can be served as they are).
    #[must_use]
    pub fn is_compact_json(&self) -> bool {
        self.encoding == Encoding::Json && !self.pretty && self.table.is_none()
    }

    /// Already-encoded JSON bytes.
    #[must_use]
    pub fn bytes(&self, code: u16, body: Vec<u8>) -> Response<Body> {
        let mut resp = Response::new(full(body));
        *resp.status_mut() = StatusCode::from_u16(code).unwrap_or(StatusCode::OK);
        resp.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(self.encoding.content_type()),
        );
        resp
    }

    /// A streamed 200 response in this encoding.
    #[must_use]
    pub fn stream(&self, body: Body) -> Response<Body> {
        let mut resp = Response::new(body);
        resp.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(self.encoding.content_type()),
        );
        resp
    }

    /// The error as a `Status` (plain text for unknown paths, as Kubernetes).
    #[must_use]
    pub fn error(&self, err: &ApiError) -> Response<Body> {
        if matches!(err, ApiError::PathNotFound) {
            return text(404, "404 page not found\n");
        }
        let mut resp = self.object(err.code(), &err.status(), &[]);
        if let Some(s) = err.retry_after() {
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(s));
        }
        resp
    }
}

/// A `Warning: 299 - "<text>"` header per warning.
pub fn add_warnings(resp: &mut Response<Body>, warnings: &[String]) {
    for w in warnings {
        let escaped = w.replace('\\', "\\\\").replace('"', "\\\"");
        if let Ok(v) = HeaderValue::from_str(&format!("299 - \"{escaped}\"")) {
            resp.headers_mut().append(header::WARNING, v);
        }
    }
}

/// A plain-text response.
#[must_use]
pub fn text(code: u16, body: &str) -> Response<Body> {
    let mut resp = Response::new(full(body.to_string()));
    *resp.status_mut() = StatusCode::from_u16(code).unwrap_or(StatusCode::OK);
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    resp.headers_mut().insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    resp
}
