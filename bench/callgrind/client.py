#!/usr/bin/env python3
"""Serial creates over one keep-alive connection, for create.sh.

Usage: client.py BASE_URL DIR WARM MEASURED [TOKEN]. Sends WARM creates,
touches DIR/warmed, waits for DIR/go (the counters are zeroed meanwhile),
then sends MEASURED creates on the same connection, so a TLS handshake is
never part of what is measured. Each request goes out in one write (one
TLS record), as Go's and curl's clients send a small request. Exits
non-zero if a create is not 201. CAIRN_CG_KIND=events creates 500-byte
Events (cairn-bench's shape) instead of ConfigMaps; CAIRN_CG_CERT and
CAIRN_CG_KEY name a client certificate to present."""
import json, os, socket, ssl, sys, time, urllib.parse

base, d, warm, measured = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
token = sys.argv[5] if len(sys.argv) > 5 else None
url = urllib.parse.urlparse(base)
sock = socket.create_connection((url.hostname, url.port))
sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
if url.scheme == "https":
    ctx = ssl.create_default_context()
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    ctx.set_alpn_protocols(["http/1.1"])
    if os.environ.get("CAIRN_CG_CERT"):
        ctx.load_cert_chain(os.environ["CAIRN_CG_CERT"], os.environ["CAIRN_CG_KEY"])
    sock = ctx.wrap_socket(sock, server_hostname=url.hostname)
auth = f"Authorization: Bearer {token}\r\n" if token else ""
pending = b""

def read_response():
    global pending
    while b"\r\n\r\n" not in pending:
        pending += sock.recv(65536)
    head, _, pending = pending.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    length = next(int(l.split(":", 1)[1]) for l in lines if l.lower().startswith("content-length:"))
    while len(pending) < length:
        pending += sock.recv(65536)
    pending = pending[length:]
    return int(lines[0].split()[1])

EVENTS = os.environ.get("CAIRN_CG_KIND") == "events"

def create(name):
    if EVENTS:
        # cairn-bench's Event (bench/src/event.rs), padded to 500 bytes.
        path = "/api/v1/namespaces/default/events"
        doc = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": name, "namespace": "default"},
               "involvedObject": {"kind": "Pod", "namespace": "default", "name": "pod-" + name, "apiVersion": "v1"},
               "reason": "BenchCreated", "type": "Normal", "source": {"component": "cairn-bench"},
               "count": 1, "message": ""}
        size = len(json.dumps(doc, separators=(",", ":")))
        doc["message"] = "x" * max(0, 500 - size)
    else:
        path = "/api/v1/namespaces/default/configmaps"
        doc = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v" * 300}}
    body = json.dumps(doc, separators=(",", ":")).encode()
    head = (f"POST {path} HTTP/1.1\r\nHost: {url.netloc}\r\n"
            f"User-Agent: cairn-bench\r\nContent-Type: application/json\r\nAccept: application/json\r\n"
            f"{auth}Content-Length: {len(body)}\r\n\r\n").encode()
    sock.sendall(head + body)
    status = read_response()
    if status != 201:
        sys.exit(f"create {name}: {status}")

for i in range(warm):
    create(f"warm-{i}")
open(os.path.join(d, "warmed"), "w").close()
while not os.path.exists(os.path.join(d, "go")):
    time.sleep(0.05)
for i in range(measured):
    create(f"meas-{i}")
