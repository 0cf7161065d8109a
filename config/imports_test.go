package config_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// config parses, validates and stores; the plugins and the default policy
// come with the registry it is given. Importing a plugin package would link
// every in-tree plugin into every program that reads configuration.
func TestConfigImportsNoPlugin(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(".", name), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path == "github.com/vsched/vsched/plugins" || strings.HasPrefix(path, "github.com/vsched/vsched/plugins/") {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
}
