# pmc: see README.md. `make demo` and `make test` are the two entry points.
GO      ?= go
BIN     := bin/pmc
GOFLAGS := -trimpath -buildvcs=auto
# Stripped (no symbol table, no DWARF): what users get. Go's stack traces need neither;
# cmd/pmc's TestReleaseBinarySize bounds the size of this binary. LDFLAGS= keeps them.
LDFLAGS ?= -s -w
export CGO_ENABLED := 0

.PHONY: all build workloads demo test test-go test-stress test-qemu test-perfsuite deps fuzz clean cross

all: build workloads

build:
	$(GO) build $(GOFLAGS) -ldflags='$(LDFLAGS)' -o $(BIN) ./cmd/pmc

# Static pmc for the ARM guests (and any Raspberry Pi / ARM server; armv6: the Pi 1 and Zero).
cross:
	GOARCH=arm64 $(GO) build $(GOFLAGS) -ldflags='$(LDFLAGS)' -o bin/pmc-arm64 ./cmd/pmc
	GOARCH=arm GOARM=7 $(GO) build $(GOFLAGS) -ldflags='$(LDFLAGS)' -o bin/pmc-armv7 ./cmd/pmc
	GOARCH=arm GOARM=6 $(GO) build $(GOFLAGS) -ldflags='$(LDFLAGS)' -o bin/pmc-armv6 ./cmd/pmc

workloads:
	$(MAKE) -C workloads

demo: build workloads
	./scripts/demo.sh

# Everything: installs what it needs (apt), unit + end-to-end tests, then the QEMU ARM guests.
test: deps build workloads test-go test-perfsuite test-release test-qemu

deps:
	./scripts/deps.sh

test-go:
	$(GO) mod tidy -diff
	$(GO) vet ./...
	GOARCH=arm64 $(GO) vet ./...
	GOARCH=arm GOARM=7 $(GO) vet ./...
	GOARCH=arm GOARM=6 $(GO) vet ./...
	./scripts/deadcode.sh
	$(GO) test -count=1 -timeout 30m ./...
	# The launch fallback (pmc re-executed as the shim) where the tiny shim is refused.
	PMC_LAUNCH=self $(GO) test -count=1 ./internal/launch/... ./internal/stat/

# The Go tests (not the QEMU guests) with the number of CPUs + 2 busy loops beside them: the
# tests must hold on a loaded machine. HOGS=N for another count.
test-stress:
	./scripts/test-stress.sh

test-qemu:
	./test/qemu/run.sh

# perf's own shell tests (Debian's linux-perf) run with the real perf, then with pmc in its place
# through test/perfsuite/perf; prints a table of both. PMC_PERFSUITE_RUN=REGEXP picks tests.
test-perfsuite: build
	PMC_PERFSUITE=1 PMC_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -v -timeout 90m ./test/perfsuite

# Every fuzz target for FUZZTIME each (default 10s); FUZZTIME=5m scripts/fuzz.sh ./internal/x for one package.
fuzz:
	./scripts/fuzz.sh

clean:
	rm -rf bin workloads/build

# Release artifacts in dist/ (scripts/release.sh): static, stripped, reproducible binaries for
# linux amd64, arm64, armv7 and armv6, .debs for amd64, arm64, armhf and armel (both with the
# armv6 binary, which Raspberry Pi 1 and Zero need), the Debian copyright file and SHA256SUMS.
# test-release builds them twice in clean clones of HEAD and checks the packages (dpkg-deb,
# dpkg -x, QEMU user mode, lintian) and make install.
.PHONY: release man install test-release
release:
	./scripts/release.sh

test-release:
	./scripts/release-test.sh

# Man pages and shell completions, generated from pmc's command definitions into bin/doc/.
DOC_VERSION = $(shell ./scripts/version.sh 2>/dev/null || sed -n 's/^var release = "\(.*\)"$$/\1/p' internal/cli/version.go)
DOC_DATE = $(shell TZ=UTC git log -1 --format=%cd --date=format-local:%F 2>/dev/null || date -u +%F)
man:
	rm -rf bin/doc
	$(GO) run ./scripts/gendoc -out bin/doc -version "$(DOC_VERSION)" -date "$(DOC_DATE)"

# make install [PREFIX=/usr/local] [DESTDIR=]: pmc, pmc.h, the man pages and the bash, zsh and
# fish completions where each looks for them (zsh: Debian's vendor-completions under /usr).
PREFIX ?= /usr/local
MANDIR ?= $(PREFIX)/share/man
ZSHCOMPDIR ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/share/zsh/vendor-completions,$(PREFIX)/share/zsh/site-functions)
install: build man
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/pmc
	install -D -m 0644 include/pmc.h $(DESTDIR)$(PREFIX)/include/pmc.h
	install -d $(DESTDIR)$(MANDIR)/man1
	install -m 0644 bin/doc/man1/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -D -m 0644 bin/doc/completion/pmc.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/pmc
	install -D -m 0644 bin/doc/completion/_pmc $(DESTDIR)$(ZSHCOMPDIR)/_pmc
	install -D -m 0644 bin/doc/completion/pmc.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/pmc.fish
	install -D -m 0644 LICENSE $(DESTDIR)$(PREFIX)/share/doc/pmc/LICENSE
