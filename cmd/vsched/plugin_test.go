package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestKubectlPlugin: installed on the PATH as kubectl-vsched, the command
// runs as `kubectl vsched`, and its help says so. The test binary stands
// in for vsched (TestMain) under the plugin's name; without kubectl the
// test skips.
func TestKubectlPlugin(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not installed")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(self, filepath.Join(dir, "kubectl-vsched")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(kubectl, "vsched", "get", "--help")
	cmd.Env = append(os.Environ(), "VSCHED_RUN_MAIN=1", "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl vsched get --help: %v\n%s", err, out)
	}
	for _, want := range []string{"Usage:\n  kubectl vsched get --namespace NS", "kubectl vsched get -n vsched-sample --statefulset sample-adapter"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("kubectl vsched get --help lacks %q:\n%s", want, out)
		}
	}
}

func TestNameOptions(t *testing.T) {
	for argv0, want := range map[string]int{"/usr/local/bin/vsched": 0, "vsched": 0, "/home/me/bin/kubectl-vsched": 1} {
		if got := len(nameOptions(argv0)); got != want {
			t.Errorf("nameOptions(%q): %d options; want %d", argv0, got, want)
		}
	}
}
