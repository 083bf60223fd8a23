#!/usr/bin/env python3
"""Recording cost per create from a callgrind dump (release server, N creates).

Usage: recording.py DUMP N. Sums, per create: the inclusive cost of the
recording entry points (request, storage, admission, authentication and
authorization metrics, the in-flight timing ratio), the metered storage
wrapper's own work (its clock readings included) and every other clock
reading taken for metrics (the admission chain's laps, the authentication
and authorization timers)."""
import re, subprocess, sys
dump, n = sys.argv[1], int(sys.argv[2])
out = subprocess.run(["callgrind_annotate", "--tree=calling", "--inclusive=yes", "--threshold=100", dump],
                     capture_output=True, text=True).stdout
blocks = {}
cur = None
for line in out.splitlines():
    m = re.match(r"\s*([\d,]+) \([ \d.]+%\)  \*  \S*?:(.*) \[", line)
    if m:
        cur = m.group(2); blocks[cur] = {"incl": int(m.group(1).replace(",", "")), "calls": {}}
        continue
    m = re.match(r"\s*([\d,]+) \([ \d.]+%\)  >   \S*?:(.*) \(([\d,]+)x\) \[", line)
    if m and cur:
        blocks[cur]["calls"][m.group(2)] = int(m.group(1).replace(",", ""))
entry = [r"http::instrument::Measured::start$", r"http::instrument::Measured::finish$",
         r"http::instrument::Reported::of$", r"metrics::auth::AuthnMetrics::observe$",
         r"metrics::authz::AuthzMetrics::observe$", r"metrics::admission::AdmissionMetrics::observe_",
         r"metrics::timing_ratio::TimingRatio::add$", r"MeteredStorage as .*Storage>::(get|commit|range)::\{\{closure\}\}$",
         r"metrics::storage::StorageMetrics::series$"]
# Metrics read the clock through metrics::clock::Stamp (nothing else calls
# clock_gettime directly); its readings inlined into other functions count.
clock = {"clock_gettime@@GLIBC_2.17", "cairn_apiserver::metrics::clock::Stamp::now"}
total = 0; parts = []
for name, b in blocks.items():
    if any(re.search(e, name) for e in entry):
        total += b["incl"]; parts.append((b["incl"], name))
    elif re.search(r"MeteredStorage as .*Storage>::(get|commit|range)$", name):
        # the wrapper's own work: all but the inner backend call and its closure (counted above)
        own = b["incl"] - sum(c for k, c in b["calls"].items() if "MeteredStorage" in k or "Embedded" in k or "Transforming" in k or any(re.search(e, k) for e in entry))
        total += own; parts.append((own, name + " (own)"))
    elif name.startswith(("cairn_apiserver", "<cairn_apiserver")):
        c = sum(v for k, v in b["calls"].items() if k in clock)
        if c:
            total += c; parts.append((c, name + " (clock)"))
for c, nme in sorted(parts, reverse=True):
    print(f"{c / n:8.0f}  {nme[:150]}")
prog = int(re.search(r"([\d,]+) \(100.0%\)  PROGRAM TOTALS", out).group(1).replace(",", ""))
print(f"recording {total / n:.0f} of {prog / n:.0f} instructions per create = {100 * total / prog:.2f}%")
