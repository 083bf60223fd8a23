//! Random identities: UUIDv4 uids and generateName suffixes.

use std::cell::RefCell;

/// Random bytes drawn from the operating system per refill: one system call
/// serves many uids instead of one per create.
const POOL: usize = 4096;

struct Pool {
    bytes: [u8; POOL],
    used: usize,
}

thread_local! {
    static POOL_BYTES: RefCell<Pool> = const {
        RefCell::new(Pool { bytes: [0; POOL], used: POOL })
    };
}

fn bytes<const N: usize>() -> [u8; N] {
    POOL_BYTES.with_borrow_mut(|pool| {
        if pool.used + N > POOL {
            getrandom::fill(&mut pool.bytes)
                .expect("the operating system's random source is available");
            pool.used = 0;
        }
        let mut b = [0u8; N];
        b.copy_from_slice(&pool.bytes[pool.used..pool.used + N]);
        // Handed-out bytes are not kept around.
        pool.bytes[pool.used..pool.used + N].fill(0);
        pool.used += N;
        b
    })
}

/// A version-4 UUID in its canonical text form.
#[must_use]
pub fn uuid_v4() -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut b: [u8; 16] = bytes();
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let mut out = String::with_capacity(36);
    for (i, byte) in b.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        out.push(char::from(HEX[usize::from(byte >> 4)]));
        out.push(char::from(HEX[usize::from(byte & 0x0f)]));
    }
    out
}

/// A uniformly random number in [0, 1).
#[must_use]
pub fn unit_fraction() -> f64 {
    // 53 random bits: every value a double can hold exactly in [0, 1).
    let bits = u64::from_le_bytes(bytes::<8>()) >> 11;
    #[allow(clippy::cast_precision_loss)]
    let fraction = bits as f64 / (1u64 << 53) as f64;
    fraction
}

/// Kubernetes' generateName alphabet (no vowels, no look-alikes).
const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// `prefix` plus five random characters, as `metadata.generateName` asks.
#[must_use]
pub fn generated_name(prefix: &str) -> String {
    let suffix: String = bytes::<5>()
        .iter()
        .map(|b| char::from(ALPHABET[usize::from(*b) % ALPHABET.len()]))
        .collect();
    // Kubernetes trims the prefix so the whole name stays within 63 characters.
    let keep = prefix.len().min(58);
    format!("{}{suffix}", &prefix[..keep])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let u = uuid_v4();
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "4");
        let dashes: Vec<usize> = u.match_indices('-').map(|(i, _)| i).collect();
        assert_eq!(dashes, [8, 13, 18, 23]);
        assert!(matches!(&u[19..20], "8" | "9" | "a" | "b"), "{u}");
        assert!(
            u.bytes()
                .all(|c| c == b'-' || c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        let many: std::collections::HashSet<String> = (0..2000).map(|_| uuid_v4()).collect();
        assert_eq!(many.len(), 2000, "uids repeat across pool refills");
        assert_ne!(uuid_v4(), u);
        let n = generated_name("ev-");
        assert!(
            n.starts_with("ev-") && n.len() == 8 && n[3..].bytes().all(|b| ALPHABET.contains(&b))
        );
    }
}
