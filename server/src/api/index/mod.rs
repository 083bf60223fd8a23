//! The decode-once layer between storage and selectors: the attributes
//! selectors read, extracted once per stored record (`attrs`), the
//! exact-match terms selections are indexed by (`term`), and the per-kind
//! list indexes of them that lists with selectors read instead of every
//! stored object (`kind_index`, `state`, `postings`, `indexes`).

mod attrs;
mod indexes;
mod kind_index;
mod postings;
mod sparse;
mod state;
mod term;

pub use attrs::Attributes;
pub use indexes::KindIndexes;
pub use kind_index::KindIndex;
pub use sparse::Paths;
pub use term::{Family, Term, exact_term};
