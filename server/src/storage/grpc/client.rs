//! The client: one HTTP/2 connection carries every call (a dead one, or one
//! whose server answered unavailable, is replaced on the next call by a
//! connection to the next endpoint that answers); unary calls are bounded by the client's
//! timeout, connecting included; streaming calls are bounded until their
//! answer starts and then live as long as their caller keeps them.

use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::client::conn::http2::SendRequest;
use tokio::sync::mpsc;

use super::body::RequestBody;
use super::status::{
    DEADLINE_EXCEEDED, INTERNAL, RpcError, UNAVAILABLE, UNKNOWN, encode_frame, status_of,
    take_frame,
};
use super::transport::Transport;

/// A gRPC client of one server (or one list of equivalent endpoints).
pub struct GrpcClient {
    transport: Transport,
    timeout: Duration,
    /// The live connection: taken only for a moment, never across an await.
    connection: parking_lot::Mutex<Option<Live>>,
    /// Held while connecting, so that one caller connects and the others
    /// wait for its connection.
    connecting: tokio::sync::Mutex<()>,
    /// Counts connections, so a failure on an old one leaves a new one be.
    connections: AtomicU64,
    /// Where the next connection starts looking.
    next_endpoint: AtomicUsize,
}

/// The connection calls go over.
struct Live {
    sender: SendRequest<RequestBody>,
    /// Which endpoint it reaches.
    endpoint: usize,
    /// Its number in `connections`.
    generation: u64,
}

impl GrpcClient {
    /// A client that connects on its first call.
    pub fn new(transport: Transport, timeout: Duration) -> GrpcClient {
        GrpcClient {
            transport,
            timeout,
            connection: parking_lot::Mutex::new(None),
            connecting: tokio::sync::Mutex::new(()),
            connections: AtomicU64::new(0),
            next_endpoint: AtomicUsize::new(0),
        }
    }

    /// Calls `service`/`method`, a read that may safely run twice, and when
    /// the server proves unavailable calls it once more over a new
    /// connection (the next endpoint), as etcd's client repeats reads.
    pub async fn call_repeatable<Req, Resp>(
        &self,
        service: &str,
        method: &str,
        request: &Req,
    ) -> Result<Resp, RpcError>
    where
        Req: prost::Message,
        Resp: prost::Message + Default,
    {
        match self.call(service, method, request).await {
            Err(e) if e.code == UNAVAILABLE => self.call(service, method, request).await,
            outcome => outcome,
        }
    }

    /// Calls `service`/`method` with `request`, within the timeout. Must run
    /// inside a tokio runtime (the connection's task is spawned on it).
    pub async fn call<Req, Resp>(
        &self,
        service: &str,
        method: &str,
        request: &Req,
    ) -> Result<Resp, RpcError>
    where
        Req: prost::Message,
        Resp: prost::Message + Default,
    {
        let used = AtomicU64::new(0);
        let call = async {
            let body = RequestBody::Once(Some(encode_frame(request)?));
            let (response, generation) = self.send(service, method, &[], body).await?;
            used.store(generation, Ordering::Relaxed);
            let mut messages = ResponseStream::<Resp>::new(response, generation)?;
            match messages.message().await? {
                Some(message) => {
                    // The trailers carry the call's status.
                    messages.message().await?;
                    Ok(message)
                }
                None => Err(RpcError::new(INTERNAL, "grpc: no response message")),
            }
        };
        let outcome = tokio::time::timeout(self.timeout, call)
            .await
            .unwrap_or_else(|_| Err(deadline_exceeded()));
        if let Err(e) = &outcome
            && e.code == UNAVAILABLE
        {
            self.abandon(used.load(Ordering::Relaxed));
        }
        outcome
    }

    /// Gives up the connection numbered `generation` after a call over it
    /// found the server unavailable (unreachable, or a member without a
    /// leader): the next call connects again, from the next endpoint, so a
    /// client of a cluster moves off a member that cannot serve. Streams
    /// still open on it end.
    pub fn abandon(&self, generation: u64) {
        let mut connection = self.connection.lock();
        if connection
            .as_ref()
            .is_some_and(|live| live.generation == generation)
            && let Some(live) = connection.take()
        {
            tracing::debug!(
                endpoint = live.endpoint,
                "leaving an unavailable gRPC server"
            );
            self.next_endpoint
                .store(live.endpoint + 1, Ordering::Relaxed);
        }
    }

    /// Opens a streaming call whose first request is `first`, with the
    /// request metadata `metadata`; later requests go through the returned
    /// sender, and the call ends when the stream is dropped (the sender too:
    /// a server may end the call when the client's side ends).
    pub async fn open_stream<Req, Resp>(
        &self,
        service: &str,
        method: &str,
        metadata: &[(&'static str, &'static str)],
        first: &Req,
    ) -> Result<(mpsc::Sender<Bytes>, ResponseStream<Resp>), RpcError>
    where
        Req: prost::Message,
        Resp: prost::Message + Default,
    {
        let (requests, outgoing) = mpsc::channel(8);
        requests
            .try_send(encode_frame(first)?)
            .map_err(|_| RpcError::new(INTERNAL, "the request channel is closed"))?;
        let open = self.send(service, method, metadata, RequestBody::Stream(outgoing));
        let (response, generation) = tokio::time::timeout(self.timeout, open)
            .await
            .unwrap_or_else(|_| Err(deadline_exceeded()))?;
        match ResponseStream::new(response, generation) {
            Ok(stream) => Ok((requests, stream)),
            Err(e) => {
                // Refused at once (etcd: a member without a leader): the
                // next attempt goes to another endpoint.
                if e.code == UNAVAILABLE {
                    self.abandon(generation);
                }
                Err(e)
            }
        }
    }

