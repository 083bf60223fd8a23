//! A pool of numbered items (the offsets of a service IP range or of a node
//! port range): which are taken, and the next free one, searched as kube's
//! allocators search: from a random point of the upper band first, so that
//! the lower band stays free for addresses and ports users ask for by
//! number (KEP-3070, KEP-3668).

use std::collections::BTreeSet;

/// Items `0..size`, the first `reserved` of them preferred for static use.
#[derive(Debug)]
pub struct Pool {
    size: u64,
    reserved: u64,
    taken: BTreeSet<u64>,
}

/// The size of the lower band kube reserves in a range of `size` items:
/// `size / step`, kept within `[min, max]`, and none in ranges below `min`.
#[must_use]
pub fn lower_band(size: u64, min: u64, max: u64, step: u64) -> u64 {
    if size < min {
        return 0;
    }
    (size / step).clamp(min, max)
}

impl Pool {
    #[must_use]
    pub fn new(size: u64, reserved: u64) -> Pool {
        Pool {
            size,
            reserved: reserved.min(size),
            taken: BTreeSet::new(),
        }
    }

    #[must_use]
    pub fn is_taken(&self, item: u64) -> bool {
        self.taken.contains(&item)
    }

    /// Takes `item`; `false` when it is already taken.
    pub fn take(&mut self, item: u64) -> bool {
        item < self.size && self.taken.insert(item)
    }

    pub fn release(&mut self, item: u64) {
        self.taken.remove(&item);
    }

    /// Takes a free item (`random` picks where the search starts), or
    /// `None` when the pool is full.
    pub fn take_next(&mut self, random: u64) -> Option<u64> {
        let upper = self.size - self.reserved;
        let found = scan(&self.taken, self.reserved, upper, random)
            .or_else(|| scan(&self.taken, 0, self.reserved, random))?;
        self.taken.insert(found);
        Some(found)
    }

    #[cfg(test)]
    #[must_use]
    pub fn taken_count(&self) -> usize {
        self.taken.len()
    }
}

/// The first free item of `start..start + len`, beginning at a random
/// offset and wrapping around.
fn scan(taken: &BTreeSet<u64>, start: u64, len: u64, random: u64) -> Option<u64> {
    if len == 0 {
        return None;
    }
    let from = random % len;
    (0..len)
        .map(|i| start + (from + i) % len)
        .find(|item| !taken.contains(item))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dynamic_items_come_from_the_upper_band_first() {
        let mut pool = Pool::new(20, 16);
        let mut got: Vec<u64> = (0..4).map(|r| pool.take_next(r * 7).unwrap()).collect();
        got.sort_unstable();
        assert_eq!(got, [16, 17, 18, 19]);
        // Then the lower band, and then nothing.
        for r in 0..16 {
            assert!(pool.take_next(r).unwrap() < 16);
        }
        assert_eq!(pool.take_next(3), None);
        pool.release(5);
        assert_eq!(pool.take_next(11), Some(5));
    }

    #[test]
    fn requested_items_are_taken_once() {
        let mut pool = Pool::new(8, 0);
        assert!(pool.take(3));
        assert!(!pool.take(3));
        assert!(!pool.take(8));
        assert!(pool.is_taken(3));
        pool.release(3);
        assert!(pool.take(3));
        assert_eq!(pool.taken_count(), 1);
    }

    #[test]
    fn lower_bands_are_sized_as_kube_sizes_them() {
        // Service IPs: min 16, max 256, step 16.
        assert_eq!(lower_band(6, 16, 256, 16), 0);
        assert_eq!(lower_band(254, 16, 256, 16), 16);
        assert_eq!(lower_band(65534, 16, 256, 16), 256);
        // Node ports: min 16, max 128, step 32.
        assert_eq!(lower_band(2768, 16, 128, 32), 86);
    }
}
