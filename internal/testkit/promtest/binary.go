package promtest

import (
	"errors"
	"os"
	"os/exec"
	"testing"
)

// Binary finds the prometheus binary: $PROMETHEUS, else prometheus on
// $PATH.
func Binary() (string, error) {
	if p := os.Getenv("PROMETHEUS"); p != "" {
		return p, nil
	}
	p, err := exec.LookPath("prometheus")
	if err != nil {
		return "", errors.New("promtest: prometheus is not installed (apt-get install prometheus, or set $PROMETHEUS)")
	}
	return p, nil
}

// RequireBinary returns the prometheus binary, or skips the test without
// one; with CI=true a missing binary fails the test instead, since CI
// installs it.
func RequireBinary(t testing.TB) string {
	t.Helper()
	p, err := Binary()
	if err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%v; CI=true requires the Prometheus tests", err)
	}
	t.Skipf("skipping: %v; with CI=true it is required", err)
	return ""
}
