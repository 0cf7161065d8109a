package cli

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/vsched/vsched/internal/app/sim"
)

var sampleGVR = schema.GroupVersionResource{Group: "samples.vsched.dev", Version: "v1alpha1", Resource: "samplesources"}

func liveNode(name, zone string, ready, cordoned bool) *corev1.Node {
	st := corev1.ConditionTrue
	if !ready {
		st = corev1.ConditionUnknown
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"topology.kubernetes.io/zone": zone}},
		Spec:       corev1.NodeSpec{Unschedulable: cordoned},
		Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: st}}},
	}
}

func livePod(name, node string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "vs", Name: name}, Spec: corev1.PodSpec{NodeName: node}}
}

func liveSource(ns, name string, vreplicas int64, placements ...any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "samples.vsched.dev/v1alpha1", "kind": "SampleSource",
		"metadata": map[string]any{"namespace": ns, "name": name},
		"spec":     map[string]any{"vreplicas": vreplicas},
	}}
	if len(placements) > 0 {
		u.Object["status"] = map[string]any{"placements": placements}
	}
	return u
}

func place(pod string, n int64) map[string]any { return map[string]any{"podName": pod, "vreplicas": n} }

// liveCluster is a small live cluster: three nodes (one cordoned and not
// ready), a StatefulSet of 3 pods, a config-scheduler, and three sources.
func liveCluster() (kubernetes.Interface, dynamic.Interface) {
	kube := kubefake.NewClientset(
		liveNode("n-b", "zone-b", true, false), liveNode("n-a", "zone-a", true, false), liveNode("n-c", "zone-a", false, true),
		&appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "vs", Name: "adapter"}, Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](3)}},
		livePod("adapter-0", "n-a"), livePod("adapter-1", "n-b"), livePod("adapter-2", "n-c"), livePod("other-0", "n-a"),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "vs", Name: "config-scheduler"},
			Data: map[string]string{"priorities": `[{"Name": "LowestOrdinalPriority", "Weight": 1}]`}},
	)
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{sampleGVR: "SampleSourceList"},
		liveSource("shop", "orders", 5, place("adapter-0", 3), place("adapter-1", 2)),
		liveSource("ops", "alerts", 2, place("adapter-2", 1), place("adapter-1", 1)),
		liveSource("shop", "new", 1),
	)
	return kube, dyn
}

func snapshotEnv(e *Env) {
	kube, dyn := liveCluster()
	e.KubeClients = func(string, string) (kubernetes.Interface, dynamic.Interface, error) { return kube, dyn, nil }
	e.Now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
}

var snapshotArgs = []string{"snapshot", "-n", "vs", "--statefulset", "adapter", "--capacity", "10", "--sources", "samples.vsched.dev/v1alpha1/samplesources"}

func TestSnapshot(t *testing.T) {
	files := map[string]string{}
	code, out, errOut := runEnv(t, files, snapshotEnv, snapshotArgs...)
	want := `# A snapshot of StatefulSet vs/adapter and its sources (samples.vsched.dev/v1alpha1/samplesources), taken 2026-01-02T03:04:05Z by vsched snapshot.
# Simulating it reproduces the live placements; add steps to ask what if.
version: 1
name: snapshot of vs/adapter
cluster:
  nodes:
    - name: n-a
      zone: zone-a
    - name: n-b
      zone: zone-b
    - name: n-c
      zone: zone-a
      cordoned: true
      ready: false
  statefulSet:
    namespace: vs
    name: adapter
    replicas: 3
    capacity: 10
    podNodes: [n-a, n-b, n-c]
scheduler:
  priorities: '[{"Name": "LowestOrdinalPriority", "Weight": 1}]'
sources:
  - source: ops/alerts
    vreplicas: 2
    placements:
      - podName: adapter-2
        vreplicas: 1
      - podName: adapter-1
        vreplicas: 1
  - source: shop/new
    vreplicas: 1
  - source: shop/orders
    vreplicas: 5
    placements:
      - podName: adapter-0
        vreplicas: 3
      - podName: adapter-1
        vreplicas: 2
`
	if code != ExitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("snapshot (-want +got):\n%s", diff)
	}
}

