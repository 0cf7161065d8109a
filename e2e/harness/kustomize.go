//go:build e2e

package harness

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

var (
	renderOnce sync.Once
	renderPath string
	renderErr  error
)

// buildRenderer builds deploy/kustomizetest's render command (kustomize's
// library, in a module of its own so that vsched's go.mod never requires
// kustomize) into this checkout's e2e/.bin, once per test binary.
func buildRenderer() (string, error) {
	renderOnce.Do(func() {
		dir := filepath.Join(RepoRoot(), "e2e", ".bin")
		out := filepath.Join(dir, "kustomize-render")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			renderErr = err
			return
		}
		cmd := exec.Command("go", "build", "-o", out, "./render")
		cmd.Dir = filepath.Join(RepoRoot(), "deploy", "kustomizetest")
		// The module's workspace, whatever GOWORK the suite runs with
		// (the Makefile's is off, for the root module).
		cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(cmd.Dir, "go.work"))
		if b, err := cmd.CombinedOutput(); err != nil {
			renderErr = fmt.Errorf("building deploy/kustomizetest/render: %v\n%s", err, b)
			return
		}
		renderPath = out
	})
	return renderPath, renderErr
}

// RenderKustomization returns the objects `kubectl apply -k` would apply
// for the kustomization in dir (relative to the repository's root, such as
// deploy/overlays/spread), in kustomize's order.
func RenderKustomization(dir string) ([]*unstructured.Unstructured, error) {
	bin, err := buildRenderer()
	if err != nil {
		return nil, err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, filepath.Join(RepoRoot(), dir))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("rendering %s: %v: %s", dir, err, stderr.Bytes())
	}
	return DecodeManifests(stdout.Bytes())
}
