//! gRPC's status: the codes, the error a failed call reports (worded as
//! grpc-go words it), the status read from trailers or headers, and the
//! length-prefixed framing of messages.

use bytes::{Buf, BufMut, Bytes, BytesMut};

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
pub const OUT_OF_RANGE: u32 = 11;
pub const INTERNAL: u32 = 13;
pub const UNAVAILABLE: u32 = 14;

impl RpcError {
    pub fn new(code: u32, message: impl Into<String>) -> RpcError {
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

/// `None` without `grpc-status`; `Some(None)` for OK; `Some(Some(e))` for
/// a failure.
pub fn status_of(headers: &http::HeaderMap) -> Option<Option<RpcError>> {
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

/// `message` with gRPC's prefix: an uncompressed flag and its length.
pub fn encode_frame<Req: prost::Message>(message: &Req) -> Result<Bytes, RpcError> {
    let length = message.encoded_len();
    let mut body = BytesMut::with_capacity(5 + length);
    body.put_u8(0);
    body.put_u32(u32::try_from(length).map_err(|_| RpcError::new(INTERNAL, "message too large"))?);
    message
        .encode(&mut body)
        .map_err(|e| RpcError::new(INTERNAL, format!("grpc: error while marshaling: {e}")))?;
    Ok(body.freeze())
}

/// The first whole message in `buffer`, removed from it; `None` until one
/// has fully arrived.
pub fn take_frame<Resp: prost::Message + Default>(
    buffer: &mut BytesMut,
) -> Result<Option<Resp>, RpcError> {
    if buffer.len() < 5 {
        return Ok(None);
    }
    let compressed = buffer[0];
    let length = u32::from_be_bytes([buffer[1], buffer[2], buffer[3], buffer[4]]) as usize;
    if compressed != 0 {
        return Err(RpcError::new(
            INTERNAL,
            "grpc: compressed response not requested",
        ));
    }
    if buffer.len() < 5 + length {
        return Ok(None);
    }
    buffer.advance(5);
    let message = buffer.split_to(length).freeze();
    Resp::decode(message).map(Some).map_err(|e| {
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
    fn frames_round_trip_and_wait_for_whole_messages() {
        #[derive(Clone, PartialEq, prost::Message)]
        struct Note {
            #[prost(string, tag = "1")]
            text: String,
        }
        let frame = encode_frame(&Note { text: "hi".into() }).unwrap();
        assert_eq!(&frame[..5], &[0, 0, 0, 0, 4]);
        let mut buffer = BytesMut::from(&frame[..6]);
        assert_eq!(take_frame::<Note>(&mut buffer), Ok(None));
        buffer.extend_from_slice(&frame[6..]);
        buffer.extend_from_slice(&frame);
        assert_eq!(take_frame::<Note>(&mut buffer).unwrap().unwrap().text, "hi");
        assert_eq!(buffer.len(), frame.len(), "the next message stays");
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
