//! `Reply`: a backend's answer, ready at once (the embedded backend: no
//! allocation, no task switch) or to wait for (a networked backend) — the
//! same "maybe async" answer the request pipeline's stages give.

pub use crate::util::maybe_async::{BoxFuture, MaybeAsync as Reply};
