package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// maxFuncLines bounds a non-test function, signature to closing brace.
const maxFuncLines = 80

// goDirs lists every directory of the module (nested modules included:
// the examples and adapters are held to the same rule) that holds non-test
// Go files, relative to the module root.
func goDirs(t *testing.T) []string {
	t.Helper()
	root := filepath.Join("..", "..")
	seen := map[string]bool{}
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && p != root && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err == nil && !seen[rel] {
			seen[rel] = true
			dirs = append(dirs, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// parseDir parses the non-test Go files of a directory under the module
// root.
func parseDir(t *testing.T, dir string) (*token.FileSet, []*ast.File) {
	t.Helper()
	root := filepath.Join("..", "..", dir)
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(root, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		t.Fatalf("no Go files in %s", root)
	}
	return fset, files
}

// TestFunctionsAreShort holds every non-test function of the repository to
// maxFuncLines.
func TestFunctionsAreShort(t *testing.T) {
	for _, dir := range goDirs(t) {
		fset, files := parseDir(t, dir)
		for _, f := range files {
			for _, decl := range f.Decls {
				fd, ok := decl.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
				if n := end.Line - start.Line + 1; n > maxFuncLines {
					t.Errorf("%s:%d: %s is %d lines, more than %d", start.Filename, start.Line, fd.Name.Name, n, maxFuncLines)
				}
			}
		}
	}
}

// TestImportDirection checks the layering: the scheduler knows nothing of
// what sizes its StatefulSet, and what decides moves knows neither. config
// parses, validates and stores; the plugins and the default policy come
// with the registry it is given: importing a plugin package would link
// every in-tree plugin into every program that reads configuration. A
// package named here is forbidden with every package below it.
func TestImportDirection(t *testing.T) {
	const module = "github.com/vsched/vsched/"
	forbidden := map[string][]string{
		"statefulset": {"autoscaler"},
		"descheduler": {"autoscaler", "statefulset"},
		"config":      {"plugins"},
	}
	for dir, not := range forbidden {
		_, files := parseDir(t, dir)
		for _, f := range files {
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				for _, n := range not {
					if path == module+n || strings.HasPrefix(path, module+n+"/") {
						t.Errorf("package %s imports %s", dir, path)
					}
				}
			}
		}
	}
}
