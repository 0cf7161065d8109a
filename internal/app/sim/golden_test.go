package sim

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vsched/vsched/examples"
	"github.com/vsched/vsched/internal/testkit/cmdtest"
)

// loadExample parses an example scenario.
func loadExample(t testing.TB, name string) *Scenario {
	t.Helper()
	data, err := fs.ReadFile(examples.FS(), name)
	if err != nil {
		t.Fatal(err)
	}
	s, ps := ParseScenario("examples/"+name, data)
	if len(ps) > 0 {
		t.Fatalf("example %s is invalid:\n%v", name, ps)
	}
	return s
}

// loadConfigMapExamples reads the example ConfigMap manifests.
func loadConfigMapExamples(t testing.TB, names ...string) []*ConfigMapFile {
	t.Helper()
	var files []NamedData
	for _, n := range names {
		data, err := fs.ReadFile(examples.FS(), "configmaps/"+n)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, NamedData{Name: "examples/configmaps/" + n, Data: data})
	}
	cms, ps := LoadConfigMaps(files)
	if len(ps) > 0 {
		t.Fatalf("example ConfigMaps are invalid:\n%v", ps)
	}
	return cms
}

func simulateJSON(t testing.TB, s *Scenario, opts Options) []byte {
	t.Helper()
	_, out := render(t, s, opts, func(w io.Writer, _ *Scenario, res *Result) error { return WriteJSON(w, res) })
	return out
}

// render runs the scenario and writes its result with write.
func render(tb testing.TB, s *Scenario, opts Options, write func(io.Writer, *Scenario, *Result) error) (*Result, []byte) {
	tb.Helper()
	res, _, err := Run(context.Background(), s, opts)
	if err != nil {
		tb.Fatalf("Run: %v", err)
	}
	var buf bytes.Buffer
	if err := write(&buf, s, res); err != nil {
		tb.Fatal(err)
	}
	return res, buf.Bytes()
}

// golden compares got with testdata/golden/name, or rewrites it with
// -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	cmdtest.Golden(t, filepath.Join("testdata", "golden", name), got)
}

func goldenName(scenario, ext string) string {
	return strings.TrimSuffix(strings.TrimSuffix(scenario, ".yaml"), ".json") + ext
}

// TestGoldenJSON runs every example scenario and compares its -o json
// output with the golden file.
func TestGoldenJSON(t *testing.T) {
	names := examples.Scenarios()
	if len(names) < 5 {
		t.Fatalf("only %d example scenarios embedded: %v", len(names), names)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			golden(t, goldenName(name, ".json"), simulateJSON(t, loadExample(t, name), Options{}))
		})
	}
}

// TestGoldenConfigMaps runs a scenario with the example manifests in place
// of its own configuration, as --configmap does.
func TestGoldenConfigMaps(t *testing.T) {
	s := loadExample(t, "schedule.yaml")
	cms := loadConfigMapExamples(t, "config-scheduler.yaml", "config-descheduler.yaml", "config-autoscaler.yaml")
	got := simulateJSON(t, s, Options{ConfigMaps: cms})
	golden(t, "schedule-with-configmaps.json", got)
	if bytes.Equal(got, simulateJSON(t, s, Options{})) {
		t.Error("the ConfigMaps changed nothing; they should replace the scenario's scheduler configuration")
	}
}

// TestGoldenTable pins the table of the built-in scenario, which docs/cli.md
// shows.
func TestGoldenTable(t *testing.T) {
	s, ps := ParseScenario("built-in:"+examples.BuiltinName, examples.Builtin())
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	_, out := render(t, s, Options{}, WriteTable)
	golden(t, "builtin.txt", out)
}

// TestDeterministic runs the same scenarios again and again: the output
// must not change by a byte.
func TestDeterministic(t *testing.T) {
	for _, name := range []string{"builtin.yaml", "compact.yaml", "traffic.yaml", "costs.yaml"} {
		s := loadExample(t, name)
		first := simulateJSON(t, s, Options{})
		for i := 0; i < 3; i++ {
			if again := simulateJSON(t, s, Options{}); !bytes.Equal(first, again) {
				t.Fatalf("%s: run %d differs from the first:\n%s", name, i+2, cmdtest.FirstDiff(string(first), string(again)))
			}
		}
	}
}
