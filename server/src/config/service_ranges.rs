//! `--service-cluster-ip-range` and `--service-node-port-range`: the pools
//! kube-apiserver hands Services their cluster IPs and node ports from.

use std::fmt;
use std::net::IpAddr;

use clap::Args;

/// A CIDR block, e.g. `10.0.0.0/24`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cidr {
    /// The network address (host bits zero).
    pub network: IpAddr,
    pub prefix: u8,
}

impl Cidr {
    /// Parses `a.b.c.d/n` or `x::/n`; host bits must be zero, as kube's
    /// flag validation asks.
    pub fn parse(text: &str) -> Result<Cidr, String> {
        let (addr, prefix) = text
            .split_once('/')
            .ok_or_else(|| format!("{text:?} is not a CIDR (address/prefix)"))?;
        let network: IpAddr = addr
            .parse()
            .map_err(|_| format!("{text:?} is not a CIDR: bad address"))?;
        let bits = if network.is_ipv4() { 32 } else { 128 };
        let prefix: u8 = prefix
            .parse()
            .ok()
            .filter(|p| *p <= bits)
            .ok_or_else(|| format!("{text:?} is not a CIDR: bad prefix length"))?;
        let cidr = Cidr { network, prefix };
        if cidr.first() != addr_bits(network) {
            return Err(format!("{text:?} has host bits set"));
        }
        Ok(cidr)
    }

    /// Bits of the address space (32 or 128).
    #[must_use]
    pub fn width(&self) -> u8 {
        if self.network.is_ipv4() { 32 } else { 128 }
    }

    /// The network address as a number.
    #[must_use]
    pub fn first(&self) -> u128 {
        let host_bits = u32::from(self.width() - self.prefix);
        let mask = if host_bits >= 128 {
            0
        } else {
            u128::MAX << host_bits
        };
        addr_bits(self.network) & mask
    }

    /// How many addresses the block spans (saturating for huge IPv6 blocks).
    #[must_use]
    pub fn span(&self) -> u128 {
        1u128
            .checked_shl(u32::from(self.width() - self.prefix))
            .unwrap_or(u128::MAX)
    }

    /// Whether `ip` is inside the block.
    #[must_use]
    pub fn contains(&self, ip: IpAddr) -> bool {
        ip.is_ipv4() == self.network.is_ipv4() && {
            let n = addr_bits(ip);
            n >= self.first() && n - self.first() < self.span()
        }
    }

    /// The address `n` steps after the network address.
    #[must_use]
    pub fn nth(&self, n: u128) -> IpAddr {
        from_bits(self.first() + n, self.network.is_ipv4())
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.network, self.prefix)
    }
}

/// An address as a number (IPv4 in the low 32 bits).
#[must_use]
pub fn addr_bits(ip: IpAddr) -> u128 {
    match ip {
        IpAddr::V4(v4) => u128::from(u32::from(v4)),
        IpAddr::V6(v6) => u128::from(v6),
    }
}

/// The address of a number, in the family asked for.
#[must_use]
pub fn from_bits(n: u128, v4: bool) -> IpAddr {
    if v4 {
        IpAddr::V4(u32::try_from(n).unwrap_or(u32::MAX).into())
    } else {
        IpAddr::V6(n.into())
    }
}

/// `--service-cluster-ip-range`: one block, or two of different families
/// (dual-stack; the first is the primary family).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceIpRanges(pub Vec<Cidr>);

impl ServiceIpRanges {
    pub fn parse(text: &str) -> Result<ServiceIpRanges, String> {
        let blocks = text
            .split(',')
            .map(|b| Cidr::parse(b.trim()))
            .collect::<Result<Vec<_>, _>>()?;
        if blocks.len() > 2 {
            return Err("at most two ranges (one per IP family) may be given".into());
        }
        if blocks.len() == 2 && blocks[0].network.is_ipv4() == blocks[1].network.is_ipv4() {
            return Err("two ranges must be of different IP families (dual-stack)".into());
        }
        for b in &blocks {
            // The bitmap kube keeps per range caps its size the same way.
            match (b.network.is_ipv4(), b.prefix) {
                (true, p) if p < 12 => {
                    return Err(format!(
                        "{b} is too large; for 32-bit addresses, the mask must be >= 12"
                    ));
                }
                (false, p) if p < 108 => {
                    return Err(format!(
                        "{b} is too large; for 128-bit addresses, the mask must be >= 108"
                    ));
                }
                (true, p) if p > 30 => {
                    return Err(format!(
                        "{b} is too small: it leaves no address to hand out"
                    ));
                }
                (false, p) if p > 126 => {
                    return Err(format!(
                        "{b} is too small: it leaves no address to hand out"
                    ));
                }
                _ => {}
            }
        }
        Ok(ServiceIpRanges(blocks))
    }
}

