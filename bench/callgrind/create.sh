#!/bin/bash
# Instructions per ConfigMap create on the release server under callgrind
# (load-independent, unlike CPU time on a shared machine), and the part of
# them spent recording metrics (recording.py). Needs valgrind.
# Usage: bench/callgrind/create.sh [path/to/cairn-apiserver]
# CAIRN_CG_AUTH=token: the same creates over TLS (HTTP/1.1) on the secure
# port with a static bearer token, to compare with plain. Either way one
# keep-alive connection is warmed up first (client.py): no handshake counts.
set -euo pipefail
bin=${1:-$(dirname "$0")/../../target/release/cairn-apiserver}
d=$(mktemp -d)
port=18089
if [ "${CAIRN_CG_AUTH:-}" = token ]; then
  token=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')
  echo "$token,bench,bench-uid,system:masters" > $d/tokens.csv
  flags=(--secure-port $port --token-auth-file $d/tokens.csv)
  base="https://127.0.0.1:$port"
  probe=(-k -H "Authorization: Bearer $token")
else
  flags=(--secure-port 0 --insecure-port $port)
  base="http://127.0.0.1:$port"
  probe=()
fi
valgrind --tool=callgrind --callgrind-out-file=$d/cg.out --dump-instr=no "$bin" --data-dir $d/data "${flags[@]}" >$d/log 2>&1 &
vp=$!
for i in $(seq 1 120); do curl -sf "${probe[@]}" $base/healthz >/dev/null 2>&1 && break; sleep 1; done
python3 "$(dirname "$0")/client.py" $base $d 100 500 ${token:-} &
cp=$!
while [ ! -e $d/warmed ]; do sleep 0.2; done
sleep 1
callgrind_control -z $vp >/dev/null
touch $d/go
wait $cp
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
