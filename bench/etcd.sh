#!/usr/bin/env bash
# Starts or stops the single-node etcd cairn-bench compares with: Debian's
# etcd-server (/usr/bin/etcd) on loopback only, a data directory of its own,
# fsync on (etcd's default; no --unsafe-no-fsync).
#
#   bench/etcd.sh start DIR   prints ETCD_URL=... and ETCD_PID=... (for eval);
#                             logs go to DIR/etcd.log, the pid to DIR/etcd.pid
#   bench/etcd.sh stop DIR    stops that etcd and removes DIR
#
# Ports: ETCD_CLIENT_PORT (default 23790) and ETCD_PEER_PORT (default 23800).
# Install etcd with: apt-get update && apt-get install -y etcd-server
set -euo pipefail

ETCD_BIN=${ETCD_BIN:-/usr/bin/etcd}
CLIENT_PORT=${ETCD_CLIENT_PORT:-23790}
PEER_PORT=${ETCD_PEER_PORT:-23800}

usage() {
    echo "usage: $0 start|stop DIR" >&2
    exit 2
}

[ $# -eq 2 ] || usage
cmd=$1
dir=$2

start() {
    if [ ! -x "$ETCD_BIN" ]; then
        echo "no etcd at $ETCD_BIN: apt-get update && apt-get install -y etcd-server" >&2
        exit 1
    fi
    if [ -e "$dir" ]; then
        echo "$dir exists: stop the etcd using it first ($0 stop $dir)" >&2
        exit 1
    fi
    mkdir -p "$dir"
    local client="http://127.0.0.1:$CLIENT_PORT" peer="http://127.0.0.1:$PEER_PORT"
    "$ETCD_BIN" \
        --name cairn-bench \
        --data-dir "$dir/data" \
        --listen-client-urls "$client" --advertise-client-urls "$client" \
        --listen-peer-urls "$peer" --initial-advertise-peer-urls "$peer" \
        --initial-cluster "cairn-bench=$peer" --initial-cluster-state new \
        --logger zap --log-level warn \
        </dev/null >"$dir/etcd.log" 2>&1 &
    local pid=$!
    echo "$pid" >"$dir/etcd.pid"
    for _ in $(seq 1 100); do
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "etcd exited at start-up; its log:" >&2
            tail -n 20 "$dir/etcd.log" >&2
            exit 1
        fi
        if curl -sf --max-time 1 "$client/health" 2>/dev/null | grep -q '"health":"true"'; then
            echo "ETCD_URL=$client"
            echo "ETCD_PID=$pid"
            return 0
        fi
        sleep 0.1
    done
    echo "etcd not healthy within 10 s; its log:" >&2
    tail -n 20 "$dir/etcd.log" >&2
    kill "$pid" 2>/dev/null || true
    exit 1
}

stop() {
    [ -d "$dir" ] || return 0
    if [ -f "$dir/etcd.pid" ]; then
        local pid
        pid=$(cat "$dir/etcd.pid")
        # Only the etcd this script started on this directory.
        if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "--data-dir $dir/data"; then
            kill -TERM "$pid" 2>/dev/null || true
            for _ in $(seq 1 100); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.1
            done
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    rm -rf "$dir"
}

case "$cmd" in
start) start ;;
stop) stop ;;
*) usage ;;
esac
