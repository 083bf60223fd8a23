//! In-process control loops: namespace bootstrap and finalization, garbage
//! collection (owner references, graceful deletion), and periodic
//! compaction of the store's history, the `default` service account
//! of every namespace, RBAC's default policy and aggregation, and the
//! default flow-control (API Priority and Fairness) objects and the system
//! priority classes, the signing of approved certificate requests, and
//! the type checking of ValidatingAdmissionPolicies.
//! Where several API servers share one etcd, the controllers of
//! `singletons` run only on the one that holds the leader Lease.

pub mod admission_policy_status;
pub mod api_services;
pub mod compaction;
pub mod crd;
pub mod csr_approving;
pub mod csr_kubelet;
pub mod csr_signing;
pub mod extension_auth;
pub mod flowcontrol;
pub mod flowcontrol_status;
pub mod gc;
pub mod kept;
pub mod kubernetes_endpoints;
pub mod kubernetes_service;
pub mod leader_election;
pub mod namespace;
pub mod paired;
pub mod priority_classes;
pub mod rbac;
pub mod resource_quota;
pub mod root_ca;
pub mod service_account;
pub mod singletons;
