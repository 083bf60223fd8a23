//! Protobuf wire primitives: varints, tags, length-delimited fields, and a
//! reader that walks the fields of one message.

use crate::api::error::ApiError;

/// Wire type of a varint field (integers, booleans, enums).
pub const VARINT: u8 = 0;
/// Wire type of a little-endian 8-byte field (`double`).
pub const FIXED64: u8 = 1;
/// Wire type of a length-delimited field (strings, bytes, messages, packed).
pub const LEN: u8 = 2;
/// Wire type of a little-endian 4-byte field (`float`).
pub const FIXED32: u8 = 5;

pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        // Truncation keeps the low seven bits, which is the point.
        #[allow(clippy::cast_possible_truncation)]
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    #[allow(clippy::cast_possible_truncation)]
    out.push(v as u8);
}

#[must_use]
pub fn varint_len(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

pub fn put_tag(out: &mut Vec<u8>, field: u32, wire_type: u8) {
    put_varint(out, (u64::from(field) << 3) | u64::from(wire_type));
}

/// A length-delimited field holding `bytes`.
pub fn put_bytes(out: &mut Vec<u8>, field: u32, bytes: &[u8]) {
    put_tag(out, field, LEN);
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// A varint field; negative numbers take ten bytes, as `int32`/`int64` do.
pub fn put_int(out: &mut Vec<u8>, field: u32, v: i64) {
    put_tag(out, field, VARINT);
    put_varint(out, v.cast_unsigned());
}

/// Writes a length-delimited field whose content `body` appends to `out`
/// directly: one length byte is reserved and widened afterwards only for
/// content of 128 bytes or more, so nested messages need no scratch buffer.
pub fn put_nested<E>(
    out: &mut Vec<u8>,
    field: u32,
    body: impl FnOnce(&mut Vec<u8>) -> Result<(), E>,
) -> Result<(), E> {
    let at = open_nested(out, field);
    body(out)?;
    close_nested(out, at);
    Ok(())
}

/// Starts a length-delimited field whose content follows in `out`; returns
/// where its length goes, for `close_nested` (`put_nested` without a
/// closure, for content written by a serde visitor).
pub fn open_nested(out: &mut Vec<u8>, field: u32) -> usize {
    put_tag(out, field, LEN);
    out.push(0);
    out.len() - 1
}

/// Ends the field `open_nested` started at `at`: everything after it is the
/// content.
pub fn close_nested(out: &mut Vec<u8>, at: usize) {
    let len = out.len() - at - 1;
    if len < 0x80 {
        #[allow(clippy::cast_possible_truncation)]
        {
            out[at] = len as u8;
        }
    } else {
        let mut prefix = [0u8; 10];
        let mut n = 0;
        let mut v = len as u64;
        while v >= 0x80 {
            #[allow(clippy::cast_possible_truncation)]
            {
                prefix[n] = (v as u8) | 0x80;
            }
            v >>= 7;
            n += 1;
        }
        #[allow(clippy::cast_possible_truncation)]
        {
            prefix[n] = v as u8;
        }
        out.splice(at..=at, prefix[..=n].iter().copied());
    }
}

/// One field as read from the wire.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Field<'a> {
    Varint(u64),
    Fixed64(u64),
    Fixed32(u32),
    Bytes(&'a [u8]),
}

impl Field<'_> {
    #[must_use]
    pub fn wire_name(&self) -> &'static str {
        match self {
            Field::Varint(_) => "varint",
            Field::Fixed64(_) => "fixed64",
            Field::Fixed32(_) => "fixed32",
            Field::Bytes(_) => "length-delimited",
        }
    }
}

fn malformed(what: &str) -> ApiError {
    ApiError::BadRequest(format!(
        "the body of the request could not be decoded: invalid protobuf: {what}"
    ))
}

/// Reads the fields of one message in wire order.
pub struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    #[must_use]
    pub fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader { buf }
    }

    fn varint(&mut self) -> Result<u64, ApiError> {
        let mut v = 0u64;
        for (i, &b) in self.buf.iter().enumerate().take(10) {
            v |= u64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                self.buf = &self.buf[i + 1..];
                return Ok(v);
            }
        }
        Err(malformed("truncated or overlong varint"))
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], ApiError> {
        if n > self.buf.len() {
            return Err(malformed("a field runs past the end of its message"));
        }
        let (head, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(head)
    }

    /// The next `(field number, value)`, or `None` at the end.
    pub fn next_field(&mut self) -> Result<Option<(u32, Field<'a>)>, ApiError> {
        if self.buf.is_empty() {
            return Ok(None);
        }
        let key = self.varint()?;
        let number = u32::try_from(key >> 3)
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| malformed("field number out of range"))?;
        let field = match (key & 7) as u8 {
            VARINT => Field::Varint(self.varint()?),
            FIXED64 => Field::Fixed64(u64::from_le_bytes(
                self.take(8)?.try_into().expect("eight bytes"),
            )),
            LEN => {
                let len = usize::try_from(self.varint()?)
                    .map_err(|_| malformed("length out of range"))?;
                Field::Bytes(self.take(len)?)
            }
            FIXED32 => Field::Fixed32(u32::from_le_bytes(
                self.take(4)?.try_into().expect("four bytes"),
            )),
            other => return Err(malformed(&format!("unsupported wire type {other}"))),
        };
        Ok(Some((number, field)))
    }

    /// Packed varints (a repeated scalar sent as one length-delimited field).
    pub fn packed_varints(bytes: &'a [u8]) -> Result<Vec<u64>, ApiError> {
        let mut r = Reader::new(bytes);
        let mut out = Vec::new();
        while !r.buf.is_empty() {
            out.push(r.varint()?);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_match_the_protobuf_encoding() {
        let mut out = Vec::new();
        put_varint(&mut out, 300);
        assert_eq!(out, [0xac, 0x02]);
        for v in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut out = Vec::new();
            put_tag(&mut out, 1, VARINT);
            put_varint(&mut out, v);
            assert_eq!(out.len(), 1 + varint_len(v));
            let mut r = Reader::new(&out);
            assert_eq!(r.next_field().expect("ok"), Some((1, Field::Varint(v))));
            assert_eq!(r.next_field().expect("ok"), None);
        }
        let mut neg = Vec::new();
        put_int(&mut neg, 2, -1);
        assert_eq!(neg.len(), 11, "negative ints take ten bytes");
    }

    #[test]
    fn nested_fields_widen_their_length_prefix() {
        for len in [0usize, 5, 127, 128, 300, 20_000] {
            let mut out = vec![0xff];
            put_nested::<()>(&mut out, 3, |o| {
                o.extend(std::iter::repeat_n(7u8, len));
                Ok(())
            })
            .expect("ok");
            let mut r = Reader::new(&out[1..]);
            let Some((3, Field::Bytes(b))) = r.next_field().expect("ok") else {
                panic!("expected field 3");
            };
            assert_eq!(b.len(), len);
            assert!(b.iter().all(|&x| x == 7));
        }
    }

    #[test]
    fn malformed_input_is_an_error() {
        assert!(Reader::new(&[0x0a, 0x05, 1]).next_field().is_err());
        assert!(Reader::new(&[0x08]).next_field().is_err());
        assert!(Reader::new(&[0x0b]).next_field().is_err());
        assert!(Reader::new(&[0x00, 0x01]).next_field().is_err());
    }
}
