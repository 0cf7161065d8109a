package layout

import (
	"strconv"
	"strings"
	"testing"
)

// TestMetricsAPIReaderIsOptional keeps the metrics.k8s.io reader out of
// every program that does not ask for it: only commands (and the e2e
// suite) import usage/metricsapi; the library takes any usage.Reader.
// The reader itself, like the contract, reaches no scheduler part.
func TestMetricsAPIReaderIsOptional(t *testing.T) {
	const reader = module + "usage/metricsapi"
	for _, dir := range goDirs(t) {
		if dir == "usage/metricsapi" || strings.HasPrefix(dir, "cmd/") || strings.HasPrefix(dir, "e2e") {
			continue
		}
		_, files := parseDir(t, dir)
		for _, f := range files {
			for _, imp := range f.Imports {
				if path, _ := strconv.Unquote(imp.Path.Value); path == reader {
					t.Errorf("package %s imports %s: only commands may (the library takes a usage.Reader)", dir, path)
				}
			}
		}
	}
	_, files := parseDir(t, "usage/metricsapi")
	for _, f := range files {
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, module) && path != module+"usage" {
				t.Errorf("package usage/metricsapi imports %s; it may import only the usage contract", path)
			}
		}
	}
}
