//! A gRPC client of one KMS plugin over its unix socket: HTTP/2 through
//! hyper, length-prefixed protobuf messages, the status read from the
//! trailers (or from the headers of a trailers-only answer). One connection
//! carries every call; a dead one is replaced on the next call. Every call,
//! connecting included, is bounded by the provider's timeout.

use std::path::PathBuf;
use std::time::Duration;

use bytes::{Buf, BufMut, Bytes, BytesMut};
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http2::SendRequest;
use hyper_util::rt::{TokioExecutor, TokioIo};

use super::proto::SERVICE;

/// A failed call, worded as grpc-go words it (`rpc error: code = …`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RpcError {
    pub code: u32,
    pub message: String,
}

/// gRPC's status codes by number.
const CODE_NAMES: [&str; 17] = [
    "OK",
    "Canceled",
    "Unknown",
    "InvalidArgument",
    "DeadlineExceeded",
    "NotFound",
    "AlreadyExists",
    "PermissionDenied",
    "ResourceExhausted",
    "FailedPrecondition",
    "Aborted",
    "OutOfRange",
    "Unimplemented",
    "Internal",
    "Unavailable",
    "DataLoss",
    "Unauthenticated",
];
pub const UNKNOWN: u32 = 2;
pub const DEADLINE_EXCEEDED: u32 = 4;
pub const INTERNAL: u32 = 13;
pub const UNAVAILABLE: u32 = 14;

impl RpcError {
    fn new(code: u32, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match CODE_NAMES.get(self.code as usize) {
            Some(name) => write!(f, "rpc error: code = {name} desc = {}", self.message),
            None => write!(
                f,
                "rpc error: code = Code({}) desc = {}",
                self.code, self.message
            ),
        }
    }
}

/// The client of one plugin socket.
pub struct GrpcClient {
    socket: PathBuf,
    timeout: Duration,
    connection: tokio::sync::Mutex<Option<SendRequest<Full<Bytes>>>>,
}

impl GrpcClient {
    /// A client of the socket at `socket`; it connects on its first call.
    pub fn new(socket: PathBuf, timeout: Duration) -> GrpcClient {
        GrpcClient {
            socket,
            timeout,
            connection: tokio::sync::Mutex::new(None),
        }
    }

    /// Calls `method` of the plugin's service with `request`, within the
    /// timeout. Must run inside a tokio runtime (the connection's task is
    /// spawned on it).
    pub async fn call<Req, Resp>(&self, method: &str, request: &Req) -> Result<Resp, RpcError>
    where
        Req: prost::Message,
        Resp: prost::Message + Default,
    {
        match tokio::time::timeout(self.timeout, self.call_unbounded(method, request)).await {
            Ok(result) => result,
            Err(_) => Err(RpcError::new(
                DEADLINE_EXCEEDED,
                "context deadline exceeded",
            )),
        }
    }

    async fn call_unbounded<Req, Resp>(&self, method: &str, request: &Req) -> Result<Resp, RpcError>
    where
        Req: prost::Message,
        Resp: prost::Message + Default,
    {
        let mut sender = self.ready_sender().await?;
        let http_request = self.request(method, request)?;
        let response = match sender.send_request(http_request).await {
            Ok(response) => response,
            Err(e) => {
                self.forget_connection().await;
                return Err(RpcError::new(
                    UNAVAILABLE,
                    format!("error reading from server: {e}"),
                ));
            }
        };
        read_reply(response).await
    }

    fn request<Req: prost::Message>(
        &self,
        method: &str,
        request: &Req,
    ) -> Result<http::Request<Full<Bytes>>, RpcError> {
        let length = request.encoded_len();
        let mut body = BytesMut::with_capacity(5 + length);
        body.put_u8(0);
        body.put_u32(
            u32::try_from(length).map_err(|_| RpcError::new(INTERNAL, "message too large"))?,
        );
        request
            .encode(&mut body)
            .map_err(|e| RpcError::new(INTERNAL, format!("grpc: error while marshaling: {e}")))?;
        // gRPC allows at most eight digits of milliseconds.
        let millis = self.timeout.as_millis().clamp(1, 99_999_999);
        http::Request::post(format!("http://localhost/{SERVICE}/{method}"))
            .header(http::header::CONTENT_TYPE, "application/grpc")
            .header(http::header::TE, "trailers")
            .header("grpc-timeout", format!("{millis}m"))
            .header(http::header::USER_AGENT, "cairn-apiserver grpc")
            .body(Full::new(body.freeze()))
            .map_err(|e| RpcError::new(INTERNAL, e.to_string()))
    }