/// `--service-node-port-range`: `first-last` (or `first+count`), inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortRange {
    pub first: u16,
    pub last: u16,
}

impl PortRange {
    pub fn parse(text: &str) -> Result<PortRange, String> {
        let number = |s: &str| {
            s.trim()
                .parse::<u16>()
                .map_err(|_| format!("{text:?} is not a port range (e.g. 30000-32767)"))
        };
        let (first, last) = if let Some((a, b)) = text.split_once('-') {
            (number(a)?, number(b)?)
        } else if let Some((a, n)) = text.split_once('+') {
            let first = number(a)?;
            let count = number(n)?;
            let last = first
                .checked_add(count)
                .ok_or_else(|| format!("{text:?} runs past port 65535"))?;
            (first, last)
        } else {
            let p = number(text)?;
            (p, p)
        };
        if first > last || first == 0 {
            return Err(format!("{text:?} is not a port range (e.g. 30000-32767)"));
        }
        Ok(PortRange { first, last })
    }

    /// How many ports the range holds.
    #[must_use]
    pub fn size(&self) -> u32 {
        u32::from(self.last - self.first) + 1
    }

    #[must_use]
    pub fn contains(&self, port: i64) -> bool {
        port >= i64::from(self.first) && port <= i64::from(self.last)
    }
}

impl fmt::Display for PortRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.first, self.last)
    }
}

/// The flags.
#[derive(Args, Clone, Debug)]
pub struct ServiceRangeFlags {
    /// CIDR range(s) Services' cluster IPs come from: one block, or an IPv4
    /// and an IPv6 block separated by a comma (dual-stack).
    #[arg(long = "service-cluster-ip-range", default_value = "10.0.0.0/24", value_parser = ServiceIpRanges::parse)]
    pub cluster_ip_range: ServiceIpRanges,
    /// Ports NodePort and LoadBalancer Services' node ports come from
    /// (inclusive, e.g. `30000-32767`).
    #[arg(long = "service-node-port-range", default_value = "30000-32767", value_parser = PortRange::parse)]
    pub node_port_range: PortRange,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_parse_as_kube_reads_them() {
        let c = Cidr::parse("10.0.0.0/24").unwrap();
        assert_eq!(c.span(), 256);
        assert_eq!(c.nth(1).to_string(), "10.0.0.1");
        assert!(c.contains("10.0.0.255".parse().unwrap()));
        assert!(!c.contains("10.0.1.0".parse().unwrap()));
        assert!(!c.contains("::1".parse().unwrap()));
        assert!(
            Cidr::parse("10.0.0.1/24")
                .unwrap_err()
                .contains("host bits")
        );
        assert!(Cidr::parse("10.0.0.0").is_err());
        assert!(Cidr::parse("10.0.0.0/33").is_err());
        let dual = ServiceIpRanges::parse("10.0.0.0/24,fd00::/112").unwrap();
        assert_eq!(dual.0.len(), 2);
        assert!(ServiceIpRanges::parse("10.0.0.0/24,10.1.0.0/24").is_err());
        assert!(
            ServiceIpRanges::parse("10.0.0.0/8")
                .unwrap_err()
                .contains(">= 12")
        );
        assert!(
            ServiceIpRanges::parse("fd00::/64")
                .unwrap_err()
                .contains(">= 108")
        );
    }

    #[test]
    fn port_ranges_take_both_forms() {
        assert_eq!(
            PortRange::parse("30000-32767").unwrap(),
            PortRange {
                first: 30000,
                last: 32767
            }
        );
        assert_eq!(PortRange::parse("30000+2").unwrap().size(), 3);
        assert!(PortRange::parse("32767-30000").is_err());
        assert!(PortRange::parse("x-1").is_err());
    }
}
