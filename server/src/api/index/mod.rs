//! The decode-once layer between storage and selectors: the attributes
//! selectors read, extracted once per stored record (`attrs`), and the
//! cache of them by key and version that lists with selectors use (`cache`).

mod attrs;
mod cache;
mod sparse;

pub use attrs::Attributes;
pub use cache::{AttrCache, AttrCaches};
pub use sparse::Paths;
