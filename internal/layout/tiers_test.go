package layout

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The tiers of the module's packages, told apart by their path.
const (
	// tierLibrary is vsched itself: every package outside the folders
	// below, and the adapters.
	tierLibrary = "library"
	// tierLeaf holds the leaf libraries under internal/lib that the
	// library imports (logging, suggestions, bounded arithmetic): they
	// import nothing of the module but each other.
	tierLeaf = "leaf"
	// tierTestKit holds what tests share, under internal/testkit: only
	// tests, other test kits and the end-to-end suite import it.
	tierTestKit = "testkit"
	// tierProgram holds the programs: cmd/, the examples, and their
	// implementations under internal/app. Nothing but a program imports
	// one.
	tierProgram = "program"
	// tierTest is a test suite: the end-to-end suite, the packaging's
	// test, these rules.
	tierTest = "test"
)

// tierOf classifies a directory of the module, relative to its root; ""
// for a folder of internal/ outside every tier.
func tierOf(dir string) string {
	dir = filepath.ToSlash(dir)
	under := func(prefix string) bool { return dir == prefix || strings.HasPrefix(dir, prefix+"/") }
	switch {
	case under("internal/lib"):
		return tierLeaf
	case under("internal/testkit"):
		return tierTestKit
	case under("internal/app"), under("cmd"), under("examples"):
		return tierProgram
	case under("internal/layout"), under("e2e"), under("deploy"):
		return tierTest
	case under("internal"):
		return ""
	}
	return tierLibrary
}

// mayImport says whether a package of tier from may import one of tier to
// in its non-test files.
func mayImport(from, to string) bool {
	switch to {
	case tierProgram:
		return from == tierProgram || from == tierTest
	case tierTestKit:
		return from == tierTestKit || from == tierTest
	case tierLibrary:
		return from != tierLeaf
	}
	return true
}

// TestImportTiers enforces the tiers: the library never imports a
// program, a test kit is imported only by tests (its importers' _test.go
// files, which this test does not read), and a leaf library imports
// nothing of the module but other leaves. Every package of internal/ is in
// a tier, so that a new one has to choose.
func TestImportTiers(t *testing.T) {
	for _, dir := range goDirs(t) {
		from := tierOf(dir)
		if from == "" {
			t.Errorf("package %s is in no tier: put it under internal/lib, internal/testkit or internal/app", dir)
			continue
		}
		_, files := parseDir(t, dir)
		for _, f := range files {
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if path+"/" != module && !strings.HasPrefix(path, module) {
					continue
				}
				to := tierOf(strings.TrimPrefix(path+"/", module))
				if !mayImport(from, to) {
					t.Errorf("package %s (%s) imports %s (%s)", dir, from, path, to)
				}
			}
		}
	}
}

// TestTiersClassify pins the classification on one package of each tier.
func TestTiersClassify(t *testing.T) {
	for dir, want := range map[string]string{
		"state":                           tierLibrary,
		"adapters/knative":                tierLibrary,
		"internal/lib/vlog":               tierLeaf,
		"internal/testkit/nettest":        tierTestKit,
		"internal/app/sim":                tierProgram,
		"internal/app/sample/controller":  tierProgram,
		"cmd/vsched/app":                  tierProgram,
		"examples/myvsched":               tierProgram,
		"e2e/harness":                     tierTest,
		"internal/layout":                 tierTest,
		"internal/somethingnew":           "",
		"sourceautoscaler/signal/metrics": tierLibrary,
	} {
		if got := tierOf(dir); got != want {
			t.Errorf("tierOf(%q) = %q, want %q", dir, got, want)
		}
	}
}
