#!/usr/bin/env bash
# make release: pmc's release artifacts in DIST (default dist/), from the checked-out commit.
#   pmc-linux-amd64, pmc-linux-arm64, pmc-linux-armv7, pmc-linux-armv6: static, stripped
#     binaries (CGO off, -trimpath, empty build id, the version from git describe and the
#     commit in their build information);
#   pmc_VERSION_{amd64,arm64,armhf,armel}.deb: Debian packages of them, built by nfpm
#     (pinned below) without root. armhf and armel both hold the armv6 binary: Raspberry Pi OS
#     on a Pi 1 or Zero is armhf on an ARMv6 CPU, where the armv7 binary stops at its first
#     ARMv7 instruction (SIGILL), and Debian on those boards is armel. pmc-linux-armv7 is
#     there to copy onto ARMv7 boards;
#   copyright: the Debian copyright file (pmc's licenses and every linked module's);
#   SHA256SUMS: the checksums of all of the above.
# Reproducible: the same commit gives the same bytes, wherever it is checked out (the Go
# toolchain is the one go.mod names; file dates are the commit's: SOURCE_DATE_EPOCH).
# ARCHES="amd64 armv6" builds a subset, ONLY_BINARIES=1 stops after the binaries.
set -euo pipefail
cd "$(dirname "$0")/.."

NFPM=github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2 # later versions need modules the Go proxy here refuses
dist=${DIST:-dist}
arches=${ARCHES:-amd64 arm64 armv7 armv6}
maintainer=${DEB_MAINTAINER:-pmc maintainers <maintainers@users.noreply.a-seed-6f30b1fc.example>}

version=$(scripts/version.sh)
debversion=$(scripts/version.sh --deb)
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct)
export SOURCE_DATE_EPOCH
date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%F)
if [[ $version == *-dirty ]]; then
	echo "release: WARNING: uncommitted changes are built in; these artifacts cannot be rebuilt from $(git rev-parse --short=12 HEAD)" >&2
fi

# The toolchain go.mod names, downloaded by go if it is not the local one, and nothing from
# the builder's environment that changes the code generated.
export GOTOOLCHAIN=go$(sed -n 's/^go \([0-9.]*\)$/\1/p' go.mod)
export CGO_ENABLED=0 GOOS=linux GOAMD64=v1 GOARM64=v8.0 GOEXPERIMENT= GOFLAGS=
unset GO386 GOMIPS GOPPC64 GORISCV64 GOWASM

rm -rf "$dist"
mkdir -p "$dist"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

ldflags="-s -w -buildid= -X github.com/pmc-tools/pmc/internal/cli.release=$version"
for a in $arches; do
	case $a in
	amd64) goarch=amd64 goarm= ;;
	arm64) goarch=arm64 goarm= ;;
	armv7) goarch=arm goarm=7 ;;
	armv6) goarch=arm goarm=6 ;;
	*) echo "release: unknown architecture $a (amd64, arm64, armv7, armv6)" >&2; exit 2 ;;
	esac
	echo "release: pmc-linux-$a"
	GOARCH=$goarch GOARM=$goarm go build -trimpath -buildvcs=true -ldflags "$ldflags" -o "$dist/pmc-linux-$a" ./cmd/pmc
done
if ! go version -m "$dist/pmc-linux-${arches%% *}" | grep -q "vcs.revision=$(git rev-parse HEAD)"; then
	# Go finds a repository by its .git directory; a git worktree has a .git file instead.
	echo "release: WARNING: Go recorded no commit in the binaries (a git worktree?): they differ from a clone's" >&2
fi
if [[ -n ${ONLY_BINARIES:-} ]]; then # release-test.sh's rebuild with an empty cache
	exit 0
fi

go run ./scripts/gendoc -out "$stage" -version "$version" -date "$date"
gzip -9n "$stage"/man1/*.1
binaries=()
for a in $arches; do binaries+=("$dist/pmc-linux-$a"); done
go run ./scripts/copyright packaging/copyright "${binaries[@]}" >"$stage/copyright"
cp "$stage/copyright" "$dist/copyright"

# Debian asks for a changelog in the package; pmc's history is its git log, so the one entry
# says which commit this is.
{
	echo "pmc ($debversion) unstable; urgency=medium"
	echo
	echo "  * Built from git commit $(git rev-parse --short=12 HEAD) ($date). The changes are"
	echo "    pmc's git history."
	echo
	echo " -- $maintainer  $(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n >"$stage/changelog.gz"

GOBIN=$stage/bin go install "$NFPM"
for a in $arches; do
	case $a in
	amd64) debs=amd64 ;;
	arm64) debs=arm64 ;;
	armv7) debs= ;;
	armv6) debs="armhf armel" ;;
	esac
	for deb in $debs; do
		out="$dist/pmc_${debversion}_$deb.deb"
		DEB_ARCH=$deb DEB_VERSION=$debversion DEB_MAINTAINER=$maintainer BINARY=$dist/pmc-linux-$a STAGE=$stage \
			"$stage/bin/nfpm" package --config packaging/nfpm.yaml --packager deb --target "$out" >/dev/null
		echo "release: $out"
	done
done

(cd "$dist" && sha256sum pmc-linux-* ./*.deb copyright | sed 's| \./| |' >SHA256SUMS)
echo "release: $version in $dist/"
(cd "$dist" && ls -l)
