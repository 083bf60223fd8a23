//! Building responses: objects in the negotiated encoding (protobuf when
//! the kind has it, else the Accept header's fallback, else 406), `Status`
//! errors (the one place an `ApiError` meets HTTP), `Warning` headers. The
//! bytes come from the encoders (`encode/`).

use http::{HeaderValue, Response, StatusCode, header};
use http_body_util::BodyExt;
use serde_json::Value;

use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::protobuf as schema;
use crate::api::store::read::RawPage;
use crate::http::body::{Body, full};
use crate::http::encode;
use crate::http::encode::protobuf;
use crate::http::negotiate::{Encoding, Protobuf, TableTarget};
use crate::storage::KeyValue;

/// The `Status` an error response carries, kept beside its encoded bytes
/// for whoever records the answer (the audit log).
#[derive(Clone, Debug)]
pub struct SentStatus(pub Value);

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
            return self.untyped(p, code, value, warnings);
        }
        let mut resp = Response::new(full(encode::value(value, self.encoding, self.pretty)));
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

    /// Bytes already in this encoding.
    #[must_use]
    pub fn bytes(&self, code: u16, body: impl Into<bytes::Bytes>) -> Response<Body> {
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

    /// This writer in the Accept header's fallback encoding, else 406
    /// naming the types that can carry the response (as Kubernetes
    /// answers); `why` protobuf cannot carry it goes to the debug log.
    pub fn fallback(self, why: &ApiError) -> Result<Writer, ApiError> {
        match self.encoding {
            Encoding::Protobuf(Protobuf {
                fallback: Some(text),
                ..
            }) => Ok(Writer {
                encoding: text.into(),
                ..self
            }),
            Encoding::Protobuf(_) => {
                tracing::debug!("protobuf not available: {why}");
                Err(ApiError::NotAcceptable(crate::http::protobuf::text_types()))
            }
            _ => Ok(self),
        }
    }

    /// The writer for a kind's responses: protobuf only if the kind has it.
    pub fn for_kind(self, kind: &KindSpec) -> Result<Writer, ApiError> {
        match self.encoding {
            Encoding::Protobuf(_) if !schema::offered(&kind.schema) => {
                let why = format!("{} has no protobuf form", kind.qualified_resource());
                self.fallback(&ApiError::NotAcceptable(vec![why]))
            }
            _ => Ok(self),
        }
    }

    /// A value without a kind's schema at hand: a `Status` is written in
    /// protobuf; anything else in the fallback (JSON when protobuf was the
    /// only type accepted: the value is not a kind's and has no other form).
    fn untyped(
        &self,
        p: Protobuf,
        code: u16,
        value: &Value,
        warnings: &[String],
    ) -> Response<Body> {
        if let Some(bytes) = protobuf::status(value) {
            let mut resp = self.bytes(code, bytes);
            add_warnings(&mut resp, warnings);
            return resp;
        }
        Writer {
            encoding: p.fallback.map_or(Encoding::Json, Into::into),
            ..*self
        }
        .object(code, value, warnings)
    }

    /// A kind's object, list or `Status` in this encoding; protobuf falls
    /// back (or 406s) when it cannot carry the value.
    #[must_use]
    pub fn reply(
        &self,
        kind: &KindSpec,
        code: u16,
        value: &Value,
        warnings: &[String],
    ) -> Response<Body> {
        let Encoding::Protobuf(p) = self.encoding else {
            return self.object(code, value, warnings);
        };
        if protobuf::is_status(value) {
            return self.untyped(p, code, value, warnings);
        }
        match protobuf::value(kind, value) {
            Ok(bytes) => self.bytes_warned(code, bytes, warnings),
            Err(e) => match self.fallback(&e) {
                Ok(w) => w.object(code, value, warnings),
                Err(e) => self.error(&e),
            },
        }
    }

    /// An object of a message type that is not a kind of the registry (a
    /// Scale) in this encoding, protobuf by `message`'s field numbers.
    #[must_use]
    pub fn typed(
        &self,
        message: &crate::api::schema::Schema,
        code: u16,
        value: &Value,
        warnings: &[String],
    ) -> Response<Body> {
        let Encoding::Protobuf(p) = self.encoding else {
            return self.object(code, value, warnings);
        };
        match schema::encode_object(message, value) {
            Ok(bytes) => self.bytes_warned(code, bytes, warnings),
            Err(_) => self.untyped(p, code, value, warnings),
        }
    }

    fn bytes_warned(&self, code: u16, bytes: Vec<u8>, warnings: &[String]) -> Response<Body> {
        let mut resp = self.bytes(code, bytes);
        add_warnings(&mut resp, warnings);
        resp
    }

    /// A stored object in protobuf; `Err` (not acceptable) when protobuf
    /// cannot carry it.
    pub fn protobuf_stored(
        &self,
        kind: &KindSpec,
        kv: &KeyValue,
    ) -> Result<Response<Body>, ApiError> {
        Ok(self.bytes(200, protobuf::stored(kind, kv)?))
    }

    /// A page of stored objects as a streamed protobuf `<Kind>List`; `Err`
    /// (not acceptable) when protobuf cannot carry one of them.
    pub fn protobuf_list(
        &self,
        kind: &KindSpec,
        page: &RawPage,
    ) -> Result<Response<Body>, ApiError> {
        Ok(self.stream(protobuf::stored_list(kind, page)?.boxed()))
    }

    /// The error as a `Status` (plain text for unknown paths, as Kubernetes).
    #[must_use]
    pub fn error(&self, err: &ApiError) -> Response<Body> {
        if matches!(err, ApiError::PathNotFound) {
            return text(404, "404 page not found\n");
        }
        if let ApiError::FilterFailed { .. } = err {
            // Go's http.Error after kube's HTML-escaping sanitizer.
            let escaped = err
                .to_string()
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;");
            return text(500, &format!("{escaped}\n"));
        }
        let status = err.status();
        let mut resp = self.object(err.code(), &status, &[]);
        resp.extensions_mut().insert(SentStatus(status));
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
