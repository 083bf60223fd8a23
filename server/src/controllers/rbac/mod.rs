//! RBAC's own control loops: the default policy reconciled at start (the
//! `rbac/bootstrap-roles` hook) and ClusterRole aggregation kept current.

pub mod aggregation;
pub mod bootstrap;
mod bootstrap_aggregated;
mod bootstrap_certificates;
mod bootstrap_components;
mod in_effect;
pub mod reconcile;

pub use reconcile::HOOK;
