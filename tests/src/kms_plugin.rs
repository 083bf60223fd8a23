//! A KMS v2 plugin for tests: a real gRPC server (HTTP/2 through hyper) on
//! a unix socket serving `v2.KeyManagementService` — Status, Encrypt and
//! Decrypt — wrapping with AES-256-GCM under per-key-id keys it keeps (old
//! key ids stay decryptable after a rotation, as a real KMS's do). It counts
//! calls and can be told to hang, to report itself unhealthy, to rotate its
//! key id, and to stop and start serving again on the same socket.
//!
//! Its protobuf messages are written here independently of the server's,
//! so the two sides check each other. It runs on its own runtime, usable
//! from plain and async tests alike (the server's unit tests include this
//! file too).

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::{Buf, BufMut, Bytes, BytesMut};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use prost::Message;
use ring::aead;

#[derive(Clone, PartialEq, prost::Message)]
struct StatusResponse {
    #[prost(string, tag = "1")]
    version: String,
    #[prost(string, tag = "2")]
    healthz: String,
    #[prost(string, tag = "3")]
    key_id: String,
}

#[derive(Clone, PartialEq, prost::Message)]
struct EncryptRequest {
    #[prost(bytes = "vec", tag = "1")]
    plaintext: Vec<u8>,
    #[prost(string, tag = "2")]
    uid: String,
}

#[derive(Clone, PartialEq, prost::Message)]
struct EncryptResponse {
    #[prost(bytes = "vec", tag = "1")]
    ciphertext: Vec<u8>,
    #[prost(string, tag = "2")]
    key_id: String,
    #[prost(btree_map = "string, bytes", tag = "3")]
    annotations: BTreeMap<String, Vec<u8>>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct DecryptRequest {
    #[prost(bytes = "vec", tag = "1")]
    ciphertext: Vec<u8>,
    #[prost(string, tag = "2")]
    uid: String,
    #[prost(string, tag = "3")]
    key_id: String,
    #[prost(btree_map = "string, bytes", tag = "4")]
    annotations: BTreeMap<String, Vec<u8>>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct DecryptResponse {
    #[prost(bytes = "vec", tag = "1")]
    plaintext: Vec<u8>,
}

/// The annotation Encrypt attaches (and Decrypt expects back).
pub const ANNOTATION: &str = "version.kms.cairn.test";

/// What the plugin knows and how it behaves; shared with its handlers.
struct State {
    /// Key-encryption keys by key id; the last one is current.
    keys: parking_lot::Mutex<Vec<(String, aead::LessSafeKey)>>,
    healthz: parking_lot::Mutex<String>,
    hang: tokio::sync::watch::Sender<bool>,
    status_calls: AtomicUsize,
    encrypt_calls: AtomicUsize,
    decrypt_calls: AtomicUsize,
}

/// A running test plugin. Dropping it stops it and removes its socket.
pub struct KmsPlugin {
    socket: PathBuf,
    state: Arc<State>,
    runtime: Option<tokio::runtime::Runtime>,
}

/// A gRPC answer (also the OTLP collector's).
pub type Reply = http::Response<
    http_body_util::combinators::WithTrailers<
        Full<Bytes>,
        std::future::Ready<Option<Result<http::HeaderMap, Infallible>>>,
    >,
>;

impl KmsPlugin {
    /// Serves at `socket` (which must not exist) with one key, `key-1`.
    #[must_use]
    pub fn start(socket: &Path) -> KmsPlugin {
        let state = Arc::new(State {
            keys: parking_lot::Mutex::new(vec![("key-1".to_string(), new_key())]),
            healthz: parking_lot::Mutex::new("ok".into()),
            hang: tokio::sync::watch::channel(false).0,
            status_calls: AtomicUsize::new(0),
            encrypt_calls: AtomicUsize::new(0),
            decrypt_calls: AtomicUsize::new(0),
        });
        let mut plugin = KmsPlugin {
            socket: socket.to_path_buf(),
            state,
            runtime: None,
        };
        plugin.resume();
        plugin
    }

    /// The `endpoint` of an EncryptionConfiguration naming this plugin.
    #[must_use]
    pub fn endpoint(&self) -> String {
        format!("unix://{}", self.socket.display())
    }

    /// Calls served so far, by method.
    #[must_use]
    pub fn status_calls(&self) -> usize {
        self.state.status_calls.load(Ordering::SeqCst)
    }
    #[must_use]
    pub fn encrypt_calls(&self) -> usize {
        self.state.encrypt_calls.load(Ordering::SeqCst)
    }
    #[must_use]
    pub fn decrypt_calls(&self) -> usize {
        self.state.decrypt_calls.load(Ordering::SeqCst)
    }

    /// Makes every call (from now on, and those waiting) hang, or not.
    pub fn hang(&self, hang: bool) {
        self.state.hang.send_replace(hang);
    }

    /// What Status reports as `healthz` (`ok` is healthy).
    pub fn set_healthz(&self, healthz: &str) {
        *self.state.healthz.lock() = healthz.to_string();
    }

    /// The current key id.
    #[must_use]
    pub fn key_id(&self) -> String {
        self.state.keys.lock().last().expect("a key").0.clone()
    }

    /// Moves to a new key (`key-<n>`), keeping the old ones for Decrypt;
    /// returns the new key id.
    pub fn rotate_key(&self) -> String {
        let mut keys = self.state.keys.lock();
        let id = format!("key-{}", keys.len() + 1);
        keys.push((id.clone(), new_key()));
        id
    }

    /// Stops serving: open connections are cut and the socket removed.
    pub fn stop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
        let _ = std::fs::remove_file(&self.socket);
    }

    /// Serves again on the same socket, with the same keys.
    pub fn resume(&mut self) {
        self.stop();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("plugin runtime");
        let listener = {
            let _entered = runtime.enter();
            tokio::net::UnixListener::bind(&self.socket).expect("bind the plugin socket")
        };
        let state = Arc::clone(&self.state);
        runtime.spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let state = Arc::clone(&state);
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request| {
                        let state = Arc::clone(&state);
                        async move { Ok::<_, Infallible>(serve(&state, request).await) }
                    });
                    let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        self.runtime = Some(runtime);
    }
}

