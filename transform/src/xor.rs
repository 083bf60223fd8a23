//! `Xor`: a reversible transformer whose stored bytes are recognisable
//! (`xor:` then every byte XORed), for testing the layers that apply
//! transformers — the server's storage decorator and cairn-store's reads —
//! against real stored bytes. Not a cipher.

use std::borrow::Cow;

use crate::{Error, Plain, Transformer};

/// What every value it stores starts with.
pub const XOR_MARK: &[u8] = b"xor:";

const PAD: u8 = 0x5a;

/// See the module docs.
#[derive(Clone, Copy, Debug, Default)]
pub struct Xor;

impl Transformer for Xor {
    fn transform_to_storage<'a>(
        &self,
        _key: &[u8],
        plain: &'a [u8],
    ) -> Result<Cow<'a, [u8]>, Error> {
        let mut out = XOR_MARK.to_vec();
        out.extend(plain.iter().map(|b| b ^ PAD));
        Ok(Cow::Owned(out))
    }

    fn transform_from_storage<'a>(
        &self,
        _key: &[u8],
        stored: &'a [u8],
    ) -> Result<Plain<'a>, Error> {
        let body = stored
            .strip_prefix(XOR_MARK)
            .ok_or_else(|| Error::new("no xor mark"))?;
        Ok(Plain {
            value: Cow::Owned(body.iter().map(|b| b ^ PAD).collect()),
            stale: false,
        })
    }
}
