# make test: formatting check, vet, every test with the race detector, and
# the end-to-end suite on a local control plane (what CI runs).
# make check: the same without the end-to-end suite.
GO ?= go
PKGS ?= ./...

.PHONY: test check fmt-check vet unit cover bench fuzz soak

test: fmt-check vet unit e2e

check: fmt-check vet unit

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)
	cd adapters/knative && $(GO) vet ./...

unit:
	$(GO) test -race -count=1 $(PKGS)
	cd adapters/knative && $(GO) test -race -count=1 ./...

cover:
	$(GO) test -cover ./framework/... ./plugins/... ./config/...

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# The randomized invariant test under lag, failed writes and leader changes
# over many seeds (make test runs 4); a failure names the seed to replay
# with VSCHED_INVARIANT_SEED. SOAK_RACE=-race adds the race detector.
SOAK_SEEDS ?= 200
soak:
	VSCHED_INVARIANT_SEEDS=$(SOAK_SEEDS) $(GO) test $(SOAK_RACE) -count=1 -timeout 60m -run TestInvariantUnderLag ./statefulset/

# End-to-end suite on a local control plane (see e2e/README.md); the first
# run builds the control plane's binaries into e2e/.bin. E2E_RUN selects
# scenarios (go test -run).
.PHONY: e2e
e2e:
	./e2e/tools/build.sh
	$(GO) test -tags e2e -count=1 -v -timeout 40m $(if $(E2E_RUN),-run '$(E2E_RUN)') ./e2e/
