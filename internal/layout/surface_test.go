package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// internalMark is the doc line of a statefulset.Scheduler method that only
// vsched's own autoscaler and evictor call (docs/versioning.md).
const internalMark = "For vsched's own autoscaler and evictor; not promised (docs/versioning.md)."

// promisedAlso are the methods of autoscaler.Target and
// evictor.DrainMemory that embedders call too, and so stay promised.
var promisedAlso = map[string]bool{"StatefulSet": true, "IsLeader": true, "Logger": true, "Replicas": true}

// TestInternalFacingMarked keeps statefulset.Scheduler's surface as
// docs/versioning.md states it: every method it has only because
// autoscaler.Target, evictor.DrainMemory or evictor.ReasonMemory asks for
// it carries the mark, and no other method does.
func TestInternalFacingMarked(t *testing.T) {
	want := map[string]bool{}
	for _, m := range interfaceMethods(t, "autoscaler", "Target") {
		want[m] = !promisedAlso[m]
	}
	for _, m := range interfaceMethods(t, "evictor", "DrainMemory") {
		want[m] = !promisedAlso[m]
	}
	for _, m := range interfaceMethods(t, "evictor", "ReasonMemory") {
		want[m] = !promisedAlso[m]
	}
	var missing, extra []string
	for _, f := range parseDirDocs(t, "statefulset") {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || !fd.Name.IsExported() || recvName(fd) != "Scheduler" {
				continue
			}
			marked := fd.Doc != nil && strings.Contains(fd.Doc.Text(), internalMark)
			switch {
			case want[fd.Name.Name] && !marked:
				missing = append(missing, fd.Name.Name)
			case !want[fd.Name.Name] && marked:
				extra = append(extra, fd.Name.Name)
			}
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if d := cmp.Diff([]string(nil), missing); d != "" {
		t.Errorf("methods only autoscaler/evictor need, without the mark %q (-want +got):\n%s", internalMark, d)
	}
	if d := cmp.Diff([]string(nil), extra); d != "" {
		t.Errorf("marked methods that no internal interface asks for (-want +got):\n%s", d)
	}
}

// interfaceMethods lists the methods an interface of dir declares itself
// (embedded interfaces are listed where they are declared).
func interfaceMethods(t *testing.T, dir, name string) []string {
	t.Helper()
	_, files := parseDir(t, dir)
	for _, f := range files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, sp := range gd.Specs {
				ts, ok := sp.(*ast.TypeSpec)
				if !ok || ts.Name.Name != name {
					continue
				}
				it, ok := ts.Type.(*ast.InterfaceType)
				if !ok {
					t.Fatalf("%s.%s is not an interface", dir, name)
				}
				var out []string
				for _, m := range it.Methods.List {
					for _, n := range m.Names {
						out = append(out, n.Name)
					}
				}
				return out
			}
		}
	}
	t.Fatalf("no interface %s in %s", name, dir)
	return nil
}

func recvName(fd *ast.FuncDecl) string {
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// parseDirDocs parses the non-test Go files of a directory with their
// comments.
func parseDirDocs(t *testing.T, dir string) []*ast.File {
	t.Helper()
	root := filepath.Join("..", "..", dir)
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	fset := token.NewFileSet()
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			f, err := parser.ParseFile(fset, filepath.Join(root, name), nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
	}
	return files
}
