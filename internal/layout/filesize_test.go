package layout

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFileLines bounds a non-test Go file: past it a file holds more than
// one concern and is cut at its seams (the developers' guide).
const maxFileLines = 600

// pendingSplits names the files still over maxFileLines whose split is
// another branch's work, module-relative. An entry that is no longer over
// the bound fails the test, so the exemption goes when the split lands.
var pendingSplits = map[string]bool{}

// TestFilesAreShort holds every non-test Go file of the repository (nested
// modules included) to maxFileLines.
func TestFilesAreShort(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, dir := range goDirs(t) {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			rel := filepath.ToSlash(filepath.Join(dir, name))
			lines := countLines(t, filepath.Join(root, dir, name))
			switch {
			case lines > maxFileLines && !pendingSplits[rel]:
				t.Errorf("%s is %d lines, more than %d: cut it at its seams", rel, lines, maxFileLines)
			case lines <= maxFileLines && pendingSplits[rel]:
				t.Errorf("%s is %d lines now: remove it from pendingSplits", rel, lines)
			}
		}
	}
}

// countLines counts the lines of a file as wc -l does, plus an unterminated
// last line.
func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := bytes.Count(b, []byte("\n"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}
