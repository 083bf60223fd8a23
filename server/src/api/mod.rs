//! The API layer: one generic registry in which a kind is data (`KindSpec`),
//! the generic store, schemas, selectors and patches. No HTTP here.

pub mod bodies;
pub mod cel;
pub mod decode;
pub mod deprecation;
pub mod error;
mod error_status;
pub mod group_priority;
pub mod index;
pub mod informer;
pub mod keys;
pub mod kind;
pub mod kinds;
pub mod managed;
pub mod meta;
pub mod object;
pub mod patch;
pub mod protobuf;
pub mod proxy;
pub mod quantity;
pub mod quota;
pub mod registry;
pub mod schema;
pub mod selectors;
pub mod served;
pub mod store;
pub mod table;
pub mod validation;
pub mod watch;
