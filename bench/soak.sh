#!/usr/bin/env bash
# Long runs of pmc stat in bounded memory and fds (issue 16): run by hand, never in CI.
#   bash bench/soak.sh [SECONDS] [REPEATS]
# 1. pmc stat -a -A -I 100 -o FILE for SECONDS (default 600): RSS and open fds of pmc after
#    5 s and at the end (it grew from 10 to 17 MB in 30 s when intervals were kept in memory).
# 2. pmc stat -r REPEATS -- /bin/true (default 20000): RSS at the end (it reached 120 MB at
#    -r 100000 when every run was kept), compared with -r 100.
# perf stat does the same work side by side where it can (-a -A -I 100) for the peer's numbers.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
reps=${2:-20000}
make -s build >/dev/null
pmc=$PWD/bin/pmc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
fds() { ls "/proc/$1/fd" | wc -l; }

echo "== pmc stat -a -A -I 100 for ${secs}s"
"$pmc" stat -a -A -I 100 -o "$tmp/intervals.txt" -e cpu-clock,context-switches,page-faults --duration "${secs}s" &
p=$!
perf stat -a -A -I 100 -o "$tmp/perf.txt" -e cpu-clock,context-switches,page-faults -- sleep "$secs" &
f=$!
sleep 5
echo "after 5 s:     pmc rss $(rss_kb $p) KiB fds $(fds $p); perf rss $(rss_kb $f) KiB fds $(fds $f)"
sleep $((secs - 10))
echo "after $((secs - 5)) s: pmc rss $(rss_kb $p) KiB fds $(fds $p); perf rss $(rss_kb $f) KiB fds $(fds $f)"
wait $p $f
echo "rows written: pmc $(wc -l < "$tmp/intervals.txt"), perf $(wc -l < "$tmp/perf.txt")"

peak() { # peak RSS (KiB) of a command, from its rusage
	/usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1
}
echo "== pmc stat -r N -- /bin/true: peak RSS"
echo "-r 100:      $(/usr/bin/time -f %M "$pmc" stat -r 100 -e task-clock -o /dev/null -- /bin/true 2>&1 >/dev/null | tail -1) KiB"
echo "-r $reps:    $(/usr/bin/time -f %M "$pmc" stat -r "$reps" -e task-clock -o /dev/null -- /bin/true 2>&1 >/dev/null | tail -1) KiB"
echo "perf -r $reps: $(/usr/bin/time -f %M perf stat -r "$reps" -e task-clock -o /dev/null -- /bin/true 2>&1 >/dev/null | tail -1) KiB"
