//! The protobuf messages of KMS v2: the plugin's `v2.KeyManagementService`
//! (k8s.io/kms/apis/v2) and the `EncryptedObject` stored after the prefix
//! (k8s.io/apiserver's kmsv2 envelope), with the checks Kubernetes applies
//! to what a plugin returns and what storage holds.

use std::collections::BTreeMap;

/// The gRPC service the plugin serves.
pub const SERVICE: &str = "v2.KeyManagementService";

/// `StatusRequest`: empty.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StatusRequest {}

/// `StatusResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StatusResponse {
    /// The plugin's API version: `v2` (or `v2beta1`).
    #[prost(string, tag = "1")]
    pub version: String,
    /// `ok` when healthy; anything else is the reason it is not.
    #[prost(string, tag = "2")]
    pub healthz: String,
    /// The key-encryption key new writes should be wrapped with.
    #[prost(string, tag = "3")]
    pub key_id: String,
}

/// `EncryptRequest`: wraps this start's seed.
#[derive(Clone, PartialEq, prost::Message)]
pub struct EncryptRequest {
    #[prost(bytes = "vec", tag = "1")]
    pub plaintext: Vec<u8>,
    #[prost(string, tag = "2")]
    pub uid: String,
}

/// `EncryptResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct EncryptResponse {
    #[prost(bytes = "vec", tag = "1")]
    pub ciphertext: Vec<u8>,
    #[prost(string, tag = "2")]
    pub key_id: String,
    #[prost(btree_map = "string, bytes", tag = "3")]
    pub annotations: BTreeMap<String, Vec<u8>>,
}

/// `DecryptRequest`: unwraps a stored seed (or key).
#[derive(Clone, PartialEq, prost::Message)]
pub struct DecryptRequest {
    #[prost(bytes = "vec", tag = "1")]
    pub ciphertext: Vec<u8>,
    #[prost(string, tag = "2")]
    pub uid: String,
    #[prost(string, tag = "3")]
    pub key_id: String,
    #[prost(btree_map = "string, bytes", tag = "4")]
    pub annotations: BTreeMap<String, Vec<u8>>,
}

/// `DecryptResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DecryptResponse {
    #[prost(bytes = "vec", tag = "1")]
    pub plaintext: Vec<u8>,
}

/// What the wrapped secret of an `EncryptedObject` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, prost::Enumeration)]
#[repr(i32)]
pub enum DekSourceType {
    /// An AES-GCM key used directly (Kubernetes before the KDF).
    AesGcmKey = 0,
    /// A seed; each value's key is HKDF-SHA256(seed, 32 random bytes).
    HkdfSha256XnonceAesGcmSeed = 1,
}

/// `EncryptedObject`: what follows `k8s:enc:kms:v2:<name>:` in storage.
#[derive(Clone, PartialEq, prost::Message)]
pub struct EncryptedObject {
    #[prost(bytes = "vec", tag = "1")]
    pub encrypted_data: Vec<u8>,
    #[prost(string, tag = "2")]
    pub key_id: String,
    #[prost(bytes = "vec", tag = "3")]
    pub encrypted_dek_source: Vec<u8>,
    #[prost(btree_map = "string, bytes", tag = "4")]
    pub annotations: BTreeMap<String, Vec<u8>>,
    #[prost(enumeration = "DekSourceType", tag = "5")]
    pub encrypted_dek_source_type: i32,
}

/// Largest key id and wrapped seed Kubernetes accepts.
const KEY_ID_MAX: usize = 1024;
const ENCRYPTED_DEK_SOURCE_MAX: usize = 1024;
/// Largest total of annotation keys and values.
const ANNOTATIONS_MAX: usize = 32 * 1024;

/// A key id as Status and Encrypt must return it.
pub fn validate_key_id(key_id: &str) -> Result<(), String> {
    if key_id.is_empty() {
        return Err("keyID is empty".into());
    }
    if key_id.len() > KEY_ID_MAX {
        return Err(format!(
            "keyID is {} bytes, which exceeds the max size of {KEY_ID_MAX}",
            key_id.len()
        ));
    }
    Ok(())
}

/// The wrapped seed as Encrypt must return it.
pub fn validate_encrypted_dek_source(source: &[u8]) -> Result<(), String> {
    if source.is_empty() {
        return Err("encrypted DEK source is empty".into());
    }
    if source.len() > ENCRYPTED_DEK_SOURCE_MAX {
        return Err(format!(
            "encrypted DEK source is {} bytes, which exceeds the max size of {ENCRYPTED_DEK_SOURCE_MAX}",
            source.len()
        ));
    }
    Ok(())
}

