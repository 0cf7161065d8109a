//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/e2e/harness"
	"github.com/vsched/vsched/internal/app/cli"
	"github.com/vsched/vsched/internal/app/sample/apis/v1alpha1"
)

// overlay is one of deploy/overlays' profiles and what a controller started
// with its rendering must show.
type overlay struct {
	name  string
	check func(e *env, c *harness.Controller)
}

// TestKustomizeOverlays installs each of deploy/overlays' profiles as
// `kubectl apply -k` would (rendered with kustomize's library by
// deploy/kustomizetest/render), one after the other on one control plane:
// the API server must accept every rendered object with strict field
// validation (the CRDs, RBAC, ConfigMaps, the StatefulSet, the Deployment,
// and the spread profile's PrometheusRule against a stand-in of the
// operator's CRD). Then a sample controller runs with the rendered
// Deployment's arguments, as the overlay's ServiceAccount, reading the
// overlay's ConfigMaps; once it has logged that it loaded the profile's
// configuration, a new source must be placed as the profile says.
func TestKustomizeOverlays(t *testing.T) {
	overlays := []overlay{{"spread", checkSpreadProfile}, {"pack", checkPackProfile}, {"dev", checkDevProfile}}
	// Rendering (its first step builds the renderer) runs while the
	// control plane starts.
	type rendering struct {
		objs []*unstructured.Unstructured
		err  error
	}
	done := make(chan map[string]rendering, 1)
	go func() {
		out := map[string]rendering{}
		for _, o := range overlays {
			objs, err := harness.RenderKustomization(filepath.Join("deploy", "overlays", o.name))
			out[o.name] = rendering{objs, err}
		}
		done <- out
	}()
	e := newBareEnv(t, 5*time.Minute)
	rendered := map[string][]*unstructured.Unstructured{}
	for name, r := range <-done {
		if r.err != nil {
			t.Fatal(r.err)
		}
		rendered[name] = r.objs
	}
	e.mark("overlays rendered")
	if err := e.cp.ApplyDir(e.ctx, filepath.Join(harness.RepoRoot(), "e2e", "testdata", "crds")); err != nil {
		t.Fatalf("applying the PrometheusRule CRD: %v", err)
	}
	for i, o := range overlays {
		// Each overlay whole, replicas: 0 included: over an installed
		// sample it scales the adapter StatefulSet to zero under the
		// placed vreplicas, and the next controller sizes it back
		// (StatefulSetRestored) with every placement kept.
		objs := rendered[o.name]
		var held map[string]map[string]int32
		if i > 0 {
			held = e.placementsByPod()
		}
		if err := e.cp.Apply(e.ctx, objs); err != nil {
			t.Fatalf("kubectl apply -k deploy/overlays/%s: the API server rejects: %v", o.name, err)
		}
		e.mark(fmt.Sprintf("overlays/%s applied (%d objects)", o.name, len(objs)))
		if i == 0 {
			e.afterFirstInstall()
		}
		c := e.startController(o.name, controllerArgs(t, rendered[o.name])...)
		if i > 0 {
			e.waitSizedBack(o.name, c, held)
		}
		o.check(e, c)
		c.Terminate() // releases the lease for the next profile's controller
	}
	e.liveViewAfterInstall(map[string]int32{"spread": 6, "pack": 6, "dev": 3})
}

// placementsByPod is every source's vreplicas by pod, by source name.
func (e *env) placementsByPod() map[string]map[string]int32 {
	e.t.Helper()
	s, err := e.snapshot()
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]map[string]int32{}
	for _, src := range s.sources {
		out[src.Name] = byPod(src.Status.Placements)
	}
	return out
}