    async fn send(
        &self,
        service: &str,
        method: &str,
        metadata: &[(&'static str, &'static str)],
        body: RequestBody,
    ) -> Result<(http::Response<Incoming>, u64), RpcError> {
        let (mut sender, generation) = self.ready_sender().await?;
        let millis = self.timeout.as_millis().clamp(1, 99_999_999);
        let mut request = http::Request::post(format!(
            "http://{}/{service}/{method}",
            self.transport.authority()
        ))
        .header(http::header::CONTENT_TYPE, "application/grpc")
        .header(http::header::TE, "trailers")
        .header(http::header::USER_AGENT, "cairn-apiserver grpc");
        if matches!(body, RequestBody::Once(_)) {
            // gRPC allows at most eight digits of milliseconds.
            request = request.header("grpc-timeout", format!("{millis}m"));
        }
        for (name, value) in metadata {
            request = request.header(*name, *value);
        }
        let request = request
            .body(body)
            .map_err(|e| RpcError::new(INTERNAL, e.to_string()))?;
        match sender.send_request(request).await {
            Ok(response) => Ok((response, generation)),
            Err(e) => {
                self.abandon(generation);
                Err(RpcError::new(
                    UNAVAILABLE,
                    format!("error reading from server: {e}"),
                ))
            }
        }
    }

    /// The live connection's sender and number, connecting when there is
    /// none or the old one died (the server restarted).
    async fn ready_sender(&self) -> Result<(SendRequest<RequestBody>, u64), RpcError> {
        if let Some(live) = self.live() {
            return Ok(live);
        }
        let _connecting = self.connecting.lock().await;
        // Another caller may have connected while this one waited.
        if let Some(live) = self.live() {
            return Ok(live);
        }
        let start = match self.connection.lock().take() {
            // The server hung up: try the others first.
            Some(dead) => dead.endpoint + 1,
            None => self.next_endpoint.load(Ordering::Relaxed),
        };
        let (sender, endpoint) = self.transport.connect(start).await?;
        let generation = self.connections.fetch_add(1, Ordering::Relaxed) + 1;
        *self.connection.lock() = Some(Live {
            sender: sender.clone(),
            endpoint,
            generation,
        });
        Ok((sender, generation))
    }

    /// The live connection's sender and number, unless it closed.
    fn live(&self) -> Option<(SendRequest<RequestBody>, u64)> {
        let connection = self.connection.lock();
        let live = connection.as_ref().filter(|l| !l.sender.is_closed())?;
        Some((live.sender.clone(), live.generation))
    }
}

fn deadline_exceeded() -> RpcError {
    RpcError::new(DEADLINE_EXCEEDED, "context deadline exceeded")
}

/// The messages of a call's answer, then its status.
pub struct ResponseStream<Resp> {
    /// The number of the connection it came over (for `abandon`).
    pub connection: u64,
    body: Option<Incoming>,
    buffer: BytesMut,
    _message: PhantomData<fn() -> Resp>,
}

impl<Resp: prost::Message + Default> ResponseStream<Resp> {
    fn new(
        response: http::Response<Incoming>,
        connection: u64,
    ) -> Result<ResponseStream<Resp>, RpcError> {
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
            return Err(
                status.unwrap_or_else(|| RpcError::new(INTERNAL, "empty error with OK status"))
            );
        }
        Ok(ResponseStream {
            connection,
            body: Some(response.into_body()),
            buffer: BytesMut::new(),
            _message: PhantomData,
        })
    }

    /// The next message; `None` once the call ended with status OK.
    /// Cancel-safe: a partly received message stays buffered.
    pub async fn message(&mut self) -> Result<Option<Resp>, RpcError> {
        loop {
            if let Some(message) = take_frame(&mut self.buffer)? {
                return Ok(Some(message));
            }
            let Some(body) = self.body.as_mut() else {
                return Ok(None);
            };
            let frame = match body.frame().await {
                Some(Ok(frame)) => frame,
                Some(Err(e)) => {
                    self.body = None;
                    return Err(RpcError::new(
                        UNAVAILABLE,
                        format!("error reading from server: {e}"),
                    ));
                }
                None => {
                    self.body = None;
                    return Err(RpcError::new(
                        INTERNAL,
                        "server closed the stream without sending trailers",
                    ));
                }
            };
            match frame.into_data() {
                Ok(data) => self.buffer.extend_from_slice(&data),
                Err(frame) => {
                    self.body = None;
                    let trailers = frame.into_trailers().unwrap_or_default();
                    return match status_of(&trailers) {
                        None => Err(RpcError::new(
                            INTERNAL,
                            "server closed the stream without sending trailers",
                        )),
                        Some(Some(error)) => Err(error),
                        Some(None) if self.buffer.is_empty() => Ok(None),
                        Some(None) => Err(RpcError::new(INTERNAL, "grpc: truncated message")),
                    };
                }
            }
        }
    }
}
