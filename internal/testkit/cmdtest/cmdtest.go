// Package cmdtest runs a command's main as a process of its own test
// binary, so that its tests see its exit code, stdout and stderr as a user
// would, without building it first, and compares outputs with golden
// files.
package cmdtest

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files the tests compare with")

// Golden compares got with the file at path, or rewrites the file when
// the test runs with -update.
func Golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (rerun with -update if the change is intended):\n%s", path, FirstDiff(string(want), string(got)))
	}
}

// FirstDiff shows the first line that differs.
func FirstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl
		}
	}
	return "(identical lines; lengths differ)"
}

// Main is for TestMain: with the environment variable env set to "1" the
// test binary is the command named name, running main with the arguments
// after "--"; otherwise it runs the tests.
func Main(m *testing.M, env, name string, main func()) {
	if os.Getenv(env) == "1" {
		for i, a := range os.Args {
			if a == "--" {
				os.Args = append([]string{name}, os.Args[i+1:]...)
				break
			}
		}
		main()
		return
	}
	os.Exit(m.Run())
}

// Run runs the command (the test binary with env set, see Main) with args,
// and returns its exit code, stdout and stderr.
func Run(t *testing.T, env string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), env+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}
