//! In-process control loops: namespace bootstrap and finalization, garbage
//! collection (owner references, graceful deletion), and periodic
//! compaction of the store's history.

pub mod compaction;
pub mod crd;
pub mod gc;
pub mod namespace;
