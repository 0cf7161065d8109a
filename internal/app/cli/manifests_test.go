package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sample is the project's own deployment, as an operator would pass it.
var sample = filepath.Join("..", "..", "..", "deploy", "sample")

func osRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr strings.Builder
	env := Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr}
	code := Main(args, env)
	return code, stdout.String(), stderr.String()
}

// TestValidateSampleDeployment: `validate -f deploy/sample/` passes; each
// file's objects vsched does not read are named in one note.
func TestValidateSampleDeployment(t *testing.T) {
	code, out, errOut := osRun(t, "validate", "-f", sample)
	if code != ExitOK || errOut != "" {
		t.Errorf("exit %d, stderr %q, stdout\n%s", code, errOut, out)
	}
	cfg := filepath.Join(sample, "400-config.yaml")
	want := cfg + ": valid (config-scheduler, config-descheduler, config-autoscaler, config-source-autoscaler); skipped ConfigMap config-leader-election, which vsched does not read\n"
	if !strings.Contains(out, want) {
		t.Errorf("stdout lacks\n%s\n%s", want, out)
	}
	entries, err := os.ReadDir(sample)
	if err != nil {
		t.Fatal(err)
	}
	// One line per manifest; the kustomize base's Kustomization, without
	// an extension, is not one (as for kubectl apply -f).
	manifests := 0
	for _, e := range entries {
		switch filepath.Ext(e.Name()) {
		case ".yaml", ".yml", ".json":
			manifests++
		}
	}
	if lines := strings.Count(out, "\n"); lines != manifests || manifests == len(entries) {
		t.Errorf("%d lines for %d manifests of %d files:\n%s", lines, manifests, len(entries), out)
	}
	code, out, _ = osRun(t, "validate", "-o", "json", cfg)
	if code != ExitOK || !strings.Contains(out, `"kind": "ConfigMap",`) || !strings.Contains(out, `"name": "config-leader-election"`) {
		t.Errorf("-o json: exit %d\n%s", code, out)
	}
}

// TestSimulateWithSampleConfigMaps: the sample's 400-config.yaml works as
// --configmap, the header names where each ConfigMap came from, and the
// skipped one is noted once on stderr.
func TestSimulateWithSampleConfigMaps(t *testing.T) {
	cfg := filepath.Join(sample, "400-config.yaml")
	code, out, errOut := osRun(t, "simulate", "--configmap", cfg)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if errOut != "vsched simulate: note: --configmap: skipped ConfigMap config-leader-election, which vsched does not read\n" {
		t.Errorf("stderr %q", errOut)
	}
	want := "Configuration: config-scheduler (from " + cfg + "), config-descheduler (from " + cfg + "), config-autoscaler (from " + cfg + ")\n"
	if !strings.Contains(out, want) {
		t.Errorf("header lacks %q:\n%.600s", want, out)
	}
	code, _, errOut = osRun(t, "explain", "--source", "shop/payments", "--configmap", cfg)
	if code != ExitOK || !strings.Contains(errOut, "skipped ConfigMap config-leader-election") {
		t.Errorf("explain: exit %d, stderr %q", code, errOut)
	}
}

// TestSimulateWarnsAboveMaxReplicas: a StatefulSet that starts above the
// autoscaler's max-replicas is worth a warning (stderr, and the JSON).
func TestSimulateWarnsAboveMaxReplicas(t *testing.T) {
	files := map[string]string{
		"s.yaml":  strings.Replace(scenario, "replicas: 2", "replicas: 6", 1),
		"as.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-autoscaler\ndata:\n  max-replicas: \"4\"\n",
	}
	code, out, errOut := run(t, files, "simulate", "-f", "s.yaml", "--configmap", "as.yaml")
	want := "vsched simulate: warning: the StatefulSet starts with 6 replicas, more than the autoscaler's max-replicas 4 (config-autoscaler from as.yaml)\n"
	if code != ExitOK || errOut != want {
		t.Errorf("exit %d, stderr %q, want %q", code, errOut, want)
	}
	if !strings.Contains(out, "Configuration: config-scheduler (defaults), config-descheduler (defaults), config-autoscaler (from as.yaml)\n") {
		t.Errorf("header:\n%.400s", out)
	}
	_, out, _ = run(t, files, "simulate", "-f", "s.yaml", "--configmap", "as.yaml", "-o", "json")
	if !strings.Contains(out, `"warnings": [`) {
		t.Errorf("-o json lacks the warning")
	}
	_, _, errOut = run(t, files, "simulate", "-f", "s.yaml")
	if errOut != "" {
		t.Errorf("the default max-replicas (100): stderr %q", errOut)
	}
}

// TestSimulateHTMLExplains: -o html puts each source's explanation one
// click away: every row of the report links its decision (the browser
// tests in internal/app/sim click them).
func TestSimulateHTMLExplains(t *testing.T) {
	files := map[string]string{"s.yaml": scenario}
	code, _, errOut := run(t, files, "simulate", "-f", "s.yaml", "-o", "html", "--out", "r.html")
	if code != ExitOK || strings.Count(files["r.html"], `<details class="why" data-why=`) != 3 {
		t.Errorf("exit %d, stderr %q; want a why in each of the 3 rows (a in steps 1 and 2, b in step 2)", code, errOut)
	}
}

// TestSimulateHTMLExplainsManySources: so it does with 2,000 sources.
func TestSimulateHTMLExplainsManySources(t *testing.T) {
	if testing.Short() {
		t.Skip("2,000 sources: not in -short")
	}
	var b strings.Builder
	b.WriteString("version: 1\ncluster:\n  zones: [zone-a, zone-b]\n  statefulSet: {replicas: 20, capacity: 100}\nsteps:\n  - schedule:\n")
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&b, "      - {source: ns/src-%d, vreplicas: 1}\n", i)
	}
	files := map[string]string{"s.yaml": b.String()}
	code, _, errOut := run(t, files, "simulate", "-f", "s.yaml", "-o", "html", "--out", "r.html")
	if n := strings.Count(files["r.html"], `<details class="why" data-why=`); code != ExitOK || n != 2000 {
		t.Errorf("exit %d, stderr %q; %d rows of 2000 link their explanation", code, errOut, n)
	}
}

// TestSimulateExampleDirectory: examples/whatif holds a scenario and the
// config-scheduler to try on it; -f DIR applies it, and packing puts both
// sources' new vreplicas on adapter-0.
func TestSimulateExampleDirectory(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "examples", "whatif")
	code, out, errOut := osRun(t, "simulate", "-f", dir)
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		"Configuration: config-scheduler (from " + filepath.Join(dir, "config-scheduler.yaml") + "), config-descheduler (defaults), config-autoscaler (defaults)\n",
		"  zone-1  node-1  adapter-0        4       4     2\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
}
