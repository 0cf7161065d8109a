#!/usr/bin/env bash
# require-version.sh VERSION DIR...: each module DIR requires every vsched
# module it requires (the library, the Knative adapter) at VERSION, the
# version the next release tags (docs/releasing.md). Only go.mod's require
# lines change; the modules' go.work keeps taking them from the working tree.
set -euo pipefail
version=${1:?usage: require-version.sh VERSION DIR...}
shift
[[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || { echo "$version: not vMAJOR.MINOR.PATCH" >&2; exit 2; }
for dir in "$@"; do
	(
		cd "$dir"
		own=$(go mod edit -json | sed -n 's/^[[:space:]]*"Module": {//; /"Require": \[/,/\]/s/^[[:space:]]*"Path": "\(github\.com\/vsched\/vsched[^"]*\)",*$/\1/p')
		for p in $own; do go mod edit -require="$p@$version"; done
	)
done
