//! The cluster-IP and node-port pools of one API server, and the claims a
//! Service write holds on them until it commits.
//!
//! The pools live in memory behind one lock: every create and update of a
//! Service in this process takes what it needs there before it commits, so
//! two concurrent writes never get the same address or port. They are
//! rebuilt from the stored Services at start (`recover`), and an item is
//! given back when the write that took it fails, or when the Service that
//! held it is removed or stops needing it.

use std::net::IpAddr;
use std::sync::Arc;

use parking_lot::Mutex;

use super::pool::{Pool, lower_band};
use crate::api::kind::Claim;
use crate::config::service_ranges::{Cidr, PortRange, addr_bits};

/// Something a Service holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Held {
    Ip(IpAddr),
    Port(u16),
}

/// Why a requested address or port cannot be had (kube's wording).
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    Allocated,
    NotInRange(String),
}

struct IpPool {
    cidr: Cidr,
    /// IPv4 ranges skip the network and broadcast addresses, IPv6 ranges
    /// the network address (the subnet-router anycast address).
    pool: Pool,
}

impl IpPool {
    fn new(cidr: Cidr) -> IpPool {
        let size = usable(cidr);
        IpPool {
            cidr,
            pool: Pool::new(size, lower_band(size, 16, 256, 16)),
        }
    }

    /// The pool offset of `ip`, if it is a usable address of the range.
    fn offset(&self, ip: IpAddr) -> Option<u64> {
        if !self.cidr.contains(ip) {
            return None;
        }
        let n = addr_bits(ip) - self.cidr.first();
        let offset = u64::try_from(n.checked_sub(1)?).ok()?;
        (offset < usable(self.cidr)).then_some(offset)
    }
}

/// How many addresses of a range are handed out.
fn usable(cidr: Cidr) -> u64 {
    let skipped = if cidr.network.is_ipv4() { 2 } else { 1 };
    u64::try_from(cidr.span() - skipped).unwrap_or(u64::MAX)
}

struct Pools {
    ips: Vec<IpPool>,
    ports: Pool,
}

/// The allocator; cheap to clone into claims.
pub struct ServiceAllocator {
    pools: Arc<Mutex<Pools>>,
    ranges: Vec<Cidr>,
    port_range: PortRange,
}

fn random() -> u64 {
    let mut bytes = [0u8; 8];
    // A failing random source only makes searches start at the beginning.
    let _ = getrandom::fill(&mut bytes);
    u64::from_le_bytes(bytes)
}

impl ServiceAllocator {
    #[must_use]
    pub fn new(ranges: &[Cidr], port_range: PortRange) -> ServiceAllocator {
        let size = u64::from(port_range.size());
        ServiceAllocator {
            pools: Arc::new(Mutex::new(Pools {
                ips: ranges.iter().copied().map(IpPool::new).collect(),
                ports: Pool::new(size, lower_band(size, 16, 128, 32)),
            })),
            ranges: ranges.to_vec(),
            port_range,
        }
    }

    /// The configured ranges, primary family first.
    #[must_use]
    pub fn ranges(&self) -> &[Cidr] {
        &self.ranges
    }

    #[must_use]
    pub fn port_range(&self) -> PortRange {
        self.port_range
    }

    /// A new, empty claim.
    #[must_use]
    pub fn claim(&self) -> ServiceClaim {
        ServiceClaim {
            pools: Arc::clone(&self.pools),
            taken: Vec::new(),
            release_on_keep: Vec::new(),
            port_first: self.port_range.first,
        }
    }

    /// Marks what stored Services hold (at start). Items outside today's
    /// ranges (the flags changed) are not tracked.
    pub fn recover(&self, held: impl IntoIterator<Item = Held>) {
        let mut pools = self.pools.lock();
        for item in held {
            // Already taken: two stored Services share it; both keep it.
            let _ = take_in(&mut pools, item, self.port_range.first);
        }
    }

