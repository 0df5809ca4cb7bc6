#!/usr/bin/env bash
# Assembles the launch shim for each architecture into elf/ARCH (committed; go:embed'ds).
# Needs GNU as and ld for x86-64, aarch64 and arm (scripts/deps.sh installs them):
#   bash internal/launch/tiny/gen.sh [OUTDIR]
# TestImagesAreBuiltFromSource runs it into a temporary directory and compares.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/elf}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# -z noseparate-code: one page-aligned text segment, no padding; --build-id=none and -s:
# the same bytes from the same source on every machine.
ldflags=(-static -nostdlib -s --build-id=none -z noseparate-code -z norelro -z noexecstack -e _start)
build() { # arch as ld [as flags...]
	local arch=$1 as=$2 ld=$3
	shift 3
	"$as" "$@" -o "$tmp/$arch.o" "$here/src/shim_$arch.S"
	"$ld" "${ldflags[@]}" -o "$out/$arch" "$tmp/$arch.o"
	chmod 0644 "$out/$arch"
}
build amd64 x86_64-linux-gnu-as x86_64-linux-gnu-ld --64
build arm64 aarch64-linux-gnu-as aarch64-linux-gnu-ld
build arm arm-linux-gnueabihf-as arm-linux-gnueabihf-ld -march=armv6 -mfloat-abi=soft
