package sim

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/vsched/vsched/examples"
)

// builtinOr parses text, or the built-in scenario when text is empty.
func builtinOr(t *testing.T, text string) *Scenario {
	t.Helper()
	name, data := "s.yaml", []byte(text)
	if text == "" {
		name, data = "built-in:"+examples.BuiltinName, examples.Builtin()
	}
	s, ps := ParseScenario(name, data)
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	return s
}

// TestLegendNamesEveryColumn: every column heading and metric the table
// prints, with a grid of sources and with a list of them, is explained in
// the legend that ends it.
func TestLegendNamesEveryColumn(t *testing.T) {
	many := "version: 1\ncluster: {zones: [a, b], statefulSet: {replicas: 2, capacity: 100}}\nsteps:\n  - schedule:\n"
	for i := 0; i < maxGridSources+1; i++ {
		many += "      - {source: ns/s" + string(rune('a'+i)) + ", vreplicas: 1}\n"
	}
	for name, text := range map[string]string{"grid": "", "list": many} {
		s := builtinOr(t, text)
		res, _, err := Run(context.Background(), s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := WriteTable(&b, s, res); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		body, legend, ok := strings.Cut(out, tableLegend)
		if !ok || legend != "" {
			t.Fatalf("%s: the table does not end with the legend:\n%s", name, out)
		}
		for _, word := range columnWords(body) {
			if !strings.Contains(tableLegend, word) {
				t.Errorf("%s: the legend does not explain %s", name, word)
			}
		}
	}
}

var (
	headingLine = regexp.MustCompile(`(?m)^  (ZONE|SOURCE) .*$`)
	heading     = regexp.MustCompile(`\b[A-Z]{3,}\b`)
	metricName  = regexp.MustCompile(`(?m)^  (podsUsed .*)$`)
	metricWord  = regexp.MustCompile(`\b([a-zA-Z]+) \d+`)
)

// columnWords lists the headings and metric names of a table.
func columnWords(body string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(w string) {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	for _, line := range headingLine.FindAllString(body, -1) {
		for _, w := range heading.FindAllString(line, -1) {
			add(w)
		}
	}
	for _, line := range metricName.FindAllString(body, -1) {
		for _, m := range metricWord.FindAllStringSubmatch(line, -1) {
			add(m[1])
		}
	}
	return out
}
