//! The stored form of a KMS v2 value: `k8s:enc:kms:v2:<name>:` followed by
//! a protobuf `EncryptedObject` holding the sealed value and the wrapped
//! DEK source it was sealed under. `WriteState` is this start's DEK source
//! (a seed wrapped once by the plugin's Encrypt) with everything a write
//! needs precomputed, so a write costs no plugin call.

use std::time::Instant;

use prost::Message;
use prost::encoding::{WireType, encode_key, encode_varint};

use super::cache::{CacheKey, cache_key};
use super::proto::{
    DekSourceType, EncryptResponse, EncryptedObject, validate_annotations,
    validate_encrypted_dek_source, validate_encrypted_object, validate_key_id,
};
use super::seal::Dek;
use std::sync::Arc;

/// The prefix of values a provider named `name` writes.
#[must_use]
pub fn prefix(name: &str) -> Vec<u8> {
    format!("k8s:enc:kms:v2:{name}:").into_bytes()
}

/// The DEK source new writes use, as the plugin wrapped it.
pub struct WriteState {
    pub dek: Arc<Dek>,
    pub key_id: String,
    pub source_type: DekSourceType,
    pub cache_key: CacheKey,
    /// Writes stop after this unless a Status confirms the key id again.
    pub expires: parking_lot::Mutex<Instant>,
    /// The `EncryptedObject` fields after `encryptedData`, encoded once:
    /// field 1 is written first, so a value is prefix ‖ field 1 ‖ this.
    encoded_tail: Vec<u8>,
}

impl WriteState {
    /// The state for a seed the plugin's Encrypt answered `reply` for.
    pub fn new(dek: Dek, reply: EncryptResponse, expires: Instant) -> Result<WriteState, String> {
        validate_key_id(&reply.key_id).map_err(|e| format!("failed to validate key id: {e}"))?;
        validate_encrypted_dek_source(&reply.ciphertext)
            .map_err(|e| format!("failed to validate encrypted DEK source: {e}"))?;
        validate_annotations(&reply.annotations)
            .map_err(|e| format!("failed to validate annotations: {e}"))?;
        let source_type = DekSourceType::HkdfSha256XnonceAesGcmSeed;
        let object = EncryptedObject {
            encrypted_data: Vec::new(),
            key_id: reply.key_id,
            encrypted_dek_source: reply.ciphertext,
            annotations: reply.annotations,
            encrypted_dek_source_type: source_type as i32,
        };
        Ok(WriteState {
            dek: Arc::new(dek),
            cache_key: cache_key(
                source_type,
                &object.encrypted_dek_source,
                &object.key_id,
                &object.annotations,
            ),
            encoded_tail: object.encode_to_vec(),
            key_id: object.key_id,
            source_type,
            expires: parking_lot::Mutex::new(expires),
        })
    }

    /// Whether writes may still use this state.
    pub fn check_writable(&self) -> Result<(), String> {
        if Instant::now() > *self.expires.lock() {
            return Err(format!(
                "encryptedDEKSource with keyID hash {:?} expired: the plugin has not confirmed its key for too long",
                key_id_hash(&self.key_id)
            ));
        }
        Ok(())
    }

    /// The stored form of `plain` under storage key `key`.
    pub fn seal(&self, prefix: &[u8], key: &[u8], plain: &[u8]) -> Result<Vec<u8>, String> {
        let sealed_len = self.dek.sealed_len(plain.len());
        let mut out = Vec::with_capacity(prefix.len() + 11 + sealed_len + self.encoded_tail.len());
        out.extend_from_slice(prefix);
        encode_key(1, WireType::LengthDelimited, &mut out);
        encode_varint(sealed_len as u64, &mut out);
        self.dek.seal_into(key, plain, &mut out)?;
        out.extend_from_slice(&self.encoded_tail);
        Ok(out)
    }
}

/// A stored value taken apart: its `EncryptedObject`, checked.
pub fn parse(prefix: &[u8], stored: &[u8]) -> Result<(EncryptedObject, DekSourceType), String> {
    let body = stored
        .strip_prefix(prefix)
        .ok_or("the value does not carry this provider's prefix")?;
    let object = EncryptedObject::decode(body)
        .map_err(|e| format!("failed to decode the encrypted object: {e}"))?;
    let source_type = validate_encrypted_object(&object)?;
    Ok((object, source_type))
}

/// How Kubernetes names a key id in messages: by its digest.
#[must_use]
pub fn key_id_hash(key_id: &str) -> String {
    if key_id.is_empty() {
        return String::new();
    }
    let digest = ring::digest::digest(&ring::digest::SHA256, key_id.as_bytes());
    let hex: String = digest.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::time::Duration;

    fn state() -> WriteState {
        let (_, dek) = Dek::generate_seed().unwrap();
        let reply = EncryptResponse {
            ciphertext: b"wrapped seed".to_vec(),
            key_id: "key-1".into(),
            annotations: BTreeMap::from([("kms.example.com".to_string(), b"v".to_vec())]),
        };
        WriteState::new(dek, reply, Instant::now() + Duration::from_secs(60)).unwrap()
    }

    #[test]
    fn sealed_values_decode_as_the_encrypted_object_kubernetes_stores() {
        let state = state();
        let stored = state
            .seal(&prefix("p"), b"/registry/secrets/a/b", b"secret value")
            .unwrap();
        assert!(stored.starts_with(b"k8s:enc:kms:v2:p:"));
        let (object, source_type) = parse(&prefix("p"), &stored).unwrap();
        assert_eq!(source_type, DekSourceType::HkdfSha256XnonceAesGcmSeed);
        assert_eq!(object.key_id, "key-1");
        assert_eq!(object.encrypted_dek_source, b"wrapped seed");
        assert_eq!(object.annotations["kms.example.com"], b"v");
        // Field order as protobuf encoders write it: the tail is plain re-encoding.
        assert_eq!(&stored[prefix("p").len()..], &object.encode_to_vec()[..]);
        let plain = state
            .dek
            .open(b"/registry/secrets/a/b", &object.encrypted_data)
            .unwrap();
        assert_eq!(plain, b"secret value");
    }

    #[test]
    fn foreign_and_damaged_values_are_refused() {
        let state = state();
        let stored = state.seal(&prefix("p"), b"k", b"v").unwrap();
        assert!(parse(&prefix("q"), &stored).unwrap_err().contains("prefix"));
        let cut = &stored[..stored.len() - 3];
        assert!(parse(&prefix("p"), cut).is_err());
    }

    #[test]
    fn encrypt_replies_are_checked() {
        let (_, dek) = Dek::generate_seed().unwrap();
        let reply = EncryptResponse {
            ciphertext: Vec::new(),
            key_id: "k".into(),
            annotations: BTreeMap::new(),
        };
        let err = WriteState::new(dek, reply, Instant::now()).err().unwrap();
        assert!(err.contains("encrypted DEK source is empty"), "{err}");
    }

    #[test]
    fn expired_states_refuse_writes() {
        let state = state();
        assert!(state.check_writable().is_ok());
        *state.expires.lock() = Instant::now() - Duration::from_secs(1);
        assert!(state.check_writable().unwrap_err().contains("expired"));
        assert!(key_id_hash("key-1").starts_with("sha256:"));
    }
}
