#!/bin/bash
# Instructions per ConfigMap create on the release server under callgrind
# (load-independent, unlike CPU time on a shared machine), and the part of
# them spent recording metrics (recording.py). Needs valgrind.
# Usage: bench/callgrind/create.sh [path/to/cairn-apiserver]
# CAIRN_CG_AUTH=token: the same creates over TLS (HTTP/1.1) on the secure
# port with a static bearer token, to compare with plain. Either way one
# keep-alive connection is warmed up first (client.py): no handshake counts.
# CAIRN_CG_AUTH=x509: over TLS presenting the admin client certificate the
# server wrote at first start. CAIRN_CG_KIND=events: 500-byte Events
# (cairn-bench's create shape) instead of ConfigMaps.
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
elif [ "${CAIRN_CG_AUTH:-}" = x509 ]; then
  flags=(--secure-port $port)
  base="https://127.0.0.1:$port"
  export CAIRN_CG_CERT=$d/admin.crt CAIRN_CG_KEY=$d/admin.key
  probe=(-k --cert $CAIRN_CG_CERT --key $CAIRN_CG_KEY)
else
  flags=(--secure-port 0 --insecure-port $port)
  base="http://127.0.0.1:$port"
  probe=()
fi
valgrind --tool=callgrind --callgrind-out-file=$d/cg.out --dump-instr=no "$bin" --data-dir $d/data "${flags[@]}" >$d/log 2>&1 &
vp=$!
if [ "${CAIRN_CG_AUTH:-}" = x509 ]; then
  # The admin kubeconfig's client certificate and key, as PEM files.
  for i in $(seq 1 120); do [ -s $d/data/admin.kubeconfig ] && break; sleep 1; done
  python3 - $d <<'PY'
import base64, sys
import yaml
d = sys.argv[1]
user = yaml.safe_load(open(f"{d}/data/admin.kubeconfig"))["users"][0]["user"]
for field, out in (("client-certificate-data", "admin.crt"), ("client-key-data", "admin.key")):
    open(f"{d}/{out}", "wb").write(base64.b64decode(user[field]))
PY
fi
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
