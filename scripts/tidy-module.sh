#!/usr/bin/env bash
# tidy-module.sh DIR: go mod tidy in the module DIR, against the working
# tree's library. go mod tidy reads no go.work (golang/go#50750), and the
# version of the library that DIR's go.mod requires (the next release's) is
# not published before the release, so the go.work's replace directives are
# written into go.mod for the run and dropped after it, also when it fails.
# The result is go.mod and go.sum as the workspace builds them, with no
# replace directive (see docs/releasing.md, "Maintaining the modules").
set -euo pipefail
dir=${1:?usage: tidy-module.sh DIR}
cd "$dir"
[ -f go.work ] || { echo "$dir: no go.work" >&2; exit 1; }
mapfile -t reps < <(sed -n 's/^replace[[:space:]]\{1,\}\([^[:space:]]\{1,\}\)[[:space:]]*=>[[:space:]]*\([^[:space:]]\{1,\}\)[[:space:]]*$/\1=\2/p' go.work)
[ ${#reps[@]} -gt 0 ] || { echo "$dir/go.work: no replace directive" >&2; exit 1; }
drop() { for r in "${reps[@]}"; do go mod edit -dropreplace "${r%%=*}"; done; }
trap drop EXIT
for r in "${reps[@]}"; do go mod edit -replace "$r"; done
GOWORK=off go mod tidy
