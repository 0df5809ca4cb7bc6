#!/usr/bin/env bash
# Prints pmc's version from git describe: at a tag v0.3.0, "0.3.0"; after it, the commits since
# and the commit ("0.3.0-4-g1a2b3c4d5e6f"); before the first tag, internal/cli's release number
# and the commit ("0.2.0-dev-g1a2b3c4d5e6f"); "-dirty" is added when tracked files have
# uncommitted changes. The commit is always named, so `pmc version` says what it was built from.
# --deb prints the same as a Debian version, which sorts as the releases do:
# 0.3.0, 0.3.0+4.g1a2b3c4d5e6f, 0.2.0~dev+g1a2b3c4d5e6f (a "-" would be read as a revision).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! git rev-parse --verify -q HEAD >/dev/null 2>&1; then
	echo "version: not a git checkout with a commit: the version and the commit come from git" >&2
	exit 1
fi
if v=$(git describe --tags --match 'v[0-9]*' --abbrev=12 --dirty 2>/dev/null); then
	v=${v#v}
else
	rel=$(sed -n 's/^var release = "\(.*\)"$/\1/p' internal/cli/version.go)
	[[ -n $rel ]] || { echo "version: no release number in internal/cli/version.go" >&2; exit 1; }
	v="$rel-g$(git describe --always --abbrev=12 --dirty)"
fi

if [[ ${1:-} != --deb ]]; then
	echo "$v"
	exit 0
fi
dirty=
if [[ $v == *-dirty ]]; then
	dirty=dirty
	v=${v%-dirty}
fi
suffix=
if [[ $v =~ ^(.*)-([0-9]+)-g([0-9a-f]+)$ ]]; then # after a tag
	v=${BASH_REMATCH[1]} suffix="+${BASH_REMATCH[2]}.g${BASH_REMATCH[3]}"
elif [[ $v =~ ^(.*)-g([0-9a-f]+)$ ]]; then # before the first tag
	v=${BASH_REMATCH[1]} suffix="+g${BASH_REMATCH[2]}"
fi
v=${v/-/\~} # 0.2.0-dev, 0.3.0-rc1: a pre-release sorts before the release
v=${v//-/.}
if [[ -n $dirty ]]; then
	suffix=${suffix:-+}${suffix:+.}$dirty
fi
echo "$v$suffix"
