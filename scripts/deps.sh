#!/usr/bin/env bash
# Installs what `make test` needs on a fresh Debian 12 machine (run as root; CI runs it with
# CI=true and no stdin). Go itself (1.26) is not a Debian 12 package: CI provides it. Idempotent: when everything is present it only runs dpkg-query and
# exits in well under a second; `apt-get update` runs only when something is missing.
set -euo pipefail

PKGS=(
	# Host: workloads (static C), perf stat as the reference for software events, cachegrind.
	gcc make libc6-dev
	linux-perf
	zstd                      # the zstd command: internal/zstd's frames decoded by libzstd
	bc python3                # perf's shell tests (make test-perfsuite): shadow_stat.sh computes with bc, json_output.sh lints with python3
	valgrind
	time                     # GNU time: the reference for the workload's peak RSS (max_rss_kb)
	# Headless browser: the flame graph (pmc report --html) and pmc compare --html pages are
	# rendered in it. libc's debug file (symbols and DWARF lines by build-id),
	# llvm-addr2line as the DWARF 5 line reference.
	chromium
	graphviz                 # dot: pmc report --http's graph view, loaded in the browser test
	libc6-dbg
	llvm
	# pmc exporter's tests: a real Prometheus server (run by the test on a free port) and promtool.
	prometheus
	# QEMU ARM guests (test/qemu): the real PMU drivers on emulated CPUs.
	qemu-system-arm          # qemu-system-aarch64 and qemu-system-arm: the emulated ARM PMUs
	gcc-aarch64-linux-gnu    # static arm64 workloads
	gcc-arm-linux-gnueabihf  # static armv7 workloads
	libc6-dev-arm64-cross
	libc6-dev-armhf-cross
	# internal/disasm checks its decoding against objdump on the ARM workloads.
	binutils-aarch64-linux-gnu
	binutils-arm-linux-gnueabihf
	cpio                     # initramfs inspection (the harness packs its own cpio in Go)
	device-tree-compiler     # dtc: the Cortex-A7 guest needs a PMU node added to the board DTB
	# make test-release: the release's ARM binaries run under QEMU user mode (qemu-aarch64,
	# qemu-arm; test/armv6 runs the armv6 build with -cpu arm1176), its .debs checked by
	# lintian, its man pages read with man -l (and groff).
	qemu-user
	lintian
	man-db
	# pmc top's terminal test: tmux runs it, send-keys types, capture-pane reads the screen.
	tmux
)

# inferno (crates.io): pmc script's test folds pmc's and perf's script text with
# inferno-collapse-perf. Built with the machine's cargo (rustup's; Debian's cargo is too old
# for it) into cargo's bin directory, where the test looks for it.
INFERNO_VERSION=0.12.8
install_inferno() {
	local bin="${CARGO_HOME:-$HOME/.cargo}/bin/inferno-collapse-perf"
	if command -v inferno-collapse-perf >/dev/null 2>&1 || [[ -x "$bin" ]]; then
		return 0
	fi
	local cargo
	cargo=$(command -v cargo || true)
	[[ -n "$cargo" ]] || cargo="${CARGO_HOME:-$HOME/.cargo}/bin/cargo"
	if [[ ! -x "$cargo" ]]; then
		echo "deps: cargo not found: install Rust (rustup) so that inferno can be built" >&2
		return 1
	fi
	echo "deps: building inferno $INFERNO_VERSION with cargo (a few minutes, once)"
	"$cargo" install --locked --quiet inferno --version "$INFERNO_VERSION" </dev/null
}

missing=()
for p in "${PKGS[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[[ "$st" == installed ]] || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
	install_inferno
	echo "deps: all present"
	exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
	echo "deps: missing ${missing[*]}; run as root (sudo $0) or install them with apt-get" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# Other jobs may hold the dpkg lock for a while: wait for it instead of failing.
APT=(apt-get -y -q -o DPkg::Lock::Timeout=300 --no-install-recommends)

echo "deps: installing ${missing[*]}"
# A mirror in mid-sync can fail one index: retry once, then try the install anyway.
"${APT[@]}" update || { sleep 5; "${APT[@]}" update; } || echo "deps: apt-get update had errors; trying the install" >&2
# The first install sometimes ends with a dpkg error on a fresh machine; a second run completes.
if ! "${APT[@]}" install "${missing[@]}" </dev/null; then
	echo "deps: apt-get install failed once, retrying" >&2
	dpkg --configure -a </dev/null || true
	"${APT[@]}" install "${missing[@]}" </dev/null
fi
install_inferno
echo "deps: done"
