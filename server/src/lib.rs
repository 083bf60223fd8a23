//! cairn-apiserver: a Kubernetes-compatible API server on cairn's storage
//! engine. Layers, top to bottom: `http` (hyper front end) → `request` (the
//! pipeline: authentication, authorization, admission) → `api` (one generic
//! registry; kinds are data) → `storage` (the backend boundary).

pub mod api;
pub mod app;
pub(crate) mod app_admission;
mod app_serving;
pub mod config;
pub mod controllers;
#[doc(hidden)]
pub mod fuzz_targets;
pub mod http;
pub mod logging;
pub mod metrics;
pub mod request;
pub mod storage;
pub mod tls;
pub mod trace;
pub mod util;