/// Annotations keyed by fully qualified domain names, 32 kB in all.
pub fn validate_annotations(annotations: &BTreeMap<String, Vec<u8>>) -> Result<(), String> {
    let mut total = 0usize;
    for (key, value) in annotations {
        if !is_fully_qualified_domain_name(key) {
            return Err(format!(
                "annotations: Invalid value: {key:?}: should be a domain with at least two segments separated by dots"
            ));
        }
        total += key.len() + value.len();
    }
    if total > ANNOTATIONS_MAX {
        return Err(format!(
            "total size of annotations is {total}, which exceeds the max size of {ANNOTATIONS_MAX}"
        ));
    }
    Ok(())
}

/// The checks Kubernetes makes of an `EncryptedObject` before using it.
pub fn validate_encrypted_object(object: &EncryptedObject) -> Result<DekSourceType, String> {
    let source_type = DekSourceType::try_from(object.encrypted_dek_source_type).map_err(|_| {
        format!(
            "unknown encryptedDEKSourceType: {}",
            object.encrypted_dek_source_type
        )
    })?;
    if object.encrypted_data.is_empty() {
        return Err("encrypted data is empty".into());
    }
    validate_encrypted_dek_source(&object.encrypted_dek_source)
        .map_err(|e| format!("failed to validate encrypted DEK source: {e}"))?;
    validate_key_id(&object.key_id).map_err(|e| format!("failed to validate key id: {e}"))?;
    validate_annotations(&object.annotations)
        .map_err(|e| format!("failed to validate annotations: {e}"))?;
    Ok(source_type)
}

/// RFC 1123 subdomain of at least two labels (a trailing dot allowed).
fn is_fully_qualified_domain_name(name: &str) -> bool {
    let name = name.strip_suffix('.').unwrap_or(name);
    if name.is_empty() || name.len() > 253 || !name.contains('.') {
        return false;
    }
    name.split('.').all(|label| {
        let bytes = label.as_bytes();
        !bytes.is_empty()
            && bytes.len() <= 63
            && bytes[0].is_ascii_alphanumeric()
            && bytes[bytes.len() - 1].is_ascii_alphanumeric()
            && bytes
                .iter()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    #[test]
    fn encrypted_object_fields_have_kubernetes_numbers() {
        let object = EncryptedObject {
            encrypted_data: vec![1],
            key_id: "k".into(),
            encrypted_dek_source: vec![2],
            annotations: BTreeMap::from([("a.b".to_string(), vec![3])]),
            encrypted_dek_source_type: DekSourceType::HkdfSha256XnonceAesGcmSeed as i32,
        };
        let bytes = object.encode_to_vec();
        // field 1 bytes, 2 string, 3 bytes, 4 map entry, 5 varint
        assert_eq!(&bytes[..6], &[0x0a, 1, 1, 0x12, 1, b'k']);
        assert_eq!(&bytes[6..9], &[0x1a, 1, 2]);
        assert_eq!(bytes[9], 0x22);
        assert_eq!(&bytes[bytes.len() - 2..], &[0x28, 1]);
        assert_eq!(
            validate_encrypted_object(&object),
            Ok(DekSourceType::HkdfSha256XnonceAesGcmSeed)
        );
    }

    #[test]
    fn invalid_objects_are_named() {
        let mut object = EncryptedObject {
            encrypted_data: vec![1],
            key_id: String::new(),
            encrypted_dek_source: vec![2],
            annotations: BTreeMap::new(),
            encrypted_dek_source_type: 1,
        };
        assert!(
            validate_encrypted_object(&object)
                .unwrap_err()
                .contains("keyID is empty")
        );
        object.key_id = "k".into();
        object.encrypted_dek_source_type = 7;
        assert!(
            validate_encrypted_object(&object)
                .unwrap_err()
                .contains("unknown encryptedDEKSourceType: 7")
        );
        object.encrypted_dek_source_type = 0;
        object.annotations.insert("nodots".into(), vec![]);
        assert!(
            validate_encrypted_object(&object)
                .unwrap_err()
                .contains("annotations")
        );
    }

    #[test]
    fn domain_names() {
        assert!(is_fully_qualified_domain_name("kms.example.com"));
        assert!(is_fully_qualified_domain_name("a.b."));
        assert!(!is_fully_qualified_domain_name("example"));
        assert!(!is_fully_qualified_domain_name("Upper.case"));
        assert!(!is_fully_qualified_domain_name("-a.b"));
        assert!(!is_fully_qualified_domain_name("a..b"));
    }
}
