#!/usr/bin/env bash
# make fuzz: runs every fuzz target of the repository briefly (FUZZTIME each, default 10s), one
# after the other (go test -fuzz takes one target at a time). New targets are found by name,
# so nothing here needs editing when a package gains one. Longer runs by hand:
#   FUZZTIME=5m scripts/fuzz.sh ./internal/events
set -euo pipefail
cd "$(dirname "$0")/.."
time=${FUZZTIME:-10s}
pkgs=("${@:-./...}")
failed=0
for pkg in $(go list "${pkgs[@]}"); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		echo "== fuzz $pkg $target ($time)"
		if ! go test -run '^$' -fuzz "^${target}\$" -fuzztime "$time" "$pkg"; then
			failed=1
		fi
	done
done
exit $failed
