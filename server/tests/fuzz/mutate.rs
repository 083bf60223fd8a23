//! The seeded mutator every target shares: corpus seeds from
//! `tests/fuzz_corpus/<target>/`, mutated by bit flips, byte edits,
//! truncation, splicing, repetition and deep nesting, for a bounded number
//! of rounds (`CAIRN_FUZZ_ROUNDS`) from a reproducible seed (`CAIRN_FUZZ_SEED`).

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::path::PathBuf;

/// Rounds per target when `CAIRN_FUZZ_ROUNDS` is unset: small enough that
/// every target together stays well under a minute in a debug build.
const DEFAULT_ROUNDS: u64 = 2_000;

/// A mutated input never grows past this, so a round's cost stays bounded
/// whatever the mutations stack up to.
const MAX_INPUT: usize = 64 * 1024;

/// SplitMix64: tiny, fast, and the same sequence on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).expect("below n")
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

fn env_u64(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    Some(
        text.parse()
            .unwrap_or_else(|_| panic!("{name} must be a decimal number, not {text:?}")),
    )
}

pub fn rounds() -> u64 {
    env_u64("CAIRN_FUZZ_ROUNDS").unwrap_or(DEFAULT_ROUNDS)
}

fn base_seed() -> u64 {
    env_u64("CAIRN_FUZZ_SEED").unwrap_or(0x00CA_1A2F)
}

/// Tokens that make parsers take their rarer paths.
const DICTIONARY: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b":",
    b",",
    b"null",
    b"true",
    b"-",
    b"0",
    b"1e999",
    b"18446744073709551616",
    b"-9223372036854775809",
    b"\\u0000",
    b"\\ud800",
    b"\n",
    b"\t",
    b" ",
    b"&",
    b"=",
    b"!=",
    b"==",
    b" in (",
    b" notin (",
    b")",
    b"!",
    b"%",
    b"%zz",
    b"~",
    b"/",
    b"..",
    b"*",
    b"&a",
    b"*a",
    b"---\n",
    b"? ",
    b"- ",
    b"!!binary",
    b"<<: ",
    b"$patch",
    b"$retainKeys",
    b"$setElementOrder/",
    b"$deleteFromPrimitiveList/",
    b"\xff",
    b"\xc3\x28",
    b"\xf4\x90\x80\x80",
    b"\x00",
    b"\xbf",
    b"\x9f",
    b"\xff\xff\xff\xff\x0f",
    b"\xd9\xd9\xf7",
];

/// One mutation of `input`, `others` supplying material for splices.
fn mutate_once(rng: &mut Rng, input: &mut Vec<u8>, others: &[Vec<u8>]) {
    let at = |rng: &mut Rng, v: &Vec<u8>| rng.below(v.len() + 1);
    match rng.below(9) {
        0 if !input.is_empty() => {
            let i = rng.below(input.len());
            input[i] ^= 1 << rng.below(8);
        }
        1 if !input.is_empty() => {
            let i = rng.below(input.len());
            input[i] = u8::try_from(rng.next() & 0xff).expect("byte");
        }
        2 => {
            let len = at(rng, input);
            input.truncate(len);
        }
        3 if !input.is_empty() => {
            let start = rng.below(input.len());
            let end = (start + 1 + rng.below(16)).min(input.len());
            input.drain(start..end);
        }
        4 => {
            let word = rng.pick(DICTIONARY);
            let i = at(rng, input);
            input.splice(i..i, word.iter().copied());
        }
        5 => {
            let donor = rng.pick(others);
            let from = rng.below(donor.len() + 1);
            let to = from + rng.below(donor.len() - from + 1);
            let i = at(rng, input);
            input.splice(i..i, donor[from..to].iter().copied());
        }
        6 if !input.is_empty() => {
            let start = rng.below(input.len());
            let end = (start + 1 + rng.below(8)).min(input.len());
            let chunk = input[start..end].to_vec();
            for _ in 0..rng.below(64) {
                input.splice(start..start, chunk.iter().copied());
            }
        }
        7 => nest(rng, input),
        _ => {
            let i = at(rng, input);
            let n = rng.below(4) + 1;
            let bytes: Vec<u8> = (0..n).map(|_| (rng.next() & 0xff) as u8).collect();
            input.splice(i..i, bytes);
        }
    }
}

/// Deep nesting: thousands of openers, sometimes closed, at a random point.
fn nest(rng: &mut Rng, input: &mut Vec<u8>) {
    const OPENERS: &[(&[u8], &[u8])] = &[
        (b"[", b"]"),
        (b"{\"a\":", b"}"),
        (b"- ", b""),
        (b"a: ", b""),
        (b"(", b")"),
        (b"\x81", b""),
        (b"\xa1\x61\x61", b""),
        (b"\x9f", b"\xff"),
    ];
    let (open, close) = rng.pick(OPENERS);
    let depth = 1 + rng.below(4_000);
    let i = rng.below(input.len() + 1);
    let mut middle = open.repeat(depth);
    if rng.below(2) == 0 {
        middle.extend(close.repeat(depth));
    }
    input.splice(i..i, middle);
}

/// A seed from `seeds` with 1–8 mutations stacked.
pub fn mutant(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut input = rng.pick(seeds).clone();
    for _ in 0..=rng.below(8) {
        mutate_once(rng, &mut input, seeds);
        input.truncate(MAX_INPUT);
    }
    input
}

/// Runs `check` on every seed, then on `total` mutants. A panic is
/// reported with the target, round and input (escaped) before it unwinds,
/// so a crash can be turned into a named regression test. With
/// `CAIRN_FUZZ_KEEP_LAST` set, the input of an abort is left in
/// `<CARGO_TARGET_TMPDIR>/fuzz-<target>.last`.
pub fn run_rounds(target: &str, seeds: &[Vec<u8>], total: u64, check: impl Fn(&[u8])) {
    assert!(!seeds.is_empty(), "target {target} has no seeds");
    let start = base_seed() ^ name_hash(target);
    let mut rng = Rng::new(start);
    let inputs = seeds
        .iter()
        .cloned()
        .map(|s| (None, s))
        .chain((0..total).map(|round| (Some(round), mutant(&mut rng, seeds))));
    // An abort (stack overflow, out of memory) cannot be caught; asked for,
    // each round's input is written first, so the last one is the culprit.
    let keep_last = std::env::var_os("CAIRN_FUZZ_KEEP_LAST")
        .map(|_| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("fuzz-{target}.last")));
    for (round, input) in inputs {
        if let Some(path) = &keep_last {
            std::fs::write(path, &input).expect("write the round's input");
        }
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| check(&input))) {
            eprintln!(
                "fuzz target {target} panicked at round {round:?} (CAIRN_FUZZ_SEED={}) on input {:?}",
                base_seed(),
                String::from_utf8_lossy(&input).escape_debug().to_string()
            );
            eprintln!("input bytes: {input:?}");
            resume_unwind(panic);
        }
    }
}

/// Each target gets its own stream from the one base seed.
pub fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
