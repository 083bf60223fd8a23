#!/usr/bin/env bash
# The whole benchmark: builds release binaries, starts etcd (bench/etcd.sh),
# runs cairn-bench against a cairn-apiserver it starts and against that etcd,
# and stops everything, on failure or Ctrl-C too. Extra arguments go to
# cairn-bench (e.g. --quick, --auth-only, --select-only, --list-select-only,
# --reopen-1m). Data directories live under target/bench-data.
set -euo pipefail

# The selective phases hold up to 5,000 watch connections (one fd each here
# and in the server, which inherits the limit): raise the soft limit.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
cd "$(dirname "$0")/.."

cargo build --release -p cairn-apiserver -p cairn-bench
bin="${CARGO_TARGET_DIR:-target}/release"

work=target/bench-data
etcd_dir="$work/etcd-$$"
mkdir -p "$work"
trap 'bench/etcd.sh stop "$etcd_dir"' EXIT

eval "$(bench/etcd.sh start "$etcd_dir")"
echo "etcd $("${ETCD_BIN:-/usr/bin/etcd}" --version | head -n 1 | cut -d' ' -f3) at $ETCD_URL (pid $ETCD_PID)" >&2

"$bin/cairn-bench" \
    --server-bin "$bin/cairn-apiserver" \
    --etcd "$ETCD_URL" --etcd-pid "$ETCD_PID" \
    --work-dir "$work" \
    --etcd-bin "${ETCD_BIN:-/usr/bin/etcd}" \
    "$@"
