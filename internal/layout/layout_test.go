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

// module is the import path prefix of the module's packages.
const module = "github.com/vsched/vsched/"

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
// maxFuncLines: declared functions, and function literals (package-level or
// nested), whose length counts on its own even inside a short function.
func TestFunctionsAreShort(t *testing.T) {
	for _, dir := range goDirs(t) {
		fset, files := parseDir(t, dir)
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				if name, ok := funcName(n); ok {
					start, end := fset.Position(n.Pos()), fset.Position(n.End())
					if lines := end.Line - start.Line + 1; lines > maxFuncLines {
						t.Errorf("%s:%d: %s is %d lines, more than %d", start.Filename, start.Line, name, lines, maxFuncLines)
					}
				}
				return true
			})
		}
	}
}

// funcName names a function with a body, declared or literal.
func funcName(n ast.Node) (string, bool) {
	switch fn := n.(type) {
	case *ast.FuncDecl:
		return fn.Name.Name, fn.Body != nil
	case *ast.FuncLit:
		return "a function literal", true
	}
	return "", false
}

// providerForbids is what a signal provider must not import: the source
// autoscaler that consumes it is not named (its package holds the
// contract, sourceautoscaler/signal), the levels below are.
var providerForbids = []string{"autoscaler", "statefulset", "descheduler", "embedkit", "state", "plugins"}

// TestImportDirection checks the layering: the scheduler knows nothing of
// what sizes its StatefulSet, and what decides moves knows neither. config
// parses, validates and stores; the plugins and the default policy come
// with the registry it is given: importing a plugin package would link
// every in-tree plugin into every program that reads configuration. A
// package named here is forbidden with every package below it.
func TestImportDirection(t *testing.T) {
	forbidden := map[string][]string{
		"statefulset": {"autoscaler", "sourceautoscaler"},
		"descheduler": {"autoscaler", "statefulset", "sourceautoscaler"},
		"config":      {"plugins"},
		// A signal provider measures demand and knows the contract in
		// sourceautoscaler/signal, nothing of what decides or places.
		"adapters/kafka":                       providerForbids,
		"sourceautoscaler/signal/prometheus":   providerForbids,
		"sourceautoscaler/signal/metricsapi":   providerForbids,
		"sourceautoscaler/signal/providertest": providerForbids,
		// The alerts and the dashboard are checked against what the
		// library exports, not against one controller's wiring.
		"internal/testkit/monitoring": {"internal/app/sample", "cmd"},
		// The source autoscaler decides vreplicas; the pod autoscaler and
		// the scheduler place and size for them. Neither knows the other:
		// embedkit wires the two levels.
		"autoscaler":       {"sourceautoscaler"},
		"sourceautoscaler": {"statefulset", "autoscaler", "descheduler", "embedkit"},
		// The decision is pure: no client, no configuration parsing.
		"sourceautoscaler/decision": {"config", "statefulset", "autoscaler", "descheduler", "embedkit", "memcluster"},
		"sourceautoscaler/window":   {"sourceautoscaler/decision", "sourceautoscaler/signal", "config"},
		"sourceautoscaler/signal":   {"sourceautoscaler/decision", "sourceautoscaler/window", "config"},
		// The cost plugins read a decision only, like every plugin.
		"plugins/core/podfitscosts":         {"state", "statefulset", "autoscaler", "descheduler", "config"},
		"plugins/core/balancedcostpriority": {"state", "statefulset", "autoscaler", "descheduler", "config"},
		// The estimator is fed numbers; it reaches no scheduler part.
		"costestimate": {"framework", "state", "statefulset", "autoscaler", "descheduler", "config", "plugins", "evictor", "embedkit", "memcluster"},
		// The drain protocol (its annotation, marks, adoption, requeue)
		// sits below the index that reads its annotation: state imports
		// evictor, never the other way round.
		"evictor": {"state", "statefulset", "autoscaler", "descheduler", "embedkit", "sourceautoscaler"},
		// The usage contract is a leaf: readers and consumers import it.
		"usage": {"framework", "state", "statefulset", "autoscaler", "descheduler", "config", "plugins", "evictor", "embedkit", "memcluster", "costestimate", "sourceautoscaler"},
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

// TestNoStateHooks keeps the scheduler's state its own: no package is named
// statehook, no non-test file sets a variable of another of the module's
// packages (the way a package installs a closure over its private fields
// for another to call), and no exported function of statefulset hands a *state.State to a
// callback. Other packages read Scheduler.Snapshot and change the state
// through its methods.
func TestNoStateHooks(t *testing.T) {
	for _, dir := range goDirs(t) {
		if filepath.Base(dir) == "statehook" {
			t.Errorf("package %s exists", dir)
		}
		fset, files := parseDir(t, dir)
		for _, f := range files {
			for _, pos := range foreignAssignments(f) {
				t.Errorf("%s: sets a variable of another package", fset.Position(pos))
			}
			if dir != "statefulset" {
				continue
			}
			for _, fd := range stateCallbacks(f) {
				t.Errorf("%s: %s hands the state to a callback", fset.Position(fd.Pos()), fd.Name.Name)
			}
		}
	}
}

// foreignAssignments returns where f assigns to pkg.Name with pkg one of
// its imports from the module (os.Args and the like are fair game).
func foreignAssignments(f *ast.File) []token.Pos {
	imported := map[string]bool{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if !strings.HasPrefix(path, module) {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		imported[name] = true
	}
	var out []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			return true
		}
		for _, lhs := range as.Lhs {
			if sel, ok := lhs.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Obj == nil && imported[x.Name] {
					out = append(out, lhs.Pos())
				}
			}
		}
		return true
	})
	return out
}

// stateCallbacks returns f's exported functions with a parameter of func
// type that takes a *state.State.
func stateCallbacks(f *ast.File) []*ast.FuncDecl {
	var out []*ast.FuncDecl
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || !fd.Name.IsExported() {
			continue
		}
		for _, p := range fd.Type.Params.List {
			if fn, ok := p.Type.(*ast.FuncType); ok && takesState(fn) {
				out = append(out, fd)
			}
		}
	}
	return out
}

func takesState(fn *ast.FuncType) bool {
	for _, p := range fn.Params.List {
		star, ok := p.Type.(*ast.StarExpr)
		if !ok {
			continue
		}
		if sel, ok := star.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "State" {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "state" {
				return true
			}
		}
	}
	return false
}
