//! Response compression (`Accept-Encoding: gzip`, gate
//! `APIResponseCompression`): bodies above 128 KiB are gzipped, as
//! Kubernetes does; smaller ones are not worth the CPU. Watch streams are
//! never compressed (their handler marks them `Uncompressed`): a client
//! must see each event when it is sent.

use std::convert::Infallible;
use std::io::Write;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use flate2::Compression;
use flate2::write::GzEncoder;
use http::{HeaderValue, Request, Response, header};
use http_body::{Body as HttpBody, Frame, SizeHint};
use http_body_util::BodyExt;

use crate::config::Config;
use crate::http::body::{Body, full};

/// Bodies larger than this are compressed.
pub const THRESHOLD: usize = 128 * 1024;

/// Response extension: never compress this response (streams).
#[derive(Clone, Copy, Debug)]
pub struct Uncompressed;

/// Whether a request's answer may be gzipped: the client accepts gzip and
/// the gate is on.
#[must_use]
pub fn wanted<B>(req: &Request<B>, config: &Config) -> bool {
    config.feature_gates.enabled("APIResponseCompression")
        && req
            .headers()
            .get_all(header::ACCEPT_ENCODING)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .any(accepts_gzip)
}

fn accepts_gzip(header: &str) -> bool {
    header.split(',').any(|coding| {
        let mut parts = coding.split(';').map(str::trim);
        let name = parts.next().unwrap_or("");
        let q_zero = parts.any(|p| {
            p.strip_prefix("q=")
                .is_some_and(|q| q.parse::<f32>().is_ok_and(|q| q <= 0.0))
        });
        name.eq_ignore_ascii_case("gzip") && !q_zero
    })
}

/// `resp`, gzipped when `wanted` and its body exceeds the threshold. The
/// body is read only until the threshold is passed; the rest streams
/// through the encoder.
pub async fn apply(resp: Response<Body>, wanted: bool) -> Response<Body> {
    if !wanted
        || resp.extensions().get::<Uncompressed>().is_some()
        || resp.headers().contains_key(header::CONTENT_ENCODING)
        || resp
            .body()
            .size_hint()
            .upper()
            .is_some_and(|n| n <= THRESHOLD as u64)
    {
        return resp;
    }
    let (mut parts, mut body) = resp.into_parts();
    let mut head = Vec::new();
    while head.len() <= THRESHOLD {
        match body.frame().await {
            Some(Ok(frame)) => {
                if let Ok(data) = frame.into_data() {
                    head.extend_from_slice(&data);
                }
            }
            _ => return Response::from_parts(parts, full(head)),
        }
    }
    parts.headers.remove(header::CONTENT_LENGTH);
    parts
        .headers
        .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    parts
        .headers
        .append(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    // Kubernetes favours speed over ratio here too.
    let mut encoder = GzEncoder::new(Vec::with_capacity(head.len() / 4), Compression::fast());
    encoder
        .write_all(&head)
        .expect("writing to memory cannot fail");
    let gz = Gzip {
        inner: body,
        encoder: Some(encoder),
    };
    Response::from_parts(parts, gz.boxed())
}

struct Gzip {
    inner: Body,
    encoder: Option<GzEncoder<Vec<u8>>>,
}

impl HttpBody for Gzip {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = &mut *self;
        loop {
            let Some(encoder) = this.encoder.as_mut() else {
                return Poll::Ready(None);
            };
            match Pin::new(&mut this.inner).poll_frame(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Ok(frame))) => {
                    if let Ok(data) = frame.into_data() {
                        encoder
                            .write_all(&data)
                            .expect("writing to memory cannot fail");
                    }
                    let out = std::mem::take(encoder.get_mut());
                    if !out.is_empty() {
                        return Poll::Ready(Some(Ok(Frame::data(out.into()))));
                    }
                }
                Poll::Ready(_) => {
                    let encoder = this.encoder.take().expect("checked above");
                    let out = encoder.finish().expect("writing to memory cannot fail");
                    return Poll::Ready(Some(Ok(Frame::data(out.into()))));
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.encoder.is_none()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use flate2::read::GzDecoder;

    use super::*;

    async fn body_bytes(resp: Response<Body>) -> Vec<u8> {
        resp.into_body()
            .collect()
            .await
            .expect("infallible")
            .to_bytes()
            .to_vec()
    }

    #[tokio::test]
    async fn large_bodies_only() {
        let big: Vec<u8> = (0..THRESHOLD * 2).map(|i| b'a' + (i % 7) as u8).collect();
        let resp = apply(Response::new(full(big.clone())), true).await;
        assert_eq!(resp.headers()[header::CONTENT_ENCODING], "gzip");
        assert_eq!(resp.headers()[header::VARY], "Accept-Encoding");
        let gz = body_bytes(resp).await;
        assert!(gz.len() < big.len() / 10);
        let mut plain = Vec::new();
        GzDecoder::new(gz.as_slice())
            .read_to_end(&mut plain)
            .expect("gzip");
        assert_eq!(plain, big);

        let small = apply(Response::new(full(vec![b'x'; 1000])), true).await;
        assert!(!small.headers().contains_key(header::CONTENT_ENCODING));
        let not_wanted = apply(Response::new(full(big.clone())), false).await;
        assert!(!not_wanted.headers().contains_key(header::CONTENT_ENCODING));
        let mut stream = Response::new(full(big));
        stream.extensions_mut().insert(Uncompressed);
        assert!(
            !apply(stream, true)
                .await
                .headers()
                .contains_key(header::CONTENT_ENCODING)
        );
    }

    #[test]
    fn accept_encoding() {
        assert!(accepts_gzip("gzip"));
        assert!(accepts_gzip("deflate, gzip;q=0.5"));
        assert!(!accepts_gzip("gzip;q=0"));
        assert!(!accepts_gzip("identity"));
    }
}
