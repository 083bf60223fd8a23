//! Encoders that write answers from stored bytes: JSON (json.rs), protobuf
//! (protobuf.rs), and the one streaming list body both use (list_body.rs).
//! Values without stored bytes go through `negotiate::encode`; `respond.rs`
//! picks the encoder and builds the response.

pub mod json;
pub mod list_body;
pub mod protobuf;