impl Drop for KmsPlugin {
    fn drop(&mut self) {
        self.stop();
    }
}

fn new_key() -> aead::LessSafeKey {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("random key");
    aead::LessSafeKey::new(aead::UnboundKey::new(&aead::AES_256_GCM, &bytes).expect("key"))
}

async fn serve(state: &State, request: http::Request<hyper::body::Incoming>) -> Reply {
    let mut hang = state.hang.subscribe();
    let _ = hang.wait_for(|hang| !*hang).await;
    let method = request.uri().path().to_string();
    let Ok(body) = request.into_body().collect().await.map(|b| b.to_bytes()) else {
        return failure(13, "cannot read the request");
    };
    let Some(message) = unframe(body) else {
        return failure(13, "malformed request frame");
    };
    match method.as_str() {
        "/v2.KeyManagementService/Status" => {
            state.status_calls.fetch_add(1, Ordering::SeqCst);
            let key_id = state.keys.lock().last().expect("a key").0.clone();
            success(&StatusResponse {
                version: "v2".into(),
                healthz: state.healthz.lock().clone(),
                key_id,
            })
        }
        "/v2.KeyManagementService/Encrypt" => {
            state.encrypt_calls.fetch_add(1, Ordering::SeqCst);
            let Ok(request) = EncryptRequest::decode(message) else {
                return failure(3, "malformed EncryptRequest");
            };
            let keys = state.keys.lock();
            let (key_id, key) = keys.last().expect("a key");
            success(&EncryptResponse {
                ciphertext: wrap(key, key_id, &request.plaintext),
                key_id: key_id.clone(),
                annotations: BTreeMap::from([(ANNOTATION.to_string(), b"1".to_vec())]),
            })
        }
        "/v2.KeyManagementService/Decrypt" => {
            state.decrypt_calls.fetch_add(1, Ordering::SeqCst);
            let Ok(request) = DecryptRequest::decode(message) else {
                return failure(3, "malformed DecryptRequest");
            };
            if request.annotations.get(ANNOTATION).map(Vec::as_slice) != Some(b"1") {
                return failure(3, "the annotations Encrypt gave are missing");
            }
            let keys = state.keys.lock();
            let Some((_, key)) = keys.iter().find(|(id, _)| *id == request.key_id) else {
                return failure(5, &format!("no key {:?}", request.key_id));
            };
            match unwrap(key, &request.key_id, &request.ciphertext) {
                Some(plaintext) => success(&DecryptResponse { plaintext }),
                None => failure(3, "the ciphertext does not open"),
            }
        }
        _ => failure(12, &format!("unknown method {method}")),
    }
}

fn wrap(key: &aead::LessSafeKey, key_id: &str, plain: &[u8]) -> Vec<u8> {
    let mut nonce = [0u8; aead::NONCE_LEN];
    getrandom::fill(&mut nonce).expect("random nonce");
    let mut sealed = plain.to_vec();
    key.seal_in_place_append_tag(
        aead::Nonce::assume_unique_for_key(nonce),
        aead::Aad::from(key_id.as_bytes()),
        &mut sealed,
    )
    .expect("seal");
    let mut out = nonce.to_vec();
    out.extend_from_slice(&sealed);
    out
}

fn unwrap(key: &aead::LessSafeKey, key_id: &str, wrapped: &[u8]) -> Option<Vec<u8>> {
    if wrapped.len() < aead::NONCE_LEN {
        return None;
    }
    let (nonce, sealed) = wrapped.split_at(aead::NONCE_LEN);
    let nonce = aead::Nonce::try_assume_unique_for_key(nonce).ok()?;
    let mut buffer = sealed.to_vec();
    let plain = key
        .open_in_place(nonce, aead::Aad::from(key_id.as_bytes()), &mut buffer)
        .ok()?;
    Some(plain.to_vec())
}

/// The one message of a unary request's body.
pub fn unframe(mut body: Bytes) -> Option<Bytes> {
    if body.len() < 5 || body.get_u8() != 0 {
        return None;
    }
    let length = body.get_u32() as usize;
    (body.len() == length).then_some(body)
}

/// A unary answer: `message`, then status 0 in the trailers.
pub fn success(message: &impl Message) -> Reply {
    let mut body = BytesMut::with_capacity(5 + message.encoded_len());
    body.put_u8(0);
    body.put_u32(u32::try_from(message.encoded_len()).expect("small message"));
    message.encode(&mut body).expect("encode");
    let mut trailers = http::HeaderMap::new();
    trailers.insert("grpc-status", http::HeaderValue::from_static("0"));
    http::Response::builder()
        .header(http::header::CONTENT_TYPE, "application/grpc")
        .body(Full::new(body.freeze()).with_trailers(std::future::ready(Some(Ok(trailers)))))
        .expect("response")
}

/// A trailers-only answer: the status in the headers, no body.
fn failure(code: u32, message: &str) -> Reply {
    let encoded: String = message
        .bytes()
        .map(|b| {
            if (b.is_ascii_graphic() && b != b'%') || b == b' ' {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    http::Response::builder()
        .header(http::header::CONTENT_TYPE, "application/grpc")
        .header("grpc-status", code.to_string())
        .header("grpc-message", encoded)
        .body(Full::new(Bytes::new()).with_trailers(std::future::ready(None)))
        .expect("response")
}
