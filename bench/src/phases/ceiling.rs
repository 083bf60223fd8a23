//! The create ceiling: the create load against a do-nothing HTTP/1.1 server
//! (`null_server`) in its own process, beside etcd's puts in the same run, so
//! a create-rate target can be read against what any HTTP/1.1 server could
//! answer on this machine with the bench sharing its cores.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::ops::Range;
use std::process::{Child, Command, Stdio};

use super::Ctx;
use super::create::rate_line;
use crate::load::run_writers;
use crate::proc::CpuSpan;
use crate::report::ratio_text;
use crate::{Result, cairn, etcd};

/// The null server's process, killed when dropped.
struct NullServer {
    child: Child,
    addr: SocketAddr,
}

impl NullServer {
    fn start() -> Result<Self> {
        let mut child = Command::new(std::env::current_exe()?)
            .args(["--serve-null", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .spawn()?;
        let stdout = child.stdout.take().ok_or("the null server has no stdout")?;
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line)?;
        let addr = line.trim().parse().map_err(|e| {
            let _ = child.kill();
            format!("the null server printed {line:?}, not its address: {e}")
        })?;
        Ok(Self { child, addr })
    }
}

impl Drop for NullServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Creates `range` with `conc` writers against the null server, then puts
/// the same count into etcd; prints both as a note.
pub async fn create(ctx: &mut Ctx, conc: usize, range: Range<u64>) -> Result<()> {
    let name = format!("create_ceiling_{conc}");
    eprintln!("-- {name}: {} creates", range.end - range.start);
    let null = NullServer::start()?;
    let writers = cairn::ops::writers(&cairn::Endpoint::plain(null.addr), conc).await?;
    let cpu = CpuSpan::start(Some(null.child.id()));
    let n = run_writers(writers, range.clone(), None).await?;
    let n_line = format!("{}; {}", rate_line(&n), cpu.text());
    drop(null);
    let Some(etcd) = &ctx.etcd else {
        ctx.report.note(&format!(
            "{name}: a do-nothing HTTP/1.1 server (tokio, hyper, 201 with the body) answered {n_line}"
        ));
        return Ok(());
    };
    let cpu = CpuSpan::start(etcd.pid);
    let e = run_writers(etcd::ops::writers(etcd, conc), range, None).await?;
    let ratio = n.rate() / e.rate();
    ctx.report.note(&format!(
        "{name}: a do-nothing HTTP/1.1 server (tokio, hyper, 201 with the body) answered {n_line} \
         | etcd put_{conc} {}; {} | the ceiling is {} etcd's puts: no HTTP/1.1 server \
         creating at this concurrency could pass it here",
        rate_line(&e),
        cpu.text(),
        ratio_text(ratio)
    ));
    Ok(())
}
