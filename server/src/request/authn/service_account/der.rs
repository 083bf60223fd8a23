//! Just enough DER to bring the key encodings PEM files hold (PKCS#1 RSA,
//! SEC1 EC, PKCS#8, SubjectPublicKeyInfo) to the two forms the crypto
//! libraries take: PKCS#8 private keys and SubjectPublicKeyInfo public keys.

const SEQUENCE: u8 = 0x30;
const INTEGER: u8 = 0x02;
const OCTET_STRING: u8 = 0x04;
const BIT_STRING: u8 = 0x03;
/// `[0]` constructed: SEC1's curve parameters.
const CONTEXT_0: u8 = 0xA0;

/// `rsaEncryption` (1.2.840.113549.1.1.1) with its NULL parameters.
const RSA_ALGORITHM: &[u8] = &[
    0x30, 0x0D, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00,
];
/// `id-ecPublicKey` (1.2.840.10045.2.1), the OID element alone.
const EC_PUBLIC_KEY_OID: &[u8] = &[0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01];

/// One element: its tag, its content, and what follows it.
fn read(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let n = usize::from(first & 0x7F);
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let len = rest[..n]
            .iter()
            .fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
        (len, &rest[n..])
    };
    (rest.len() >= len).then(|| (tag, &rest[..len], &rest[len..]))
}

/// The elements of a SEQUENCE's content.
fn elements(mut content: &[u8]) -> Option<Vec<(u8, &[u8])>> {
    let mut out = Vec::new();
    while !content.is_empty() {
        let (tag, value, rest) = read(content)?;
        out.push((tag, value));
        content = rest;
    }
    Some(out)
}

/// The content of a whole-input SEQUENCE.
fn sequence(der: &[u8]) -> Option<Vec<(u8, &[u8])>> {
    match read(der)? {
        (SEQUENCE, content, []) => elements(content),
        _ => None,
    }
}

fn element(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let len = content.len();
    if len < 0x80 {
        out.push(u8::try_from(len).expect("short length"));
    } else {
        let bytes: Vec<u8> = len
            .to_be_bytes()
            .into_iter()
            .skip_while(|b| *b == 0)
            .collect();
        out.push(0x80 | u8::try_from(bytes.len()).expect("at most 8 length bytes"));
        out.extend_from_slice(&bytes);
    }
    out.extend_from_slice(content);
    out
}

fn pkcs8(algorithm: &[u8], private_key: &[u8]) -> Vec<u8> {
    let mut content = element(INTEGER, &[0]);
    content.extend_from_slice(algorithm);
    content.extend(element(OCTET_STRING, private_key));
    element(SEQUENCE, &content)
}

/// A PKCS#1 `RSAPrivateKey` as PKCS#8.
#[must_use]
pub fn pkcs8_from_pkcs1(rsa_private_key: &[u8]) -> Vec<u8> {
    pkcs8(RSA_ALGORITHM, rsa_private_key)
}

/// A SEC1 `ECPrivateKey` (which must name its curve) as PKCS#8.
#[must_use]
pub fn pkcs8_from_sec1(ec_private_key: &[u8]) -> Option<Vec<u8>> {
    let curve = sequence(ec_private_key)?
        .into_iter()
        .find(|(tag, _)| *tag == CONTEXT_0)
        .map(|(_, params)| params)?;
    let mut algorithm = EC_PUBLIC_KEY_OID.to_vec();
    algorithm.extend_from_slice(curve);
    Some(pkcs8(&element(SEQUENCE, &algorithm), ec_private_key))
}

/// The PKCS#1 `RSAPrivateKey` inside a PKCS#8 RSA key.
#[must_use]
pub fn pkcs1_in_pkcs8(pkcs8: &[u8]) -> Option<Vec<u8>> {
    match sequence(pkcs8)?.as_slice() {
        [(INTEGER, _), (SEQUENCE, _), (OCTET_STRING, key), ..] => Some(key.to_vec()),
        _ => None,
    }
}

/// A PKCS#1 `RSAPublicKey` as a SubjectPublicKeyInfo.
#[must_use]
pub fn spki_from_pkcs1_public(rsa_public_key: &[u8]) -> Vec<u8> {
    let mut bits = vec![0];
    bits.extend_from_slice(rsa_public_key);
    let mut content = RSA_ALGORITHM.to_vec();
    content.extend(element(BIT_STRING, &bits));
    element(SEQUENCE, &content)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lengths_round_trip() {
        let content = vec![7u8; 300];
        let der = element(OCTET_STRING, &content);
        assert_eq!(&der[..4], &[OCTET_STRING, 0x82, 0x01, 0x2C]);
        assert_eq!(
            read(&der),
            Some((OCTET_STRING, content.as_slice(), &[][..]))
        );
        let der = pkcs8_from_pkcs1(&content);
        assert_eq!(pkcs1_in_pkcs8(&der), Some(content));
    }

    #[test]
    fn truncated_input_is_refused() {
        assert_eq!(read(&[SEQUENCE, 0x05, 1, 2]), None);
        assert_eq!(read(&[SEQUENCE, 0x85, 1, 1, 1, 1, 1]), None);
        assert_eq!(
            pkcs8_from_sec1(&[SEQUENCE, 0x03, INTEGER, 0x01, 0x01]),
            None
        );
    }
}
