//! The embedded backend against the conformance suite, on a real data
//! directory.

use super::Embedded;
use crate::storage::{Storage, conformance};

#[tokio::test]
async fn the_embedded_backend_passes_the_conformance_suite() {
    let dir = tempfile::tempdir().expect("tempdir");
    let storage = Embedded::open(dir.path()).expect("open");
    conformance::run_all(&storage, b"/conformance/").await;
    storage.close();
    assert!(storage.health().is_err(), "closed");
}
