package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vsched/vsched/internal/testkit/cmdtest"
)

// TestMain lets the test binary stand in for vsched (internal/testkit/cmdtest).
func TestMain(m *testing.M) { cmdtest.Main(m, "VSCHED_RUN_MAIN", "vsched", main) }

// vsched runs the command as a process and returns its exit code, stdout
// and stderr.
func vsched(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return cmdtest.Run(t, "VSCHED_RUN_MAIN", args...)
}

func TestSimulateBuiltin(t *testing.T) {
	code, out, errOut := vsched(t, "simulate")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.HasPrefix(out, `Scenario "built-in"`) || !strings.Contains(out, "Step 10/10: compact and scale down") {
		t.Errorf("unexpected output:\n%s", out)
	}
}

func TestBadInputExitCodes(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("version: 1\ncluster:\n  zones: [a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := vsched(t, "simulate", "-f", bad)
	if code != 1 || out != "" || errOut != bad+":3: malformed YAML: did not find expected ',' or ']'\n" {
		t.Errorf("malformed YAML: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, _, errOut = vsched(t, "validate", bad)
	if code != 1 || errOut != "" {
		t.Errorf("validate: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = vsched(t, "simulate", "--nope")
	if code != 2 || !strings.Contains(errOut, "unknown flag: --nope") {
		t.Errorf("usage error: exit %d, stderr %q", code, errOut)
	}
	code, _, _ = vsched(t, "validate", filepath.Join("..", "..", "examples", "builtin.yaml"), filepath.Join("..", "..", "examples", "configmaps", "config-scheduler.yaml"))
	if code != 0 {
		t.Errorf("validate examples: exit %d", code)
	}
}
