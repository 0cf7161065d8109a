# make test: formatting check, vet, every test with the race detector, and
# the end-to-end suite on a local control plane (what CI runs).
# make check: the same without the end-to-end suite.
GO ?= go
PKGS ?= ./...
# Example modules of their own (their dependencies stay out of vsched's
# go.mod); the root module's ./... does not descend into them.
EXAMPLE_MODULES ?= examples/controllerruntime examples/knative adapters/knative adapters/kafka deploy/kustomizetest
# The root module builds from its go.mod alone, whatever go.work a
# developer keeps above the checkout; each other module through the go.work
# beside its go.mod, which takes the library (required at the next
# release's version, not yet published) from the working tree
# (docs/versioning.md, "Inside the repository").
export GOWORK = off
MODULE_GO = GOWORK=$(CURDIR)/$$m/go.work $(GO)

.PHONY: test check fmt-check vet unit cover bench fuzz soak test-ekb tidy require-version

test: fmt-check vet unit e2e

check: fmt-check vet unit

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)
	for m in $(EXAMPLE_MODULES); do (cd $$m && $(MODULE_GO) vet ./...) || exit 1; done

unit:
	$(GO) test -race -count=1 $(PKGS)
	for m in $(EXAMPLE_MODULES); do (cd $$m && $(MODULE_GO) test -race -count=1 ./...) || exit 1; done

# test-ekb compiles and runs the adapter's wiring against
# eventing-kafka-broker's packages (adapters/knative/ekbtest, a module of its
# own); not in EXAMPLE_MODULES because its cold build takes minutes.
test-ekb:
	m=adapters/knative/ekbtest && cd $$m && $(MODULE_GO) vet ./... && $(MODULE_GO) test -race -count=1 ./...

# tidy: go mod tidy in every module but the root's, against the working
# tree's library (scripts/tidy-module.sh; go mod tidy reads no go.work).
tidy:
	for m in $(EXAMPLE_MODULES) adapters/knative/ekbtest; do GOWORK= ./scripts/tidy-module.sh $$m || exit 1; done

# require-version VERSION=vX.Y.Z: every module but the root's requires the
# vsched modules at VERSION, the next release's (docs/releasing.md).
require-version:
	@test -n "$(VERSION)" || { echo "usage: make require-version VERSION=vX.Y.Z"; exit 2; }
	./scripts/require-version.sh '$(VERSION)' $(EXAMPLE_MODULES) adapters/knative/ekbtest

cover:
	$(GO) test -cover ./framework/... ./plugins/... ./config/...

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# The randomized invariant test under lag, failed writes and leader changes
# over many seeds (make test runs 4); a failure names the seed to replay
# with VSCHED_INVARIANT_SEED. SOAK_RACE=-race adds the race detector.
SOAK_SEEDS ?= 200
soak:
	VSCHED_INVARIANT_SEEDS=$(SOAK_SEEDS) $(GO) test $(SOAK_RACE) -count=1 -timeout 60m -run TestInvariantUnderLag ./autoscaler/

# End-to-end suite on a local control plane (see e2e/README.md); the first
# run builds the control plane's binaries into e2e/.bin. E2E_RUN selects
# scenarios (go test -run).
.PHONY: e2e
e2e:
	./e2e/tools/build.sh
	$(GO) test -tags e2e -count=1 -v -timeout 40m $(if $(E2E_RUN),-run '$(E2E_RUN)') ./e2e/

# The scale run on the local control plane (see docs/performance.md, "10,000
# sources on the local control plane"): SCALE_SOURCES sources of mixed sizes
# placed by the sample controller, then a restart and a zone failure; prints
# a SCALE REPORT table. Not part of make test. SCALE_QPS, SCALE_BURST and
# SCALE_THREADS are the controller's --kube-api-qps, --kube-api-burst and
# --threadiness (and the API server floor's); SCALE_CAPACITY its --capacity.
SCALE_SOURCES ?= 10000
SCALE_CAPACITY ?= 100
SCALE_QPS ?= 200
SCALE_BURST ?= 400
SCALE_THREADS ?= 4
.PHONY: e2e-scale
e2e-scale:
	./e2e/tools/build.sh
	E2E_SCALE_SOURCES=$(SCALE_SOURCES) E2E_SCALE_CAPACITY=$(SCALE_CAPACITY) \
	E2E_SCALE_QPS=$(SCALE_QPS) E2E_SCALE_BURST=$(SCALE_BURST) E2E_SCALE_THREADS=$(SCALE_THREADS) \
	$(GO) test -tags e2e -count=1 -v -timeout 30m -run '^TestScale$$' ./e2e/

# Regression guard (docs/performance.md, "Comparing two commits"): the test
# binaries of BASE and HEAD (default: the working tree) run alternately,
# ROUNDS rounds of BENCH, and the medians and HEAD/BASE ratios printed.
# Needs only git, go and the shell.
BENCH ?= UnevenZones
BENCHTIME ?= 3x
ROUNDS ?= 5
.PHONY: bench-compare
bench-compare:
	@test -n "$(BASE)" || { echo "usage: make bench-compare BASE=<rev> [HEAD=<rev>] [BENCH=regexp] [BENCHTIME=3x] [ROUNDS=5]"; exit 2; }
	BENCH='$(BENCH)' BENCHTIME='$(BENCHTIME)' ROUNDS='$(ROUNDS)' ./scripts/bench-compare.sh '$(BASE)' '$(HEAD)'
