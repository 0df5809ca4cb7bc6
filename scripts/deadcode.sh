#!/usr/bin/env bash
# Fails when a function of pmc is reached by nothing: not by pmc, its generators and scripts,
# nor by a test (golang.org/x/tools' deadcode, pinned, run from the module proxy; not a
# dependency of pmc). A function only tests call belongs in a _test.go file or in testenv.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(go run golang.org/x/tools/cmd/deadcode@v0.52.0 -test ./...)
if [[ -n "$out" ]]; then
	printf '%s\n' "$out" >&2
	echo "deadcode: the functions above are unreachable: delete them, or call them" >&2
	exit 1
fi
echo "deadcode: nothing unreachable"
