//! Known answers and layouts checked independently of the ciphers' own
//! decryption: what Kubernetes writes is what is read here.

use aes::Aes256;
use aes::cipher::{BlockDecrypt, BlockEncrypt, KeyInit};

use super::*;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

#[test]
fn aes_gcm_opens_the_nist_vector_laid_out_as_nonce_then_sealed() {
    // NIST GCM test case 14: 256-bit zero key, zero nonce, 16 zero bytes,
    // no authenticated data (an empty storage key).
    let cipher = AesGcm::new(&[0u8; 32]).expect("key");
    let mut stored = vec![0u8; 12];
    stored.extend(hex("cea7403d4d606b6e074ec5d3baf39d18"));
    stored.extend(hex("d0d1c8a799996bf0265b98b5d48ab919"));
    assert_eq!(cipher.open(b"", &stored).expect("open"), vec![0u8; 16]);
    // The storage key is the authenticated data.
    assert!(cipher.open(b"/registry/secrets/a/b", &stored).is_err());
}

#[test]
fn aes_cbc_is_an_iv_then_pkcs7_padded_chained_blocks() {
    // NIST SP 800-38A F.2.5, first block, then the full padding block.
    let key = hex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4");
    let iv = hex("000102030405060708090a0b0c0d0e0f");
    let plain = hex("6bc1bee22e409f96e93d7e117393172a");
    let c1 = hex("f58c4c04d6e5f1ba779eabfb5f7bfbd6");
    let block = Aes256::new_from_slice(&key).expect("key");
    let mut pad: [u8; 16] = [16; 16];
    for (p, c) in pad.iter_mut().zip(&c1) {
        *p ^= c;
    }
    let mut c2 = pad.into();
    block.encrypt_block(&mut c2);
    let stored = [iv.clone(), c1, c2.to_vec()].concat();
    let cipher = AesCbc::new(&key).expect("key");
    assert_eq!(cipher.open(b"", &stored).expect("open"), plain);
    // And what it writes decrypts block by block by the same rule.
    let mut out = Vec::new();
    cipher.seal(b"", &plain, &mut out).expect("seal");
    assert_eq!(out.len(), 16 + 32);
    let first: [u8; 16] = out[16..32].try_into().expect("a block");
    let mut first = aes::Block::from(first);
    block.decrypt_block(&mut first);
    let recovered: Vec<u8> = first.iter().zip(&out[..16]).map(|(a, b)| a ^ b).collect();
    assert_eq!(recovered, plain);
}

#[test]
fn secretbox_is_a_nonce_then_tag_then_ciphertext() {
    let cipher = Secretbox::new(&[7u8; 32]).expect("key");
    let mut out = Vec::new();
    cipher.seal(b"/k", b"hello", &mut out).expect("seal");
    assert_eq!(out.len(), 24 + 16 + 5);
    assert_eq!(cipher.open(b"/other", &out).expect("open"), b"hello");
    out[30] ^= 1;
    assert!(cipher.open(b"/k", &out).is_err());
    assert!(cipher.open(b"/k", &out[..10]).is_err());
}

#[test]
fn wrong_sizes_have_no_cipher() {
    assert!(AesGcm::new(&[0; 20]).is_none());
    assert!(AesCbc::new(&[0; 16]).is_none());
    assert!(Secretbox::new(&[0; 31]).is_none());
}
