//! Real clients run as processes: kubectl (against a server, with no
//! kubeconfig) and the virtualenv's Python with the `kubernetes` client.
//! Callers skip, with a message, when one is not installed.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::Server;

/// The Python interpreter that has the `kubernetes` client (`$CAIRN_PYTHON`,
/// else the workspace's `.venv`), if there is one.
#[must_use]
pub fn python() -> Option<PathBuf> {
    let candidate = std::env::var("CAIRN_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/python"));
    let ok = Command::new(&candidate)
        .args(["-c", "import kubernetes"])
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some(candidate)
}

/// A kubectl command with `s`'s own discovery cache (`Server::kubectl_cache`).
#[must_use]
pub fn kubectl_command(s: &Server) -> Command {
    let mut cmd = Command::new("kubectl");
    cmd.arg("--cache-dir").arg(s.kubectl_cache());
    cmd
}

/// Runs kubectl against `s`'s plain-HTTP port; returns success and stdout
/// followed by stderr.
#[must_use]
pub fn kubectl(s: &Server, args: &[&str], stdin: Option<&str>) -> (bool, String) {
    let mut cmd = kubectl_command(s);
    cmd.arg("--server")
        .arg(s.url())
        .args(args)
        .env("KUBECONFIG", "/dev/null");
    run_kubectl(cmd, stdin)
}

/// Runs kubectl with a kubeconfig (e.g. the server's admin.kubeconfig).
#[must_use]
pub fn kubectl_with_kubeconfig(
    kubeconfig: &Path,
    args: &[&str],
    stdin: Option<&str>,
) -> (bool, String) {
    // A kubeconfig stands for one server: the cache goes beside it.
    let mut cmd = Command::new("kubectl");
    cmd.arg("--cache-dir")
        .arg(kubeconfig.with_extension("kubectl-cache"))
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(args);
    run_kubectl(cmd, stdin)
}

/// kubectl with the server's admin kubeconfig; asserts it succeeds and
/// returns its output.
pub fn kubectl_admin(s: &Server, args: &[&str], stdin: Option<&str>) -> String {
    let (ok, out) = kubectl_with_kubeconfig(&s.admin_kubeconfig(), args, stdin);
    assert!(ok, "kubectl {args:?}: {out}");
    out
}

/// kubectl against the server's HTTPS port as the bearer of `token` (no
/// client certificate), trusting the CA in `ca_file`.
pub fn kubectl_as_bearer(s: &Server, ca_file: &Path, token: &str, args: &[&str]) -> (bool, String) {
    let (url, ca) = (s.https_url(), ca_file.display().to_string());
    let mut all = vec!["--server", &url, "--certificate-authority", &ca];
    all.extend(["--token", token]);
    all.extend_from_slice(args);
    kubectl_with_kubeconfig(Path::new("/dev/null"), &all, None)
}

fn run_kubectl(mut cmd: Command, stdin: Option<&str>) -> (bool, String) {
    use std::io::Write;
    cmd.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("kubectl");
    if let Some(input) = stdin {
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes())
            .expect("write");
    }
    drop(child.stdin.take());
    let out = child.wait_with_output().expect("kubectl output");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// Whether kubectl is on PATH (prints SKIPPED when it is not).
#[must_use]
pub fn kubectl_present() -> bool {
    let present = Command::new("kubectl")
        .args(["version", "--client"])
        .output()
        .is_ok();
    if !present {
        eprintln!("SKIPPED: kubectl is not on PATH");
    }
    present
}

/// Runs one script of `tests/python` against a server started with `args`
/// (on the plain-HTTP port; the script gets its URL).
pub fn run_python_script(script: &str, args: &[&str]) {
    if python().is_none() {
        eprintln!(
            "SKIPPED: the Python `kubernetes` client is not installed (run the README test command, which creates .venv)"
        );
        return;
    }
    let s = Server::start(args);
    run_python_against(&s, script, &[&s.url()]);
}

/// Runs one script of `tests/python` with `script_args` against the running
/// `s`; skips (with a message) when the client is not installed.
pub fn run_python_against(s: &Server, script: &str, script_args: &[&str]) {
    let Some(py) = python() else {
        eprintln!(
            "SKIPPED: the Python `kubernetes` client is not installed (run the README test command, which creates .venv)"
        );
        return;
    };
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("python")
        .join(script);
    let out = Command::new(py)
        .arg(script)
        .args(script_args)
        .output()
        .expect("run python");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "python client checks failed:\n{stdout}\n{}\nserver log:\n{}",
        String::from_utf8_lossy(&out.stderr),
        s.log_text()
    );
    assert!(stdout.contains("all checks passed"), "{stdout}");
}
