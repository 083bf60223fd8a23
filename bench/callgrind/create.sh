#!/bin/bash
# Instructions per ConfigMap create on the release server under callgrind
# (load-independent, unlike CPU time on a shared machine), and the part of
# them spent recording metrics (recording.py). Needs valgrind.
# Usage: bench/callgrind/create.sh [path/to/cairn-apiserver]
set -euo pipefail
bin=${1:-$(dirname "$0")/../../target/release/cairn-apiserver}
d=$(mktemp -d)
port=18089
valgrind --tool=callgrind --callgrind-out-file=$d/cg.out --dump-instr=no "$bin" --data-dir $d/data --secure-port 0 --insecure-port $port >$d/log 2>&1 &
vp=$!
for i in $(seq 1 120); do curl -sf localhost:$port/healthz >/dev/null 2>&1 && break; sleep 1; done
mk() { # $1 prefix $2 count
  for i in $(seq 1 $2); do
    printf 'url = "http://127.0.0.1:%s/api/v1/namespaces/default/configmaps"\nrequest = "POST"\nheader = "Content-Type: application/json"\nheader = "Accept: application/json"\nuser-agent = "cairn-bench"\ndata = "{\\"apiVersion\\":\\"v1\\",\\"kind\\":\\"ConfigMap\\",\\"metadata\\":{\\"name\\":\\"%s-%d\\"},\\"data\\":{\\"k\\":\\"%s\\"}}"\noutput = "/dev/null"\nnext\n' $port $1 $i $(head -c 300 /dev/zero | tr '\0' 'v')
  done | head -n -1 > $d/$1.cfg
}
mk warm 100; mk meas 500
curl -s -K $d/warm.cfg
sleep 1
callgrind_control -z $vp >/dev/null
curl -s -K $d/meas.cfg
callgrind_control -d $vp >/dev/null
sleep 1
kill $vp; wait $vp 2>/dev/null || true
# The dump taken right after the measured creates (the final one is at exit).
out=$d/cg.out.1
echo "dump: $out"
callgrind_annotate --inclusive=yes "$out" 2>/dev/null | head -3000 > $d/incl.txt
grep -m1 "PROGRAM TOTALS" $d/incl.txt || head -20 $d/incl.txt
python3 "$(dirname "$0")/recording.py" "$out" 500
echo "$d"
