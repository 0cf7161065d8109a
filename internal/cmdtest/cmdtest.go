// Package cmdtest runs a command's main as a process of its own test
// binary, so that its tests see its exit code, stdout and stderr as a user
// would, without building it first.
package cmdtest

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

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
