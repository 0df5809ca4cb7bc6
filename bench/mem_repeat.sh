#!/usr/bin/env bash
# bench/mem_repeat.sh [RUNS] [-- pmc mem flags]: run `pmc mem --json` RUNS times (default 3)
# and check that the runs agree: the tiers' levels and step sizes, and each level's latency
# and the latency at fixed sizes within 10% (max/min - 1). Exits 1 when they do not.
# Needs python3 to read the JSON.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
shift || true
[ "${1:-}" = "--" ] && shift
command -v python3 >/dev/null || { echo "mem_repeat: needs python3 to compare the JSON documents" >&2; exit 2; }
[ -x bin/pmc ] || { echo "mem_repeat: bin/pmc is missing: run make build" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for i in $(seq "$RUNS"); do
	./bin/pmc mem --json -o "$TMP/run$i.json" "$@"
	echo "run $i done" >&2
done
python3 - "$TMP"/run*.json <<'PY'
import json, sys
runs = [json.load(open(f)) for f in sys.argv[1:]]
def kib(b): return f"{b/1024:.0f}K" if b < 1 << 20 else f"{b/(1<<20):.1f}M"
ok = True
print("run  tiers (level from..to: ns)")
for i, r in enumerate(runs):
    print(f"{i+1:3}  " + "  ".join(f"{t['level']} {kib(t['from_bytes'])}..{kib(t['to_bytes'])}: {t['ns']:.2f}" for t in r["tiers"]))
print("run  steps (after -> at, ratio, sysfs cache)")
for i, r in enumerate(runs):
    print(f"{i+1:3}  " + "  ".join(f"{kib(s['after_bytes'])}->{kib(s['at_bytes'])} x{s['ratio']:.2f} {s.get('cache') or s['kind']}" for s in r["steps"]))

def spread(xs): return max(xs) / min(xs) - 1 if min(xs) > 0 else float("inf")

# 1. the L1 step: matched to the sysfs L1d in every run (its sizes may move by one size when
#    the list exactly fills the cache)
l1 = [next(((s["after_bytes"], s["at_bytes"]) for s in r["steps"] if s.get("cache") == "L1d"), None) for r in runs]
same = None not in l1
ok &= same
print(f"L1d step: {[f'{kib(x[0])}->{kib(x[1])}' if x else None for x in l1]}  {'found in every run' if same else 'MISSING in a run'}")

# 2. the step to DRAM latency: the step into the first tier labelled DRAM
dram = []
for r in runs:
    idx = next((k for k, t in enumerate(r["tiers"]) if t["level"].startswith("DRAM")), None)
    dram.append(None if idx in (None, 0) else (r["steps"][idx-1]["after_bytes"], r["steps"][idx-1]["at_bytes"]))
print(f"step to DRAM: {[f'{kib(x[0])}->{kib(x[1])}' if x else None for x in dram]}"
      f"  {'same sizes' if len(set(dram)) == 1 else 'differs (the effective L3 of a shared host moves)'}")

# 3. each level's latency: the first tier with that label; for DRAM the median over the sizes
#    in a DRAM tier in every run (where DRAM starts moves with the host's load)
def dram_sizes(r):
    return {p["size_bytes"] for p in r["points"] for t in r["tiers"]
            if t["level"].startswith("DRAM") and t["from_bytes"] <= p["size_bytes"] <= t["to_bytes"]}
common = set.intersection(*[dram_sizes(r) for r in runs])
def dram_ns(r):
    # the median over the sizes that every run puts in a DRAM tier: the same lists in each run
    xs = sorted(p["ns"] for p in r["points"] if p["size_bytes"] in common)
    return xs[len(xs) // 2] if xs else None
for level in ["L1", "L2", "L3", "DRAM"]:
    ns = [dram_ns(r) if level == "DRAM" else next((t["ns"] for t in r["tiers"] if t["level"] == level), None) for r in runs]
    if None in ns:
        print(f"{level:5} latency: missing in some run: {ns}")
        continue
    s = spread(ns)
    ok &= s <= 0.10
    print(f"{level:5} latency ns: {' '.join(f'{x:.2f}' for x in ns)}  spread {100*s:.1f}%  {'ok' if s <= 0.10 else 'OVER 10%'}")

# 4. latency at fixed sizes inside the tiers
sizes = sorted(set.intersection(*[{p["size_bytes"] for p in r["points"]} for r in runs]))
for want in [16 << 10, 128 << 10, 1 << 20, 64 << 20, 256 << 20]:
    if want not in sizes:
        continue
    ns = [next(p["ns"] for p in r["points"] if p["size_bytes"] == want) for r in runs]
    s = spread(ns)
    ok &= s <= 0.10
    print(f"{kib(want):>6} list ns/hop: {' '.join(f'{x:.2f}' for x in ns)}  spread {100*s:.1f}%  {'ok' if s <= 0.10 else 'OVER 10%'}")
print("reruns agree within 10%" if ok else "reruns DO NOT agree within 10%")
sys.exit(0 if ok else 1)
PY
