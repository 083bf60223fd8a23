//! An issued certificate given the signing request's own subject, byte
//! for byte. rcgen keeps one value per name attribute, so a request whose
//! subject has several O values (several groups, as a user's CSR may)
//! would lose all but one; Kubernetes' signer copies the request's
//! subject whole. The certificate rcgen built keeps everything else, and
//! its new TBS part is signed again with the same CA key.

use rcgen::{KeyPair, SigningKey};

/// `cert` (DER) with `subject` (a DER Name) in place of its own, signed
/// again with `ca_key`; `None` when `cert` is not a certificate's DER.
pub fn with_subject(cert: &[u8], subject: &[u8], ca_key: &KeyPair) -> Option<Vec<u8>> {
    let [tbs, algorithm, _signature] = children(contents(cert)?)?[..] else {
        return None;
    };
    let mut fields = children(contents(tbs)?)?;
    // version [0] is optional; serial, signature, issuer, validity follow.
    let subject_at = if fields.first()?.first() == Some(&0xa0) {
        5
    } else {
        4
    };
    *fields.get_mut(subject_at)? = subject;
    let tbs = tlv(0x30, &fields.concat());
    let signature = ca_key.sign(&tbs).ok()?;
    let mut bits = Vec::with_capacity(signature.len() + 1);
    bits.push(0); // no unused bits
    bits.extend_from_slice(&signature);
    Some(tlv(
        0x30,
        &[tbs.as_slice(), algorithm, &tlv(0x03, &bits)].concat(),
    ))
}

/// The element at the start of `der`: its header length and whole length.
fn element(der: &[u8]) -> Option<(usize, usize)> {
    let first = *der.get(1)?;
    let (header, length) = if first < 0x80 {
        (2, usize::from(first))
    } else {
        let count = usize::from(first & 0x7f);
        if count == 0 || count > 4 {
            return None;
        }
        let bytes = der.get(2..2 + count)?;
        let length = bytes.iter().fold(0usize, |n, b| (n << 8) | usize::from(*b));
        (2 + count, length)
    };
    let total = header.checked_add(length)?;
    (total <= der.len()).then_some((header, total))
}

/// The contents of the one element `der` is.
fn contents(der: &[u8]) -> Option<&[u8]> {
    let (header, total) = element(der)?;
    (total == der.len()).then(|| &der[header..])
}

/// The elements (whole, with headers) that `der` is a run of.
fn children(mut der: &[u8]) -> Option<Vec<&[u8]>> {
    let mut out = Vec::new();
    while !der.is_empty() {
        let (_, total) = element(der)?;
        out.push(&der[..total]);
        der = &der[total..];
    }
    Some(out)
}

/// One element of `tag` holding `body`, its length in DER's shortest form.
fn tlv(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    if body.len() < 0x80 {
        out.push(body.len() as u8);
    } else {
        let length = body.len().to_be_bytes();
        let skip = length.iter().take_while(|b| **b == 0).count();
        out.push(0x80 | (length.len() - skip) as u8);
        out.extend_from_slice(&length[skip..]);
    }
    out.extend_from_slice(body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_round_trip_in_short_and_long_form() {
        for size in [0, 1, 127, 128, 255, 256, 70_000] {
            let body = vec![7u8; size];
            let encoded = tlv(0x30, &body);
            assert_eq!(contents(&encoded), Some(body.as_slice()));
        }
    }

    #[test]
    fn truncated_or_trailing_bytes_are_refused() {
        let encoded = tlv(0x30, &[1, 2, 3]);
        assert_eq!(contents(&encoded[..4]), None);
        assert_eq!(contents(&[encoded.as_slice(), &[0]].concat()), None);
        assert_eq!(children(&[0x30, 0x85, 0, 0, 0, 0, 0]), None);
    }
}