// waitSizedBack waits until the overlay's controller c has sized the
// adapter StatefulSet back after the overlay's replicas: 0 scaled it to
// zero under the placed vreplicas (its autoscaler's log line), and until
// every source is on Running pods again with its Scheduled condition True;
// each must hold what it held before the apply (held), on the same pods.
func (e *env) waitSizedBack(overlay string, c *harness.Controller, held map[string]map[string]int32) {
	e.t.Helper()
	want := int32(0)
	for _, pods := range held {
		for pod := range pods {
			ord, err := vsched.OrdinalFromPodName(pod)
			if err != nil {
				e.t.Fatal(err)
			}
			want = max(want, ord+1)
		}
	}
	e.waitLogged(fmt.Sprintf("overlays/%s: the StatefulSet sized back to %d", overlay, want), sinceStart(c), func(l harness.LogEntry) bool {
		return l.Msg == "vsched autoscaler: restored the StatefulSet's size" && l.Fields["scaledDownFromOutside"] == true &&
			l.Fields["from"] == float64(0) && l.Fields["to"] == float64(want)
	})
	// A source decided while the StatefulSet waited says so in its
	// Scheduled condition until its controller's next try
	// (embedkit.StatefulSetMissingDelay).
	e.waitFor(fmt.Sprintf("overlays/%s: the sources running again, Scheduled", overlay), func(s *snapshot) bool {
		for _, src := range s.sources {
			if c := src.Condition(v1alpha1.ConditionScheduled); c == nil || c.Status != metav1.ConditionTrue {
				return false
			}
		}
		return len(s.violations(checks{allPlaced: true, running: true, wantReplicas: -1})) == 0
	})
	after := e.placementsByPod()
	// The overlay's own policy may then move a source placed under the
	// one before (dev's EvenZoneSpread rebalances pack's 6 on one pod):
	// such a source keeps its vreplicas, not its pods.
	for name := range rebalanced(e.t, c) {
		if h, a := sumOf(held[name]), sumOf(after[name]); h != a {
			e.t.Errorf("overlays/%s: %s held %d vreplicas before the apply, %d after its rebalancing", overlay, name, h, a)
		}
		delete(held, name)
		delete(after, name)
	}
	if diff := cmp.Diff(held, after); diff != "" {
		e.t.Errorf("overlays/%s: the sources' placements after the apply scaled the StatefulSet to 0 and it was sized back (-before +after):\n%s", overlay, diff)
	}
}

// rebalanced names the sources c's scheduler logged it moved to restore a
// rebalancing filter's rule (a debug line: only a controller logging at
// debug level names any).
func rebalanced(t *testing.T, c *harness.Controller) map[string]bool {
	t.Helper()
	entries, err := c.LogEntries(c.StartOffset())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, l := range entries {
		if src, ok := l.Fields["source"].(string); ok && l.Msg == "vsched: moved vreplicas to restore a rebalancing filter's rule" {
			out[strings.TrimPrefix(src, sourcesNS+"/")] = true
		}
	}
	return out
}

// sumOf is the vreplicas of a source's placements by pod.
func sumOf(byPod map[string]int32) int32 {
	var n int32
	for _, v := range byPod {
		n += v
	}
	return n
}

// liveViewAfterInstall runs `vsched get` on what the overlays installed:
// each profile's source, all placed. The table goes to the test's log
// (README.md shows it).
func (e *env) liveViewAfterInstall(want map[string]int32) {
	e.t.Helper()
	get := func(format string) []byte {
		var out, errOut bytes.Buffer
		gvr := v1alpha1.GroupVersionResource
		args := []string{"get", "-n", systemNS, "--statefulset", adapterName, "--capacity", fmt.Sprint(capacity),
			"--sources", gvr.Group + "/" + gvr.Version + "/" + gvr.Resource, "--sources-namespace", sourcesNS}
		if format != "" {
			args = append(args, "-o", format)
		}
		code := cli.Main(args, cli.Env{Stdout: &out, Stderr: &errOut, KubeClients: func(string, string) (kubernetes.Interface, dynamic.Interface, error) {
			return e.cp.Kube, e.cp.Dynamic, nil
		}})
		if code != cli.ExitOK {
			e.t.Fatalf("vsched get: exit %d: %s", code, errOut.String())
		}
		return out.Bytes()
	}
	var view cli.LiveView
	if err := json.Unmarshal(get("json"), &view); err != nil {
		e.t.Fatal(err)
	}
	got := map[string]int32{}
	for _, s := range view.Sources {
		if s.Placed == s.VReplicas && s.Pending == 0 {
			got[strings.TrimPrefix(s.Source, sourcesNS+"/")] = s.Placed
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		e.t.Errorf("vsched get: the sources all placed (-want +got):\n%s", diff)
	}
	e.t.Logf("vsched get:\n%s", get(""))
}

// newBareEnv starts a control plane with nothing applied.
func newBareEnv(t *testing.T, timeout time.Duration) *env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	e := &env{t: t, ctx: ctx, start: time.Now()}
	e.cp = harness.Start(t, harness.Options{Zones: []string{"zone-a", "zone-b", "zone-c"}, NodesPerZone: 2})
	e.timings = append(e.timings, e.cp.Timings...)
	if _, err := harness.BuildSampleController(); err != nil {
		t.Fatal(err)
	}
	e.mark("sample controller built")
	t.Cleanup(e.report)
	return e
}

