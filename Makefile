# pmc: see README.md. `make demo` and `make test` are the two entry points.
GO      ?= go
BIN     := bin/pmc
GOFLAGS := -trimpath -buildvcs=auto
export CGO_ENABLED := 0

.PHONY: all build workloads demo test test-go test-qemu deps fuzz clean cross

all: build workloads

build:
	$(GO) build $(GOFLAGS) -o $(BIN) ./cmd/pmc

# Static pmc for the ARM guests (and any Raspberry Pi / ARM server).
cross:
	GOARCH=arm64 $(GO) build $(GOFLAGS) -o bin/pmc-arm64 ./cmd/pmc
	GOARCH=arm GOARM=7 $(GO) build $(GOFLAGS) -o bin/pmc-armv7 ./cmd/pmc

workloads:
	$(MAKE) -C workloads

demo: build workloads
	./scripts/demo.sh

# Everything: installs what it needs (apt), unit + end-to-end tests, then the QEMU ARM guests.
test: deps build workloads test-go test-qemu

deps:
	./scripts/deps.sh

test-go:
	$(GO) mod tidy -diff
	$(GO) vet ./...
	GOARCH=arm64 $(GO) vet ./...
	GOARCH=arm GOARM=7 $(GO) vet ./...
	$(GO) test -count=1 ./...

test-qemu:
	./test/qemu/run.sh

# Every fuzz target for FUZZTIME each (default 10s); FUZZTIME=5m scripts/fuzz.sh ./internal/x for one package.
fuzz:
	./scripts/fuzz.sh

clean:
	rm -rf bin workloads/build
