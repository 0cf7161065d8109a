#!/usr/bin/env bash
# Builds the e2e control plane's binaries from the Go module proxy into a
# git-ignored cache folder (default: e2e/.bin, override with E2E_BIN):
#   etcd (v3.6.16), kube-apiserver, kube-controller-manager, kube-scheduler
#   (v1.35.4), kwok (v0.7.0) and metrics-server (v0.8.0).
# Idempotent: a binary is rebuilt only when it is missing or reports another
# version, or when the pinning module (go.mod/go.sum) changed since it was
# built. Cold: several minutes (mostly k8s.io/kubernetes); warm: about 1 s.
#
# Environment: E2E_BIN (output folder), E2E_BUILD_NICE (default 10),
# E2E_BUILD_P (go build -p; default: go's own, i.e. the number of CPUs).
set -euo pipefail

KUBE_VERSION=v1.35.4
ETCD_VERSION=v3.6.16
KWOK_VERSION=v0.7.0
METRICS_SERVER_VERSION=v0.8.0

here=$(cd "$(dirname "$0")" && pwd)
bin=${E2E_BIN:-$(cd "$here/.." && pwd)/.bin}
mkdir -p "$bin"
bin=$(cd "$bin" && pwd)

nice_cmd=(nice -n "${E2E_BUILD_NICE:-10}")
pflag=()
if [ -n "${E2E_BUILD_P:-}" ]; then pflag=(-p "$E2E_BUILD_P"); fi
export GOFLAGS="${GOFLAGS:-} -buildvcs=false"
export CGO_ENABLED=0

log() { printf '[e2e-build %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }

# stamp DIR: a fingerprint of a pinning module's go.mod/go.sum and versions.
stamp() {
	{ cat "$1/go.mod"; [ -f "$1/go.sum" ] && cat "$1/go.sum"; echo "$KUBE_VERSION $ETCD_VERSION $KWOK_VERSION"; } | sha256sum | cut -d' ' -f1
}

# fresh NAME STAMP WANT: the binary exists, was built from STAMP, and its
# --version output contains WANT.
fresh() {
	local b="$bin/$1"
	[ -x "$b" ] || return 1
	[ "$(cat "$b.stamp" 2>/dev/null)" = "$2" ] || return 1
	"$b" --version 2>&1 | grep -q -- "$3" || return 1
}

tidy_if_needed() {
	if [ ! -f "$1/go.sum" ]; then
		log "go mod tidy in $1 (no go.sum yet)"
		(cd "$1" && go mod tidy)
	fi
}

start=$SECONDS

# etcd
tidy_if_needed "$here/etcd"
s=$(stamp "$here/etcd")
if fresh etcd "$s" "${ETCD_VERSION#v}"; then
	log "etcd $ETCD_VERSION cached"
else
	log "building etcd $ETCD_VERSION"
	t=$SECONDS
	(cd "$here/etcd" && "${nice_cmd[@]}" go build "${pflag[@]}" -trimpath -ldflags '-s -w' -o "$bin/etcd" .)
	echo "$s" >"$bin/etcd.stamp"
	log "etcd built in $((SECONDS - t))s"
fi

# kube-apiserver, kube-controller-manager, kube-scheduler
tidy_if_needed "$here/kube"
s=$(stamp "$here/kube")
need=0
for c in kube-apiserver kube-controller-manager kube-scheduler; do
	fresh "$c" "$s" "$KUBE_VERSION" || need=1
done
if [ $need = 0 ]; then
	log "kubernetes $KUBE_VERSION cached"
else
	log "building kube-apiserver, kube-controller-manager, kube-scheduler $KUBE_VERSION"
	t=$SECONDS
	minor=${KUBE_VERSION#v1.}
	minor=${minor%%.*}
	v=k8s.io/component-base/version
	ld="-s -w -X $v.gitVersion=$KUBE_VERSION -X $v.gitMajor=1 -X $v.gitMinor=$minor -X $v.gitTreeState=clean"
	(cd "$here/kube" && "${nice_cmd[@]}" go build "${pflag[@]}" -trimpath -ldflags "$ld" -o "$bin/" \
		k8s.io/kubernetes/cmd/kube-apiserver \
		k8s.io/kubernetes/cmd/kube-controller-manager \
		k8s.io/kubernetes/cmd/kube-scheduler)
	for c in kube-apiserver kube-controller-manager kube-scheduler; do echo "$s" >"$bin/$c.stamp"; done
	log "kubernetes built in $((SECONDS - t))s"
fi

# kwok (its own module resolves fine through go install)
s=$(echo "$KWOK_VERSION" | sha256sum | cut -d' ' -f1)
if fresh kwok "$s" "$KWOK_VERSION"; then
	log "kwok $KWOK_VERSION cached"
else
	log "building kwok $KWOK_VERSION"
	t=$SECONDS
	GOBIN="$bin" "${nice_cmd[@]}" go install "${pflag[@]}" -trimpath -ldflags '-s -w' "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
	echo "$s" >"$bin/kwok.stamp"
	log "kwok built in $((SECONDS - t))s"
fi

# metrics-server (its own module resolves through go install too); its
# --version prints client-go's version variable, stamped as its Makefile does.
s=$(echo "metrics-server $METRICS_SERVER_VERSION" | sha256sum | cut -d' ' -f1)
if fresh metrics-server "$s" "$METRICS_SERVER_VERSION"; then
	log "metrics-server $METRICS_SERVER_VERSION cached"
else
	log "building metrics-server $METRICS_SERVER_VERSION"
	t=$SECONDS
	GOBIN="$bin" "${nice_cmd[@]}" go install "${pflag[@]}" -trimpath \
		-ldflags "-s -w -X k8s.io/client-go/pkg/version.gitVersion=$METRICS_SERVER_VERSION" \
		"sigs.k8s.io/metrics-server/cmd/metrics-server@$METRICS_SERVER_VERSION"
	echo "$s" >"$bin/metrics-server.stamp"
	log "metrics-server built in $((SECONDS - t))s"
fi

for c in etcd kube-apiserver kube-controller-manager kube-scheduler kwok metrics-server; do
	[ -x "$bin/$c" ] || { log "missing $bin/$c"; exit 1; }
done
log "all binaries in $bin ($((SECONDS - start))s)"
