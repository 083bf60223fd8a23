//! The machine's loopback TCP ceiling: how many bytes per second one sender
//! thread can push through N loopback connections to one reader thread with
//! nothing else running — the most any watch fan-out over that many
//! connections could deliver here, whatever the server does.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::time::{Duration, Instant};

use crate::Result;

/// What the probe moved.
#[derive(Clone, Copy, Debug)]
pub struct Ceiling {
    pub bytes: u64,
    pub elapsed: Duration,
}

impl Ceiling {
    pub fn bytes_per_sec(&self) -> f64 {
        self.bytes as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Writes `chunk` bytes to each of `connections` loopback connections in
/// turn, round after round, for about `run_for`, while another thread reads
/// them in the same order. Whole rounds only, so every connection carries
/// the same bytes.
pub fn probe(connections: usize, chunk: usize, run_for: Duration) -> Result<Ceiling> {
    let connections = connections.max(1);
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    let mut readers = Vec::with_capacity(connections);
    let mut writers = Vec::with_capacity(connections);
    for _ in 0..connections {
        let r = TcpStream::connect(addr)?;
        let (w, _) = listener.accept()?;
        w.set_nodelay(true)?;
        readers.push(r);
        writers.push(w);
    }
    let start = Instant::now();
    let sender = std::thread::Builder::new()
        .name("ceiling-send".into())
        .spawn(move || -> std::io::Result<u64> {
            let data = vec![b'x'; chunk];
            let mut rounds = 0;
            while start.elapsed() < run_for {
                for w in &mut writers {
                    w.write_all(&data)?;
                }
                rounds += 1;
            }
            for w in &writers {
                w.shutdown(Shutdown::Write)?;
            }
            Ok(rounds)
        })?;
    let received = read_rounds(&mut readers, chunk)?;
    let elapsed = start.elapsed();
    let rounds = sender
        .join()
        .map_err(|_| "the ceiling probe's sender panicked")??;
    let sent = rounds * (chunk * connections) as u64;
    if received != sent {
        return Err(format!("ceiling probe: sent {sent} bytes, received {received}").into());
    }
    Ok(Ceiling {
        bytes: received,
        elapsed,
    })
}

/// Reads `chunk` bytes from each connection in turn until the first one ends.
fn read_rounds(readers: &mut [TcpStream], chunk: usize) -> Result<u64> {
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        for (i, r) in readers.iter_mut().enumerate() {
            let mut left = chunk;
            while left > 0 {
                let want = left.min(buf.len());
                match r.read(&mut buf[..want]) {
                    Ok(0) if i == 0 && left == chunk => return Ok(total),
                    Ok(0) => return Err("ceiling probe: a connection ended mid-round".into()),
                    Ok(n) => {
                        left -= n;
                        total += n as u64;
                    }
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    Err(e) => return Err(e.into()),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_connection_carries_whole_rounds() {
        let c = probe(3, 1000, Duration::from_millis(20)).unwrap();
        assert!(c.bytes > 0);
        assert_eq!(c.bytes % 3000, 0, "whole rounds of 3 × 1000 bytes");
        assert!(c.bytes_per_sec() > 0.0);
    }
}