    /// Gives back what a removed Service held.
    pub fn release(&self, held: impl IntoIterator<Item = Held>) {
        let mut pools = self.pools.lock();
        for item in held {
            release_in(&mut pools, item, self.port_range.first);
        }
    }
}

fn take_in(pools: &mut Pools, item: Held, port_first: u16) -> Result<(), Refusal> {
    match item {
        Held::Ip(ip) => {
            let Some(range) = pools.ips.iter_mut().find(|r| r.cidr.contains(ip)) else {
                let in_family = pools
                    .ips
                    .iter()
                    .find(|r| r.cidr.network.is_ipv4() == ip.is_ipv4());
                return Err(Refusal::NotInRange(
                    in_family.map(|r| r.cidr.to_string()).unwrap_or_default(),
                ));
            };
            let Some(offset) = range.offset(ip) else {
                return Err(Refusal::NotInRange(range.cidr.to_string()));
            };
            if range.pool.take(offset) {
                Ok(())
            } else {
                Err(Refusal::Allocated)
            }
        }
        Held::Port(port) => {
            let offset = u64::from(port.wrapping_sub(port_first));
            if port < port_first || !pools.ports.take(offset) {
                return Err(if port >= port_first && pools.ports.is_taken(offset) {
                    Refusal::Allocated
                } else {
                    Refusal::NotInRange(String::new())
                });
            }
            Ok(())
        }
    }
}

fn release_in(pools: &mut Pools, item: Held, port_first: u16) {
    match item {
        Held::Ip(ip) => {
            if let Some(range) = pools.ips.iter_mut().find(|r| r.cidr.contains(ip))
                && let Some(offset) = range.offset(ip)
            {
                range.pool.release(offset);
            }
        }
        Held::Port(port) if port >= port_first => {
            pools.ports.release(u64::from(port - port_first));
        }
        Held::Port(_) => {}
    }
}

/// What one Service write took. Dropped uncommitted, it gives everything
/// back; kept, it gives back what the write no longer holds.
pub struct ServiceClaim {
    pools: Arc<Mutex<Pools>>,
    taken: Vec<Held>,
    release_on_keep: Vec<Held>,
    port_first: u16,
}

impl ServiceClaim {
    /// Takes a requested address or port.
    pub fn take(&mut self, item: Held) -> Result<(), Refusal> {
        take_in(&mut self.pools.lock(), item, self.port_first)?;
        self.taken.push(item);
        Ok(())
    }

    /// Takes a free address of the range at `family_index` (`None`: full).
    pub fn take_next_ip(&mut self, family_index: usize) -> Option<IpAddr> {
        let mut pools = self.pools.lock();
        let range = pools.ips.get_mut(family_index)?;
        let offset = range.pool.take_next(random())?;
        let ip = range.cidr.nth(u128::from(offset) + 1);
        self.taken.push(Held::Ip(ip));
        Some(ip)
    }

    /// Takes a free node port (`None`: full).
    pub fn take_next_port(&mut self) -> Option<u16> {
        let offset = self.pools.lock().ports.take_next(random())?;
        let port = self.port_first + u16::try_from(offset).ok()?;
        self.taken.push(Held::Port(port));
        Some(port)
    }

    /// Items the object held before this write and holds no longer.
    pub fn release_when_kept(&mut self, items: impl IntoIterator<Item = Held>) {
        self.release_on_keep.extend(items);
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.taken.is_empty() && self.release_on_keep.is_empty()
    }
}

impl Claim for ServiceClaim {
    fn keep(mut self: Box<Self>) {
        self.taken.clear();
        let mut pools = self.pools.lock();
        for item in std::mem::take(&mut self.release_on_keep) {
            release_in(&mut pools, item, self.port_first);
        }
    }
}

impl Drop for ServiceClaim {
    fn drop(&mut self) {
        if self.taken.is_empty() {
            return;
        }
        let mut pools = self.pools.lock();
        for item in self.taken.drain(..) {
            release_in(&mut pools, item, self.port_first);
        }
    }
}
