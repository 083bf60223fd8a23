//! Writers of a selective shape's objects (`shape::Shape`): one keep-alive
//! connection each, every response checked for the created object.

use std::sync::Arc;

use http::StatusCode;
use memchr::memmem;

use super::endpoint::Endpoint;
use super::lean::LeanConn;
use crate::Result;
use crate::load::Writer;
use crate::shape::Shape;

pub struct ShapedWriter {
    conn: LeanConn,
    shape: Arc<Shape>,
    path: String,
}

impl Writer for ShapedWriter {
    async fn create(&mut self, i: u64) -> Result<()> {
        let (status, body) = self.conn.post(&self.path, &self.shape.body(i)).await?;
        if status != StatusCode::CREATED.as_u16() {
            let text = String::from_utf8_lossy(&body[..body.len().min(300)]);
            return Err(format!("POST {}: {status} (wanted 201): {text}", self.path).into());
        }
        if memmem::find(body, format!("\"s-{i}\"").as_bytes()).is_none() {
            return Err(format!("POST {}: 201 without the created object", self.path).into());
        }
        Ok(())
    }
}

/// `n` writers of `shape`, each with its own connection to `endpoint`.
pub async fn writers(
    endpoint: &Endpoint,
    shape: &Arc<Shape>,
    n: usize,
) -> Result<Vec<ShapedWriter>> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(ShapedWriter {
            conn: LeanConn::open(endpoint).await?,
            shape: Arc::clone(shape),
            path: shape.create_path(),
        });
    }
    Ok(out)
}
