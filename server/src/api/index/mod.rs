//! The decode-once layer between storage and selectors: the attributes
//! selectors read, extracted once per stored record (`attrs`), and the
//! in-memory indexes of them that lists use (`list`).

mod attrs;

pub use attrs::Attributes;
