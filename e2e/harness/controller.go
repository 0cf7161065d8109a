//go:build e2e

package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/vsched/vsched/internal/app/sample/controller"
)

var (
	ctrlOnce sync.Once
	ctrlPath string
	ctrlErr  error
)

// BuildSampleController builds cmd/sample-controller into this checkout's
// e2e/.bin, once per test binary (go's build cache makes a rebuild cheap).
// Not into $E2E_BIN: checkouts that share the control plane's binaries must
// not run each other's controller.
func BuildSampleController() (string, error) {
	ctrlOnce.Do(func() {
		dir := filepath.Join(RepoRoot(), "e2e", ".bin")
		out := filepath.Join(dir, "sample-controller")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			ctrlErr = err
			return
		}
		cmd := exec.Command("go", "build", "-o", out, "./cmd/sample-controller")
		cmd.Dir = RepoRoot()
		if b, err := cmd.CombinedOutput(); err != nil {
			ctrlErr = fmt.Errorf("building the sample controller: %v\n%s", err, b)
			return
		}
		ctrlPath = out
	})
	return ctrlPath, ctrlErr
}

// Controller is a sample controller run as a process of the test.
type Controller struct {
	*Proc
	Identity string
}

// StartController starts a sample controller with the kubeconfig (use
// ServiceAccountKubeconfig so it runs with the manifests' RBAC), identity
// and any extra flags, and stops it at cleanup.
func (cp *ControlPlane) StartController(t testing.TB, kubeconfig, namespace, identity string, extra ...string) *Controller {
	t.Helper()
	bin, err := BuildSampleController()
	if err != nil {
		t.Fatal(err)
	}
	c := &Controller{Identity: identity, Proc: &Proc{
		Name: "sample-controller " + identity, Path: bin, Log: cp.path("sample-controller-" + identity + ".log"),
		Args: append([]string{
			"--kubeconfig=" + kubeconfig, "--namespace=" + namespace, "--identity=" + identity,
			"--resync=30s", "--metrics-addr=127.0.0.1:0",
		}, extra...),
		Env: []string{"SYSTEM_NAMESPACE=" + namespace},
	}}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("---- last lines of %s (%s)\n%s", c.Name, c.Log, c.Tail(40))
		}
		c.Terminate()
	})
	return c
}

// MetricsURL is the address of the controller's /metrics, from its log
// line saying where it listens (it listens on a free port), "" until then.
func (c *Controller) MetricsURL() string {
	entries, err := c.LogEntries(c.StartOffset())
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if e.Msg == controller.LogMetricsListening {
			if addr, ok := e.Fields["address"].(string); ok {
				return "http://" + addr + controller.PathMetrics
			}
		}
	}
	return ""
}
