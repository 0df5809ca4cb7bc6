#!/usr/bin/env bash
# Fetches Debian's arm64 and armmp kernels into .cache/qemu/ and prints nothing but progress.
# Cached: when both vmlinuz files exist, it does nothing (no apt, no network).
# A failure is loud and non-zero: the QEMU tests cannot run without these kernels.
#
# Result: .cache/qemu/vmlinuz-arm64 and .cache/qemu/vmlinuz-armmp (plus .version files naming
# the Debian package each came from).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${PMC_QEMU_CACHE:-$ROOT/.cache/qemu}
mkdir -p "$CACHE"

die() { echo "qemu kernels: FAIL: $*" >&2; exit 1; }

have() { [[ -s "$CACHE/vmlinuz-$1" ]]; }
if have arm64 && have armmp; then
	echo "qemu kernels: cached ($(cat "$CACHE/vmlinuz-arm64.version" "$CACHE/vmlinuz-armmp.version" 2>/dev/null | tr '\n' ' '))"
	exit 0
fi

[[ $(id -u) -eq 0 ]] || die "downloading the kernels needs root (dpkg --add-architecture, apt-get update); run as root once, later runs use the cache in $CACHE"

export DEBIAN_FRONTEND=noninteractive
APT=(apt-get -q -o DPkg::Lock::Timeout=300)

# Kernel packages of foreign architectures are only visible to apt-cache after adding them.
# The architectures this script adds are removed again on exit (nothing of them gets
# installed), so the machine's later `apt-get update`s don't fetch their package lists.
added=()
update_err=
restore() {
	for arch in "${added[@]}"; do
		dpkg --remove-architecture "$arch" 2>/dev/null || true
	done
}
trap restore EXIT
for arch in arm64 armhf; do
	if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
		dpkg --add-architecture "$arch"
		added+=("$arch")
	fi
done
# An update is needed when an architecture was just added, or the lists don't know the package.
if ((${#added[@]})) || ! apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-armmp$' | grep -q .; then
	# A mirror mid-sync can fail one index (often an unrelated one): retry once, then go on
	# and let the package lookup below decide.
	if ! "${APT[@]}" update; then
		echo "qemu kernels: apt-get update reported errors; retrying in 5 s" >&2
		sleep 5
		"${APT[@]}" update || update_err="apt-get update failed twice (network or mirror problem)"
	fi
fi

# Newest ABI number NN for which the package exists, e.g. linux-image-6.1.0-41-arm64-unsigned.
latest() {
	apt-cache search --names-only "^linux-image-6\\.1\\.0-[0-9]+-$1\$" | awk '{print $1}' |
		sed -E "s/^linux-image-6\\.1\\.0-([0-9]+)-.*/\\1 &/" | sort -n | tail -1 | cut -d' ' -f2
}

fetch() { # flavour(apt name suffix) arch short-name
	local flavour=$1 arch=$2 short=$3 pkg deb tmp
	have "$short" && return 0
	pkg=$(latest "$flavour")
	[[ -n "$pkg" ]] || die "no linux-image-6.1.0-NN-$flavour package in the apt lists (is a Debian 12 bookworm source configured?) ${update_err}"
	echo "qemu kernels: downloading $pkg:$arch"
	tmp=$(mktemp -d "$CACHE/dl.XXXXXX")
	# _apt cannot write into root-only directories: download as root without the sandbox user.
	(cd "$tmp" && "${APT[@]}" -o APT::Sandbox::User=root download "$pkg:$arch") ||
		{ rm -rf "$tmp"; die "apt-get download $pkg:$arch failed"; }
	deb=$(ls "$tmp"/*.deb 2>/dev/null | head -1)
	[[ -n "$deb" ]] || { rm -rf "$tmp"; die "apt-get download $pkg:$arch produced no .deb"; }
	dpkg-deb -x "$deb" "$tmp/x" || { rm -rf "$tmp"; die "dpkg-deb -x $deb failed"; }
	local vm
	vm=$(ls "$tmp"/x/boot/vmlinuz-* 2>/dev/null | head -1)
	[[ -n "$vm" ]] || { rm -rf "$tmp"; die "$deb holds no boot/vmlinuz-*"; }
	mv "$vm" "$CACHE/vmlinuz-$short.tmp" && mv "$CACHE/vmlinuz-$short.tmp" "$CACHE/vmlinuz-$short"
	basename "$deb" >"$CACHE/vmlinuz-$short.version"
	rm -rf "$tmp"
	echo "qemu kernels: $CACHE/vmlinuz-$short from $(cat "$CACHE/vmlinuz-$short.version")"
}

fetch arm64-unsigned arm64 arm64
fetch armmp armhf armmp
