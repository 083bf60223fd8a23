//! The Endpoints and EndpointSlice of the `kubernetes` Service, as
//! kube-apiserver's endpoint reconciler keeps them: one address (the
//! advertised one) on the secure port, named `https`. Created at start,
//! put back when edited, recreated when deleted — on every change the
//! informers report, as kube's reconciler does every 10 seconds.

use std::net::{IpAddr, Ipv4Addr, UdpSocket};
use std::sync::Arc;

use serde_json::{Value, json};

use crate::api::informer::KeyValue;
use crate::api::keys;
use crate::api::store::Store;
use crate::app::AppState;
use crate::config::Config;
use crate::controllers::kept::Kept;
use crate::controllers::paired::Paired;

const NAMESPACE: &str = "default";
const NAME: &str = "kubernetes";

/// The address other members of the cluster reach this server at, as
/// kube-apiserver picks it: `--advertise-address`, else a bind address that
/// is neither loopback nor unspecified, else the address of the interface
/// the default route leaves by, else loopback.
#[must_use]
pub fn advertised_ip(config: &Config) -> IpAddr {
    if let Some(ip) = config.advertise_address.filter(|ip| !ip.is_unspecified()) {
        return ip;
    }
    let bind = config.bind_address;
    if !bind.is_loopback() && !bind.is_unspecified() {
        return bind;
    }
    default_route_ip().unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST))
}

/// The local address a datagram to a public address would leave from (a
/// UDP connect sends nothing; it only consults the routing table).
fn default_route_ip() -> Option<IpAddr> {
    let socket = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0)).ok()?;
    socket.connect((Ipv4Addr::new(192, 0, 2, 1), 9)).ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_unspecified() && !ip.is_loopback()).then_some(ip)
}

/// The port clients reach this server at (the plain one when HTTPS is off).
fn port(config: &Config) -> u16 {
    config.bound.lock().map_or(config.secure_port, |a| a.port())
}

fn https_port(port: u16) -> Value {
    json!([{"name": "https", "port": port, "protocol": "TCP"}])
}

/// The Endpoints as kube's reconciler writes them.
#[must_use]
pub fn desired_endpoints(ip: IpAddr, port: u16) -> Value {
    json!({
        "metadata": {
            "name": NAME,
            "labels": {"endpointslice.kubernetes.io/skip-mirror": "true"}
        },
        "subsets": [{"addresses": [{"ip": ip.to_string()}], "ports": https_port(port)}]
    })
}

/// The EndpointSlice as kube's reconciler writes it.
#[must_use]
pub fn desired_slice(ip: IpAddr, port: u16) -> Value {
    json!({
        "metadata": {
            "name": NAME,
            "labels": {"kubernetes.io/service-name": NAME}
        },
        "addressType": if ip.is_ipv4() { "IPv4" } else { "IPv6" },
        "endpoints": [{"addresses": [ip.to_string()], "conditions": {"ready": true}}],
        "ports": https_port(port)
    })
}

/// The fields the reconciler owns besides its labels.
const OWNED: &[&str] = &["subsets", "addressType", "endpoints", "ports"];

/// The stored `default/kubernetes` object of a kind.
fn the_object(kv: &KeyValue) -> Option<Value> {
    if !kv.key.ends_with(format!("/{NAMESPACE}/{NAME}").as_bytes()) {
        return None;
    }
    Store::decode_stored(kv).ok()
}

/// Runs until the server stops.
pub async fn run(state: Arc<AppState>) {
    let store = &state.store;
    let endpoints = store
        .registry
        .lookup("", "v1", "endpoints")
        .expect("core kinds are built in");
    let discovery = format!("discovery.{}", state.config.api_domain);
    let Some(slices) = store.registry.lookup(&discovery, "v1", "endpointslices") else {
        return;
    };
    let mut pair = Paired::new(
        store,
        (&endpoints, the_object),
        (&slices, the_object),
        state.shutdown.clone(),
        "kubernetes endpoints reconciler",
    );
    let ip = advertised_ip(&state.config);
    while pair.due().await {
        let port = port(&state.config);
        let key = |kind| keys::object_key(kind, Some(NAMESPACE), NAME);
        let stored_endpoints = pair.first.get(&key(&endpoints));
        let stored_slice = pair.second.get(&key(&slices));
        let again = Kept::new(store, &endpoints, NAMESPACE, OWNED)
            .keep(stored_endpoints, desired_endpoints(ip, port))
            .await
            | Kept::new(store, &slices, NAMESPACE, OWNED)
                .keep(stored_slice, desired_slice(ip, port))
                .await;
        pair.swept(again);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoints_name_the_address_and_https_port() {
        let ip = IpAddr::V4(Ipv4Addr::new(10, 1, 2, 3));
        assert_eq!(
            desired_endpoints(ip, 6443)["subsets"],
            json!([{"addresses": [{"ip": "10.1.2.3"}],
                    "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}]}])
        );
        let v6 = desired_slice("fd00::1".parse().expect("ip"), 6443);
        assert_eq!(v6["addressType"], "IPv6");
    }

    #[test]
    fn the_advertised_address_prefers_the_flag_then_a_real_bind_address() {
        use clap::Parser;

        use crate::config::Flags;
        let config = |args: &[&str]| {
            Config::from(Flags::parse_from(
                std::iter::once("cairn-apiserver").chain(args.iter().copied()),
            ))
        };
        assert_eq!(
            advertised_ip(&config(&["--advertise-address", "10.0.0.5"])),
            "10.0.0.5".parse::<IpAddr>().expect("ip")
        );
        assert_eq!(
            advertised_ip(&config(&["--bind-address", "10.0.0.6"])),
            "10.0.0.6".parse::<IpAddr>().expect("ip")
        );
        assert!(!advertised_ip(&config(&[])).is_unspecified());
    }
}
