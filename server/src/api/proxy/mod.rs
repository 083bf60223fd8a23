//! What the proxy subresource and aggregated APIs forward to: a Service's
//! endpoints, a Pod's IP, a Node's address. Resolving only; the
//! forwarding itself is `http::forward`.

pub mod aggregated;
pub mod endpoints;
pub mod location;
