#!/usr/bin/env bash
# pmc exporter soak (issue 14): run by hand as root, never in CI.
#   bash bench/exporter_soak.sh [SECONDS] [EXTRA EXPORTER FLAGS...]
# Starts pmc exporter counting system-wide and every cgroup named pmc-soak-* (--refresh 200ms),
# scrapes /metrics every 100 ms for SECONDS (default 180) while a cgroup is created and one
# removed every second (4 live at a time, a busy process in each), and prints the exporter's
# open fds and RSS at the start and the end, and its CPU time per scrape (utime + stime from
# /proc/PID/stat over the number of scrapes). A growing fd count or RSS is a leak.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-180}
shift || true
go build -o bin/pmc ./cmd/pmc
pmc=$PWD/bin/pmc
mount=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/self/mounts)
[[ -n "$mount" ]] || { echo "no cgroup v2 hierarchy mounted" >&2; exit 1; }
tmp=$(mktemp -d)
pids=()
cleanup() {
	[[ -n "${exp:-}" ]] && kill "$exp" 2>/dev/null && wait "$exp" 2>/dev/null
	for d in "$mount"/pmc-soak-*; do
		[[ -d "$d" ]] || continue
		for p in $(cat "$d/cgroup.procs" 2>/dev/null); do kill "$p" 2>/dev/null || true; done
		for _ in 1 2 3 4 5 6 7 8 9 10; do rmdir "$d" 2>/dev/null && break; sleep 0.1; done
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
fds() { ls "/proc/$1/fd" | wc -l; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

newcg() { # a cgroup with a mostly idle process in it (wakes 10 times a second)
	local d="$mount/pmc-soak-$1"
	mkdir "$d"
	sh -c "echo \$\$ > '$d/cgroup.procs'; exec sh -c 'while :; do sleep 0.1; done'" &
}
delcg() {
	local d="$mount/pmc-soak-$1"
	for p in $(cat "$d/cgroup.procs" 2>/dev/null); do kill "$p" 2>/dev/null || true; done
	for _ in 1 2 3 4 5 6 7 8 9 10; do rmdir "$d" 2>/dev/null && return; sleep 0.05; done
}

for i in 0 1 2 3; do newcg "$i"; done
"$pmc" exporter --listen 127.0.0.1:0 --cgroup 'pmc-soak-*' --refresh 200ms "$@" 2>"$tmp/err" &
exp=$!
for _ in $(seq 50); do grep -q serving "$tmp/err" 2>/dev/null && break; sleep 0.1; done
url=$(grep -o 'http://[^ ]*' "$tmp/err")
curl -sf "$url" >/dev/null
sleep 1
curl -sf "$url" >/dev/null
fd0=$(fds $exp) rss0=$(rss_kb $exp) t0=$(cpu_ticks $exp)
echo "start: fds $fd0, rss $rss0 KiB ($(curl -sf "$url" | grep -c '^pmc_events_total') pmc_events_total series)"
scrapes=0 next=4 start=$(date +%s)
while (($(date +%s) - start < secs)); do
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		curl -sf -o /dev/null "$url" && scrapes=$((scrapes + 1))
		sleep 0.1
	done
	delcg $((next - 4)) # one cgroup goes, one comes, every second
	newcg $next
	next=$((next + 1))
done
sleep 1
curl -sf -o "$tmp/last" "$url"
fd1=$(fds $exp) rss1=$(rss_kb $exp) t1=$(cpu_ticks $exp)
echo "end after ${secs}s: fds $fd1, rss $rss1 KiB; $scrapes scrapes, $((next - 4)) cgroups created and removed"
grep -E '^pmc_(cgroups|cgroups_dropped|up|refresh_ok) ' "$tmp/last" | tr '\n' ' '; echo
awk -v t=$((t1 - t0)) -v hz="$hz" -v n="$scrapes" -v s="$secs" 'BEGIN {
	printf "exporter CPU: %.2f s in %d s (%.2f%% of one CPU), %.2f ms per scrape (refreshes included)\n",
		t / hz, s, 100 * t / hz / s, 1000 * t / hz / n }'
