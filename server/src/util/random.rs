//! Random identities: UUIDv4 uids and generateName suffixes.

fn bytes<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).expect("the operating system's random source is available");
    b
}

/// A version-4 UUID in its canonical text form.
#[must_use]
pub fn uuid_v4() -> String {
    let mut b: [u8; 16] = bytes();
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
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
        assert_ne!(uuid_v4(), u);
        let n = generated_name("ev-");
        assert!(
            n.starts_with("ev-") && n.len() == 8 && n[3..].bytes().all(|b| ALPHABET.contains(&b))
        );
    }
}
