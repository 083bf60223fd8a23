//! In-process control loops: namespace bootstrap and finalization, and
//! periodic compaction of the store's history.

pub mod compaction;
pub mod crd;
pub mod namespace;
