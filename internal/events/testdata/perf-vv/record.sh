#!/bin/sh
# Record `perf stat -vv` for every case of ../cases.txt on the machine this snapshot was taken
# from (x86_64-kvm-epyc: perf 6.1, root). Each output file starts with the command line; the
# attr test (perfvv_test.go) compares perf's perf_event_attr blocks with pmc's Resolve.
# Usage: sh record.sh [case...]   (from any directory; no case names = all cases)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
machine=x86_64-kvm-epyc
only="$*"
grep -v '^#' "$here/../cases.txt" | while IFS='|' read -r name mach flags events; do
	name=$(echo "$name" | tr -d ' '); mach=$(echo "$mach" | tr -d ' ')
	flags=$(echo "$flags" | sed 's/^ *//;s/ *$//'); events=$(echo "$events" | sed 's/^ *//;s/ *$//')
	[ "$mach" = "$machine" ] || continue
	if [ -n "$only" ]; then case " $only " in *" $name "*) ;; *) continue ;; esac; fi
	set -- perf stat -vv
	[ "$flags" = "-" ] || set -- "$@" $flags
	[ "$events" = "-" ] || set -- "$@" -e "$events"
	set -- "$@" true
	{
		echo "# $*"
		echo "# perf $(perf version | sed 's/perf version //'), kernel $(uname -r), uid $(id -u)"
		"$@" 2>&1 || true
	} > "$here/$name.txt"
done
