#!/usr/bin/env bash
# make test-release: `make release` as a user would run it, in a clean clone of HEAD, twice (in
# two directories, so no build path can hide in the bytes) with the checksums compared, and
# one binary rebuilt with an empty Go build cache; then each .deb is checked with dpkg-deb
# --info/--contents, unpacked with dpkg -x, its binary run (version, list; the ARM ones under
# QEMU user mode on the CPU they are built for), its man page read with man -l, and lintian run
# on it (findings must be in packaging/lintian-overrides, with the reason). The README's
# install line (dpkg -i) is run against a private dpkg root, and make install into a DESTDIR.
# Uncommitted changes are not tested: the clone is of HEAD.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD

fail() {
	echo "release-test: FAIL: $*" >&2
	exit 1
}
for tool in git dpkg dpkg-deb lintian man groff qemu-aarch64 qemu-arm readelf sha256sum; do
	command -v "$tool" >/dev/null || fail "$tool is missing: run make deps (scripts/deps.sh)"
done

head=$(git rev-parse HEAD)
if ! git diff --quiet HEAD; then
	echo "release-test: testing HEAD $(git rev-parse --short=12 HEAD); uncommitted changes are not in the clean clone"
fi
tmp=$(mktemp -d /tmp/pmc-release-test.XXXXXX)
if [[ -z ${KEEP:-} ]]; then trap 'rm -rf "$tmp"' EXIT; else echo "release-test: keeping $tmp"; fi

clone() {
	git clone -q --no-checkout "$src" "$1"
	git -C "$1" checkout -q --detach "$head"
}
a=$tmp/a/pmc
b=$tmp/second-place/b/pmc
clone "$a"
clone "$b"