    /// The live connection's sender, connecting when there is none or the
    /// old one died (the plugin restarted).
    async fn ready_sender(&self) -> Result<SendRequest<Full<Bytes>>, RpcError> {
        let mut connection = self.connection.lock().await;
        if let Some(sender) = connection.as_mut()
            && sender.ready().await.is_ok()
        {
            return Ok(sender.clone());
        }
        *connection = None;
        let stream = tokio::net::UnixStream::connect(&self.socket)
            .await
            .map_err(|e| self.unavailable(&e.to_string()))?;
        let (mut sender, driver) =
            hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
                .await
                .map_err(|e| self.unavailable(&e.to_string()))?;
        tokio::spawn(async move {
            if let Err(e) = driver.await {
                tracing::debug!(error = %e, "KMS plugin connection closed");
            }
        });
        sender
            .ready()
            .await
            .map_err(|e| self.unavailable(&e.to_string()))?;
        *connection = Some(sender.clone());
        Ok(sender)
    }

    async fn forget_connection(&self) {
        *self.connection.lock().await = None;
    }

    fn unavailable(&self, why: &str) -> RpcError {
        RpcError::new(
            UNAVAILABLE,
            format!(
                "connection error: desc = \"transport: Error while dialing: dial unix {}: {why}\"",
                self.socket.display()
            ),
        )
    }
}

/// The message of a reply, or the status it carried.
async fn read_reply<Resp: prost::Message + Default>(
    response: http::Response<hyper::body::Incoming>,
) -> Result<Resp, RpcError> {
    if response.status() != http::StatusCode::OK {
        return Err(RpcError::new(
            UNKNOWN,
            format!(
                "unexpected HTTP status code received from server: {}",
                response.status().as_u16()
            ),
        ));
    }
    // A trailers-only answer puts the status in the headers.
    if let Some(status) = status_of(response.headers()) {
        return Err(status.unwrap_or_else(|| RpcError::new(INTERNAL, "empty error with OK status")));
    }
    let collected = response
        .into_body()
        .collect()
        .await
        .map_err(|e| RpcError::new(UNAVAILABLE, format!("error reading from server: {e}")))?;
    let trailers = collected.trailers().cloned().unwrap_or_default();
    match status_of(&trailers) {
        None => {
            return Err(RpcError::new(
                INTERNAL,
                "server closed the stream without sending trailers",
            ));
        }
        Some(Some(error)) => return Err(error),
        Some(None) => {}
    }
    decode_message(collected.to_bytes())
}

/// `None` without `grpc-status`; `Some(None)` for OK; `Some(Some(e))` for
/// a failure.
fn status_of(headers: &http::HeaderMap) -> Option<Option<RpcError>> {
    let code = headers.get("grpc-status")?;
    let code: u32 = match code.to_str().ok().and_then(|c| c.parse().ok()) {
        Some(code) => code,
        None => return Some(Some(RpcError::new(UNKNOWN, "malformed grpc-status"))),
    };
    if code == 0 {
        return Some(None);
    }
    let message = headers
        .get("grpc-message")
        .map(|m| percent_decode(m.as_bytes()))
        .unwrap_or_default();
    Some(Some(RpcError::new(code, message)))
}

fn decode_message<Resp: prost::Message + Default>(mut body: Bytes) -> Result<Resp, RpcError> {
    if body.len() < 5 {
        return Err(RpcError::new(INTERNAL, "grpc: no response message"));
    }
    let compressed = body.get_u8();
    let length = body.get_u32() as usize;
    if compressed != 0 {
        return Err(RpcError::new(
            INTERNAL,
            "grpc: compressed response not requested",
        ));
    }
    if body.len() < length {
        return Err(RpcError::new(INTERNAL, "grpc: truncated response message"));
    }
    Resp::decode(body.slice(..length)).map_err(|e| {
        RpcError::new(
            INTERNAL,
            format!("grpc: failed to unmarshal the received message: {e}"),
        )
    })
}

/// grpc-message is percent-encoded UTF-8.
fn percent_decode(raw: &[u8]) -> String {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if raw[i] == b'%'
            && i + 2 < raw.len()
            && let (Some(h), Some(l)) = (hex(raw[i + 1]), hex(raw[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(raw[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_percent_decoded() {
        assert_eq!(percent_decode(b"key%20not%20found%25"), "key not found%");
        assert_eq!(percent_decode(b"100%"), "100%");
    }

    #[test]
    fn errors_read_like_grpc_go() {
        let e = RpcError::new(DEADLINE_EXCEEDED, "context deadline exceeded");
        assert_eq!(
            e.to_string(),
            "rpc error: code = DeadlineExceeded desc = context deadline exceeded"
        );
    }

    #[test]
    fn status_headers() {
        let mut h = http::HeaderMap::new();
        assert_eq!(status_of(&h), None);
        h.insert("grpc-status", "0".parse().unwrap());
        assert_eq!(status_of(&h), Some(None));
        h.insert("grpc-status", "14".parse().unwrap());
        h.insert("grpc-message", "down%21".parse().unwrap());
        assert_eq!(
            status_of(&h),
            Some(Some(RpcError::new(UNAVAILABLE, "down!")))
        );
    }
}