// afterFirstInstall creates the sources' namespace and the controller's
// kubeconfig, once the overlay has made its ServiceAccount.
func (e *env) afterFirstInstall() {
	e.t.Helper()
	if _, err := e.cp.Kube.CoreV1().Namespaces().Create(e.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: sourcesNS}}, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	kc, err := e.cp.ServiceAccountKubeconfig(e.ctx, systemNS, "sample-controller")
	if err != nil {
		e.t.Fatal(err)
	}
	e.kubeconfig = kc
}

// controllerArgs are the rendered sample-controller Deployment's container
// arguments but --metrics-addr (the harness listens on a free port).
func controllerArgs(t *testing.T, objs []*unstructured.Unstructured) []string {
	t.Helper()
	for _, u := range objs {
		if u.GetKind() != "Deployment" || u.GetName() != "sample-controller" {
			continue
		}
		containers, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
		if len(containers) != 1 {
			t.Fatalf("sample-controller has %d containers; want 1", len(containers))
		}
		args, _, _ := unstructured.NestedStringSlice(containers[0].(map[string]any), "args")
		var out []string
		for _, a := range args {
			if !strings.HasPrefix(a, "--metrics-addr") {
				out = append(out, a)
			}
		}
		return out
	}
	t.Fatal("no sample-controller Deployment rendered")
	return nil
}

// placeOne creates a source of v vreplicas and waits until they are all
// placed on Running pods; it returns the source as then seen.
func (e *env) placeOne(name string, v int32) (*snapshot, *v1alpha1.SampleSource) {
	e.t.Helper()
	e.createSource(name, v)
	var src *v1alpha1.SampleSource
	s := e.waitFor(name+" placed", func(s *snapshot) bool {
		src = nil
		for _, x := range s.sources {
			if x.Name == name {
				src = x
			}
		}
		return src != nil && len(s.violations(checks{allPlaced: true, running: true, wantReplicas: -1})) == 0
	})
	return s, src
}

// checkSpreadProfile: the base's policy, EvenZoneSpread with MaxSkew 1: 6
// vreplicas go 2 to each zone.
func checkSpreadProfile(e *env, c *harness.Controller) {
	e.waitLogged("the spread policy", sinceStart(c),
		schedulerConfigApplied("AvailabilityNodePriority", "InUsePodPriority", "EvenPodSpread", "BalancedZonePriority"))
	s, src := e.placeOne("spread", 6)
	want := map[string]int32{"zone-a": 2, "zone-b": 2, "zone-c": 2}
	if diff := cmp.Diff(want, s.zonesOf(src)); diff != "" {
		e.t.Errorf("overlays/spread: the source's vreplicas by zone (-want +got):\n%s", diff)
	}
}

// checkPackProfile: no spread rule, a pod in use then the lowest ordinal:
// 6 vreplicas fit on one pod, so they all go to one, although the spread
// profile's source left three pods in use.
func checkPackProfile(e *env, c *harness.Controller) {
	e.waitLogged("the pack policy", sinceStart(c), schedulerConfigApplied("InUsePodPriority", "LowestOrdinalPriority"))
	_, src := e.placeOne("pack", 6)
	want := map[string]int32{adapterName + "-0": 6}
	if diff := cmp.Diff(want, byPod(src.Status.Placements)); diff != "" {
		e.t.Errorf("overlays/pack: the source's placements (-want +got):\n%s", diff)
	}
}

// checkDevProfile: the autoscaler's short refresh period over the base's
// other keys, debug logs, and scheduling without leader election (the
// controller places a source holding no lease).
func checkDevProfile(e *env, c *harness.Controller) {
	e.waitLogged("the dev autoscaler configuration", sinceStart(c), func(l harness.LogEntry) bool {
		return l.Msg == "autoscaler configuration updated" && l.Fields["refreshPeriod"] == "10s" && l.Fields["maxReplicas"] == float64(30)
	})
	e.placeOne("dev", 3)
	if h := e.leaseHolder(); strings.HasPrefix(h, c.Identity) {
		e.t.Errorf("overlays/dev: the controller holds the lease (%q); --leader-elect=false should take none", h)
	}
	entries, err := c.LogEntries(c.StartOffset())
	if err != nil {
		e.t.Fatal(err)
	}
	debug := 0
	for _, l := range entries {
		if l.Fields["severity"] == "DEBUG" {
			debug++
		}
	}
	if debug == 0 {
		e.t.Errorf("overlays/dev: no debug line in the controller's log; --log-level=debug should write some")
	}
}

// byPod is a source's vreplicas by pod, pods holding none left out.
func byPod(ps []vsched.Placement) map[string]int32 {
	out := map[string]int32{}
	for _, p := range ps {
		if p.VReplicas > 0 {
			out[p.PodName] += p.VReplicas
		}
	}
	return out
}