start=$SECONDS
make -s -C "$a" release >"$tmp/release-a.log" 2>&1 || { cat "$tmp/release-a.log"; fail "make release in a clean clone"; }
echo "release-test: make release in a clean clone: $((SECONDS - start)) s"
make -s -C "$b" release >"$tmp/release-b.log" 2>&1 || { cat "$tmp/release-b.log"; fail "make release in a second clone"; }
dist=$a/dist
(cd "$dist" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not match the files"
cmp "$dist/SHA256SUMS" "$b/dist/SHA256SUMS" || {
	diff "$dist/SHA256SUMS" "$b/dist/SHA256SUMS" >&2
	fail "two builds of $head in two directories differ"
}
echo "release-test: reproducible: two clones at different paths gave identical SHA256SUMS ($(wc -l <"$dist/SHA256SUMS") files)"
start=$SECONDS
(cd "$b" && GOCACHE=$tmp/empty-gocache ARCHES=armv6 DIST=$tmp/cold ONLY_BINARIES=1 ./scripts/release.sh >"$tmp/cold.log" 2>&1) ||
	{ cat "$tmp/cold.log"; fail "armv6 build with an empty build cache"; }
cmp "$dist/pmc-linux-armv6" "$tmp/cold/pmc-linux-armv6" || fail "pmc-linux-armv6 built with an empty build cache differs"
echo "release-test: reproducible: pmc-linux-armv6 rebuilt with an empty Go build cache is identical ($((SECONDS - start)) s)"

version=$(cd "$a" && scripts/version.sh)
debversion=$(cd "$a" && scripts/version.sh --deb)
gov=go$(sed -n 's/^go \([0-9.]*\)$/\1/p' go.mod)

# The files every package holds besides the man pages, and the commands that get a man page:
# pmc's own list of commands.
fixed="./usr/bin/pmc ./usr/include/pmc.h ./usr/share/bash-completion/completions/pmc
./usr/share/doc/pmc/changelog.gz ./usr/share/doc/pmc/copyright
./usr/share/fish/vendor_completions.d/pmc.fish ./usr/share/lintian/overrides/pmc
./usr/share/zsh/vendor-completions/_pmc"
commands=$("$dist/pmc-linux-amd64" --help | awk '/^Available Commands:/{on=1; next} on && NF==0{exit} on && $1!="help"{print $1}')
[[ $(wc -w <<<"$commands") -ge 13 ]] || fail "pmc --help lists too few commands: $commands"

# pmc-linux-armv7 is in no package (armhf holds armv6's: see release.sh): run it here.
got=$(qemu-arm -cpu cortex-a7 "$dist/pmc-linux-armv7" version) || fail "pmc-linux-armv7 version failed"
[[ $got == "pmc $version"* ]] || fail "pmc-linux-armv7 version says '$got'"
qemu-arm -cpu cortex-a7 "$dist/pmc-linux-armv7" list >"$tmp/list-armv7" 2>&1 || { cat "$tmp/list-armv7"; fail "pmc-linux-armv7 list failed"; }
grep -q task-clock "$tmp/list-armv7" || fail "pmc-linux-armv7 list does not list task-clock"
echo "release-test: pmc-linux-armv7: '$got' (qemu-arm -cpu cortex-a7)"

# Each package's binary runs on the oldest CPU its architecture has: the ARM1176 of the
# Raspberry Pi 1 and Zero (ARMv6 with VFP) for armhf (Raspberry Pi OS) and armel (Debian).
for deb in amd64 arm64 armhf armel; do
	case $deb in
	amd64) arch=amd64 goarch=amd64 run=() ;;
	arm64) arch=arm64 goarch=arm64 run=(qemu-aarch64 -cpu cortex-a53) ;;
	armhf | armel) arch=armv6 goarch=arm run=(qemu-arm -cpu arm1176) ;;
	esac
	pkg=$dist/pmc_${debversion}_$deb.deb
	[[ -f $pkg ]] || fail "no $pkg"
	info=$(dpkg-deb --info "$pkg")
	for field in "Package: pmc" "Version: $debversion" "Architecture: $deb" "Section: devel"; do
		grep -qx " $field" <<<"$info" || fail "$deb: dpkg-deb --info lacks '$field':"$'\n'"$info"
	done
	contents=$(dpkg-deb --contents "$pkg")
	if grep -v '^-rw-r--r-- root/root\|^drwxr-xr-x root/root\|^-rwxr-xr-x root/root .* \./usr/bin/pmc$' <<<"$contents"; then
		fail "$deb: a file above is not root's or has an unexpected mode"
	fi
	files=$(awk '$1 !~ /^d/ {print $6}' <<<"$contents" | sort)
	want=$({
		echo "$fixed" | tr ' ' '\n'
		echo ./usr/share/man/man1/pmc.1.gz
		for c in $commands; do echo "./usr/share/man/man1/pmc-$c.1.gz"; done
	} | sort)
	extra=$(comm -23 <(echo "$files") <(echo "$want") | grep -v '^\./usr/share/man/man1/pmc-[a-z-]*\.1\.gz$' || true)
	missing=$(comm -13 <(echo "$files") <(echo "$want"))
	[[ -z $extra && -z $missing ]] || fail "$deb: dpkg-deb --contents: extra [$extra] missing [$missing]"

	x=$tmp/x-$deb
	dpkg -x "$pkg" "$x"
	bin=$x/usr/bin/pmc
	cmp "$bin" "$dist/pmc-linux-$arch" || fail "$deb: /usr/bin/pmc is not dist/pmc-linux-$arch"
	headers=$(readelf -lW "$bin") sections=$(readelf -SW "$bin")
	grep -q 'LOAD' <<<"$headers" || fail "$deb: readelf cannot read pmc"
	grep -q 'program interpreter' <<<"$headers" && fail "$deb: pmc is dynamically linked"
	grep -q '\.symtab' <<<"$sections" && fail "$deb: pmc is not stripped"
	got=$("${run[@]}" "$bin" version) || fail "$deb: pmc version failed"
	want="pmc $version, $gov linux/$goarch"
	[[ $version == *g${head:0:12}* ]] || want="pmc $version (git ${head:0:12}), $gov linux/$goarch" # at a tag
	[[ $got == "$want" ]] || fail "$deb: pmc version says '$got', want '$want'"
	buildinfo=$(go version -m "$bin")
	for want in "vcs.revision=$head" "vcs.modified=false" "-trimpath=true" "CGO_ENABLED=0"; do
		grep -q -- "$want" <<<"$buildinfo" || fail "$deb: build information lacks $want"
	done
	"${run[@]}" "$bin" list >"$tmp/list-$deb" 2>&1 || { cat "$tmp/list-$deb"; fail "$deb: pmc list failed"; }
	grep -q 'task-clock' "$tmp/list-$deb" || fail "$deb: pmc list does not list task-clock"
	echo "release-test: $deb: $(basename "$pkg") $(stat -c %s "$pkg") bytes, pmc $(stat -c %s "$bin") bytes: '$got', list $(wc -l <"$tmp/list-$deb") lines${run:+ (${run[*]})}"

	for dep in $(awk '$1=="dep" {print $2 "@" $3}' <<<"$buildinfo"); do
		grep -qx "Files: $dep/\*" "$x/usr/share/doc/pmc/copyright" || fail "$deb: copyright lacks $dep, linked into pmc"
	done

	page=$x/usr/share/man/man1/pmc-stat.1.gz
	errs=$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$page" 2>&1 >"$tmp/man-$deb")
	[[ -z $errs ]] || fail "$deb: man -l pmc-stat.1.gz warns: $errs"
	grep -q -- '-a, --all-cpus' "$tmp/man-$deb" || fail "$deb: man -l pmc-stat.1.gz lacks -a, --all-cpus"
	bash -c "source '$x/usr/share/bash-completion/completions/pmc' && complete -p pmc" >/dev/null ||
		fail "$deb: the bash completion does not register for pmc"
