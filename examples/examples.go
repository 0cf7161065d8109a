// Package examples holds vsched's example scenarios and ConfigMap
// manifests (README.md explains them) and embeds them, so that
// `vsched simulate` has a built-in scenario and the tests can run them all.
package examples

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

// BuiltinName is the file of the scenario `vsched simulate` runs without -f.
const BuiltinName = "builtin.yaml"

//go:embed *.yaml *.json configmaps/*.yaml
var files embed.FS

// Builtin returns the built-in scenario.
func Builtin() []byte {
	b, err := files.ReadFile(BuiltinName)
	if err != nil {
		panic("examples: the built-in scenario is not embedded: " + err.Error())
	}
	return b
}

// FS holds every example: the scenarios at the top, the ConfigMap
// manifests under configmaps/.
func FS() fs.FS { return files }

// Scenarios lists the example scenarios' file names, sorted.
func Scenarios() []string {
	entries, err := files.ReadDir(".")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && (strings.HasSuffix(e.Name(), ".yaml") || strings.HasSuffix(e.Name(), ".json")) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}