// TestSnapshotJSON: -o json writes the same scenario as JSON, which
// simulates as the YAML does; -o takes only yaml and json.
func TestSnapshotJSON(t *testing.T) {
	files := map[string]string{}
	_, snapYAML, _ := runEnv(t, files, snapshotEnv, snapshotArgs...)
	code, snapJSON, errOut := runEnv(t, files, snapshotEnv, append(snapshotArgs, "-o", "json")...)
	var doc map[string]any
	if code != ExitOK || json.Unmarshal([]byte(snapJSON), &doc) != nil || doc["version"] != 1.0 {
		t.Fatalf("-o json: exit %d, stderr %q\n%s", code, errOut, snapJSON)
	}
	files["s.yaml"], files["s.json"] = snapYAML, snapJSON
	_, fromYAML, _ := run(t, files, "simulate", "-f", "s.yaml", "-o", "json")
	code, fromJSON, errOut := run(t, files, "simulate", "-f", "s.json", "-o", "json")
	if code != ExitOK || fromJSON != fromYAML {
		t.Errorf("simulating the JSON snapshot: exit %d, stderr %q; output differs from the YAML's", code, errOut)
	}
	code, _, errOut = runEnv(t, files, snapshotEnv, append(snapshotArgs, "-o", "table")...)
	if code != ExitUsage || !strings.HasPrefix(errOut, `vsched snapshot: -o "table": the formats are yaml and json`) {
		t.Errorf("-o table: exit %d, stderr %q", code, errOut)
	}
}

// TestSnapshotSimulatesToLivePlacements is the unit form of the e2e check:
// simulating a snapshot reproduces the live placements exactly (the new
// source, with nothing placed yet, gets placed by the first reconcile).
func TestSnapshotSimulatesToLivePlacements(t *testing.T) {
	files := map[string]string{}
	_, snap, _ := runEnv(t, files, snapshotEnv, snapshotArgs...)
	files["snap.yaml"] = snap
	code, out, errOut := run(t, files, "simulate", "-f", "snap.yaml", "-o", "json")
	if code != ExitOK {
		t.Fatalf("simulate: exit %d: %s", code, errOut)
	}
	// -o json writes a sim.Result.
	var res sim.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Initial == nil {
		t.Fatal("the simulation shows no initial cluster")
	}
	got := map[string]map[string]int32{}
	for src, ps := range res.Initial.Placements {
		got[src] = map[string]int32{}
		for _, p := range ps {
			got[src][p.PodName] = p.VReplicas
		}
	}
	want := map[string]map[string]int32{
		"shop/orders": {"adapter-0": 3, "adapter-1": 2},
		"ops/alerts":  {"adapter-1": 1, "adapter-2": 1},
		"shop/new":    {"adapter-0": 1}, // LowestOrdinalPriority, from the live config-scheduler
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("simulated placements (-want +got):\n%s", diff)
	}
	if !strings.Contains(out, `"from": "scenario"`) {
		t.Errorf("the live config-scheduler is not in effect")
	}
}

func TestSnapshotErrors(t *testing.T) {
	unreachable := func(e *Env) {
		e.KubeClients = func(string, string) (kubernetes.Interface, dynamic.Interface, error) {
			return nil, nil, errors.New("no kubeconfig")
		}
	}
	tests := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"snapshot"}, ExitUsage, "vsched snapshot: required: --namespace, --statefulset, --sources, --capacity (at least 1)\n"},
		{append(snapshotArgs[:len(snapshotArgs)-1:len(snapshotArgs)-1], "samplesources"), ExitUsage, `vsched snapshot: --sources "samplesources": write GROUP/VERSION/RESOURCE`},
		{append(snapshotArgs, "--configmaps", "a,b"), ExitUsage, "vsched snapshot: --configmaps: give three names"},
		{append(snapshotArgs[:2:2], "other", "--statefulset", "adapter", "--capacity", "1", "--sources", "x/v1/y"), ExitInvalid, `vsched snapshot: StatefulSet other/adapter: statefulsets.apps "adapter" not found`},
		{append(snapshotArgs, "--vreplicas-path", "spec.size"), ExitInvalid, "vsched snapshot: source ops/alerts: spec.size: want a number of vreplicas, found <nil> (give --vreplicas-path)"},
	}
	for _, tc := range tests {
		code, _, errOut := runEnv(t, map[string]string{}, snapshotEnv, tc.args...)
		if code != tc.code || !strings.HasPrefix(errOut, tc.err) {
			t.Errorf("%v: exit %d, stderr %q; want %d %q", tc.args, code, errOut, tc.code, tc.err)
		}
	}
	code, _, errOut := runEnv(t, map[string]string{}, unreachable, snapshotArgs...)
	if code != ExitUsage || errOut != "vsched snapshot: cannot reach the cluster: no kubeconfig\n" {
		t.Errorf("unreachable: exit %d, stderr %q", code, errOut)
	}
}