done

# One lintian run for the four packages (its start-up is most of its time). Its status is
# not enough: the spelling override matches some builds' fragments and not others' (see
# packaging/lintian-overrides), so lintian says it went unused, as info, on those. That line
# (and the summary's note) is expected; anything else is a finding.
lintian -I --pedantic "$dist"/*.deb >"$tmp/lintian.log" 2>&1 || true
grep -v 'root privileges\|^I: pmc: unused-override spelling-error-in-binary \* \[usr/bin/pmc\]\|^N: [0-9]* hints overridden' \
	"$tmp/lintian.log" >"$tmp/lintian.findings" || true
if [ -s "$tmp/lintian.findings" ]; then
	cat "$tmp/lintian.findings" >&2
	fail "lintian findings (fix them, or override them with the reason in packaging/lintian-overrides)"
fi
echo "release-test: lintian: no findings beyond packaging/lintian-overrides (errors, warnings, info, pedantic)"

# The README's install line, as written, into a private dpkg root instead of this machine's.
host=$(dpkg --print-architecture)
if ls "$dist"/pmc_*_"$host".deb >/dev/null 2>&1; then
	r=$tmp/dpkg-root
	mkdir -p "$r/var/lib/dpkg/info" "$r/var/lib/dpkg/updates"
	touch "$r/var/lib/dpkg/status"
	(cd "$a" && dpkg --root="$r" --log=/dev/null -i dist/pmc_*_"$host".deb) >"$tmp/dpkg.log" 2>&1 ||
		{ cat "$tmp/dpkg.log"; fail "dpkg -i dist/pmc_*_$host.deb"; }
	[[ $("$r/usr/bin/pmc" version) == "pmc $version, "* ]] || fail "the installed pmc does not run"
	dpkg --root="$r" --log=/dev/null -r pmc >>"$tmp/dpkg.log" 2>&1 || { cat "$tmp/dpkg.log"; fail "dpkg -r pmc"; }
	[[ ! -e $r/usr/bin/pmc && ! -e $r/usr/share/man/man1/pmc.1.gz ]] || fail "dpkg -r pmc left files"
	echo "release-test: dpkg -i dist/pmc_*_$host.deb installs a working pmc, dpkg -r removes it"
fi

# make install: the same tree as the package (man pages uncompressed), under PREFIX.
d=$tmp/destdir
make -s -C "$a" install PREFIX=/usr DESTDIR="$d" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "make install"; }
got=$(cd "$d" && find . -type f | sort)
want=$(dpkg-deb --contents "$dist/pmc_${debversion}_amd64.deb" | awk '$1 !~ /^d/ {print $6}' | sed 's/\.gz$//' |
	grep -v 'changelog\|copyright\|lintian' | { cat; echo ./usr/share/doc/pmc/LICENSE; } | sort)
[[ $got == "$want" ]] || fail "make install PREFIX=/usr: $(diff <(echo "$want") <(echo "$got"))"
[[ $("$d/usr/bin/pmc" version) == "pmc "* ]] || fail "the pmc make install installed does not run"
errs=$(MANWIDTH=80 man --warnings -l "$d/usr/share/man/man1/pmc.1" 2>&1 >/dev/null)
[[ -z $errs ]] || fail "man -l of the installed pmc.1 warns: $errs"
make -s -C "$a" install DESTDIR="$tmp/local" >>"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "make install (PREFIX=/usr/local)"; }
for f in bin/pmc include/pmc.h share/man/man1/pmc-stat.1 share/zsh/site-functions/_pmc; do
	[[ -f $tmp/local/usr/local/$f ]] || fail "make install: no /usr/local/$f"
done
echo "release-test: make install PREFIX=/usr DESTDIR=... installs the package's files; PREFIX=/usr/local too"

echo "release-test: ok"
(cd "$dist" && ls -l --time-style=+ pmc-linux-* ./*.deb && cat SHA256SUMS)
