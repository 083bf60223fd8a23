//! Bounded random-input test of continue tokens: valid tokens mutated as
//! text, and their JSON mutated before it is encoded, must decode or be
//! refused with 400, never panic. `CAIRN_FUZZ_ROUNDS` sets the rounds.

use base64::Engine as _;

use super::{decode_continue, encode_continue};
use crate::api::error::ApiError;

/// SplitMix64, seeded by `CAIRN_FUZZ_SEED`, so a failing run repeats.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).expect("below n")
    }
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

const PIECES: &[&str] = &[
    "{",
    "}",
    "\"",
    ":",
    ",",
    "\"v\"",
    "\"rv\"",
    "\"start\"",
    "\"q\"",
    "\"meta.k8s.io/v1\"",
    "0",
    "-1",
    "18446744073709551616",
    "1e3",
    "null",
    "[]",
    "\"/etc\"",
    "\"..\"",
    "\"ffffffffffffffffff\"",
    "\\ud800",
    "=",
    "==",
    "+",
    "/",
    "_",
    "-",
    "\u{e9}",
    "\u{0}",
];

fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut out: Vec<char> = text.chars().collect();
    for _ in 0..=rng.below(4) {
        let at = rng.below(out.len() + 1);
        match rng.below(3) {
            0 => out.truncate(at),
            1 if at < out.len() => {
                out.remove(at);
            }
            _ => {
                let piece = PIECES[rng.below(PIECES.len())];
                out.splice(at..at, piece.chars());
            }
        }
    }
    out.into_iter().collect()
}

#[test]
fn mutated_continue_tokens_decode_or_are_refused_with_400() {
    let mut rng = Rng(env("CAIRN_FUZZ_SEED", 0x00CA_1A2F));
    let seeds = [
        (1, "default/a", 0),
        (u64::MAX, "ns/name\u{0}", u64::MAX),
        (42, "x/\u{e9}\u{1F600}", 7),
    ];
    let base64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    for _ in 0..env("CAIRN_FUZZ_ROUNDS", 2_000) {
        let (rv, start, query) = seeds[rng.below(seeds.len())];
        let token = encode_continue(rv, start, query);
        let json = String::from_utf8(base64.decode(&token).expect("own token")).expect("UTF-8");
        let candidates = [
            mutate(&mut rng, &token),
            base64.encode(mutate(&mut rng, &json)),
        ];
        for candidate in candidates {
            match decode_continue(&candidate) {
                Ok(c) => {
                    assert!(c.rv > 0 && !c.start.is_empty() && !c.start.starts_with('/'));
                    assert!(!c.start.contains(".."));
                }
                Err(e) => assert!(matches!(e, ApiError::BadRequest(_)), "{e:?}"),
            }
        }
    }
}
