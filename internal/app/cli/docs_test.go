package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docExample is a command docs/cli.md shows with its output.
type docExample struct {
	command string
	// want is the output, up to a "..." line when the docs cut it short.
	want []string
	cut  bool
}

// consoleExamples finds the "$ vsched ..." commands of the doc's console
// blocks that are shown with output, on one line.
func consoleExamples(doc string) []docExample {
	var out []docExample
	var cur *docExample
	indent, in := "", false
	for _, line := range strings.Split(doc, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case !in && strings.HasPrefix(trimmed, "```console"):
			in, indent = true, line[:len(line)-len(trimmed)]
			continue
		case in && strings.HasPrefix(trimmed, "```"):
			in = false
			continue
		case !in:
			continue
		}
		line = strings.TrimPrefix(line, indent)
		switch {
		case strings.HasPrefix(line, "$ "):
			out = append(out, docExample{command: strings.TrimPrefix(line, "$ ")})
			cur = &out[len(out)-1]
		case cur != nil && !cur.cut && line == "...":
			cur.cut = true
		case cur != nil && !cur.cut:
			cur.want = append(cur.want, line)
		}
	}
	var shown []docExample
	for _, ex := range out {
		if strings.HasPrefix(ex.command, "vsched ") && !strings.HasSuffix(ex.command, `\`) && len(ex.want) > 0 {
			shown = append(shown, ex)
		}
	}
	return shown
}

// TestDocsShowRealOutput runs every vsched command docs/cli.md shows with
// its output, from the repository's root, and checks that the output is
// the one shown (up to a "..." line). broken.yaml is testdata/broken.yaml.
func TestDocsShowRealOutput(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	broken, err := os.ReadFile(filepath.Join("testdata", "broken.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	examples := consoleExamples(string(doc))
	if len(examples) < 6 {
		t.Fatalf("found %d examples in docs/cli.md: %+v", len(examples), examples)
	}
	t.Chdir(filepath.Join("..", "..", ".."))
	for _, ex := range examples {
		t.Run(ex.command, func(t *testing.T) {
			var out strings.Builder
			env := Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out, ReadFile: func(name string) ([]byte, error) {
				if name == "broken.yaml" {
					return broken, nil
				}
				return os.ReadFile(name)
			}}
			Main(strings.Fields(strings.TrimPrefix(ex.command, "vsched ")), env)
			got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if !ex.cut && len(got) != len(ex.want) {
				t.Errorf("%d lines of output, the docs show %d:\n%s", len(got), len(ex.want), out.String())
			}
			for i, want := range ex.want {
				if i >= len(got) || got[i] != want {
					t.Fatalf("line %d of the output differs from the docs:\n  docs: %s\n  real: %s", i+1, want, strings.Join(got[i:min(i+1, len(got))], ""))
				}
			}
		})
	}
}
