package cli

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// getCluster is liveCluster with a drained pod, a pod beyond the
// replicas holding a vreplica, and the Scheduled condition of a source
// that waits.
func getCluster(t *testing.T) (kubernetes.Interface, dynamic.Interface) {
	t.Helper()
	kube, dyn := liveCluster()
	ctx := t.Context()
	p, err := kube.CoreV1().Pods("vs").Get(ctx, "adapter-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Annotations = map[string]string{"vsched.dev/draining": "compaction"}
	if _, err := kube.CoreV1().Pods("vs").Update(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := kube.CoreV1().Pods("vs").Create(ctx, livePod("adapter-3", "n-b"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	src := liveSource("shop", "big", 9, place("adapter-3", 1), place("adapter-0", 4))
	src.Object["status"].(map[string]any)["conditions"] = []any{map[string]any{
		"type": "Scheduled", "status": "False", "reason": "NotEnoughCapacity",
		"message": "4 vreplica(s) pending: no pod with free capacity in zone zone-b",
	}}
	if _, err := dyn.Resource(sampleGVR).Namespace("shop").Create(ctx, src, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return kube, dyn
}

func getEnv(t *testing.T) func(*Env) {
	kube, dyn := getCluster(t)
	return func(e *Env) {
		e.KubeClients = func(string, string) (kubernetes.Interface, dynamic.Interface, error) { return kube, dyn, nil }
	}
}

var getArgs = []string{"get", "-n", "vs", "--statefulset", "adapter", "--sources", "samples.vsched.dev/v1alpha1/samplesources"}

func TestGetTable(t *testing.T) {
	code, out, errOut := runEnv(t, nil, getEnv(t), append(getArgs, "--capacity", "10")...)
	if code != ExitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	want := `StatefulSet vs/adapter: 3 replicas, 10 vreplicas per pod

SOURCE       VREPLICAS  PLACED  PENDING  PODS  ZONES  WHY
ops/alerts   2          2       0        2     2
shop/big     9          5       4        2     2      NotEnoughCapacity: 4 vreplica(s) pending: no pod with free capacity in zone zone-b
shop/new     1          0       1        0     0      no condition written yet
shop/orders  5          5       0        2     2

POD        NODE  ZONE    STATE            USED  FREE
adapter-0  n-a   zone-a  ok               7     3
adapter-1  n-b   zone-b  draining         3     7
adapter-2  n-c   zone-a  node-not-ready   1     9
adapter-3  n-b   zone-b  beyond-replicas  1     9
`
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("get (-want +got):\n%s", diff)
	}
}

func TestGetWide(t *testing.T) {
	code, out, _ := runEnv(t, nil, getEnv(t), append(getArgs, "-o", "wide")...)
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	want := `StatefulSet vs/adapter: 3 replicas

SOURCE       VREPLICAS  PLACED  PENDING  PODS  ZONES  BY ZONE            BY NODE      PLACEMENTS               WHY
ops/alerts   2          2       0        2     2      zone-a=1,zone-b=1  n-b=1,n-c=1  adapter-1=1,adapter-2=1
shop/big     9          5       4        2     2      zone-a=4,zone-b=1  n-a=4,n-b=1  adapter-0=4,adapter-3=1  NotEnoughCapacity: 4 vreplica(s) pending: no pod with free capacity in zone zone-b
shop/new     1          0       1        0     0      <none>             <none>       <none>                   no condition written yet
shop/orders  5          5       0        2     2      zone-a=3,zone-b=2  n-a=3,n-b=2  adapter-0=3,adapter-1=2

POD        NODE  ZONE    STATE            USED  FREE  SOURCES
adapter-0  n-a   zone-a  ok               7     -     shop/big=4,shop/orders=3
adapter-1  n-b   zone-b  draining         3     -     ops/alerts=1,shop/orders=2
adapter-2  n-c   zone-a  node-not-ready   1     -     ops/alerts=1
adapter-3  n-b   zone-b  beyond-replicas  1     -     shop/big=1
`
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("get -o wide (-want +got):\n%s", diff)
	}
}

// TestGetJSONAndYAML: -o json and -o yaml give the same view, and it adds
// up: every pod's use is the sum of the placements on it.
func TestGetJSONAndYAML(t *testing.T) {
	var views [2]LiveView
	for i, format := range []string{"json", "yaml"} {
		code, out, _ := runEnv(t, nil, getEnv(t), append(getArgs, "--capacity", "10", "-o", format)...)
		if code != ExitOK {
			t.Fatalf("-o %s: exit %d", format, code)
		}
		if err := yaml.UnmarshalStrict([]byte(out), &views[i]); err != nil {
			t.Fatalf("-o %s: %v\n%s", format, err, out)
		}
	}
	if diff := cmp.Diff(views[0], views[1]); diff != "" {
		t.Errorf("json and yaml differ:\n%s", diff)
	}
	used := map[string]int32{}
	for _, s := range views[0].Sources {
		for _, p := range s.Placements {
			used[p.Pod] += p.VReplicas
		}
	}
	for _, p := range views[0].Pods {
		if p.Used != used[p.Name] || *p.Free != 10-p.Used {
			t.Errorf("pod %s: used %d, free %d; placements sum to %d", p.Name, p.Used, *p.Free, used[p.Name])
		}
	}
	big := views[0].Sources[1]
	want := LiveSource{Source: "shop/big", VReplicas: 9, Placed: 5, Pending: 4, Status: "False", Reason: "NotEnoughCapacity",
		Message:    "4 vreplica(s) pending: no pod with free capacity in zone zone-b",
		Placements: []LivePlacement{{Pod: "adapter-0", Node: "n-a", Zone: "zone-a", VReplicas: 4}, {Pod: "adapter-3", Node: "n-b", Zone: "zone-b", VReplicas: 1}},
		ByNode:     map[string]int32{"n-a": 4, "n-b": 1}, ByZone: map[string]int32{"zone-a": 4, "zone-b": 1}}
	if diff := cmp.Diff(want, big); diff != "" {
		t.Errorf("shop/big (-want +got):\n%s", diff)
	}
}

// TestGetGonePod: a placement on a pod that no longer exists shows as a
// gone pod holding it.
func TestGetGonePod(t *testing.T) {
	kube, dyn := getCluster(t)
	if err := kube.CoreV1().Pods("vs").Delete(t.Context(), "adapter-3", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	env := func(e *Env) {
		e.KubeClients = func(string, string) (kubernetes.Interface, dynamic.Interface, error) { return kube, dyn, nil }
	}
	_, out, _ := runEnv(t, nil, env, append(getArgs, "-o", "json")...)
	var v LiveView
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	last := v.Pods[len(v.Pods)-1]
	if diff := cmp.Diff(LivePod{Name: "adapter-3", Ordinal: -1, State: "gone", Used: 1, Sources: map[string]int32{"shop/big": 1}}, last); diff != "" {
		t.Errorf("the gone pod (-want +got):\n%s", diff)
	}
	if !strings.Contains(out, `"node": "<none>"`) && v.Sources[1].ByNode["<none>"] != 1 {
		t.Errorf("shop/big's vreplica on the gone pod is not counted on <none>: %v", v.Sources[1].ByNode)
	}
}

func TestGetErrors(t *testing.T) {
	failing := func(e *Env) {
		e.KubeClients = func(string, string) (kubernetes.Interface, dynamic.Interface, error) {
			return nil, nil, errors.New("no kubeconfig")
		}
	}
	for _, tc := range []struct {
		name string
		env  func(*Env)
		args []string
		code int
		want string
	}{
		{"missing flags", getEnv(t), []string{"get"}, ExitUsage, "required: --namespace, --statefulset, --sources"},
		{"bad format", getEnv(t), append(getArgs, "-o", "html"), ExitUsage, `-o "html": the formats are table, wide, json and yaml`},
		{"negative capacity", getEnv(t), append(getArgs, "--capacity", "-1"), ExitUsage, "--capacity -1: must not be negative"},
		{"unreachable", failing, getArgs, ExitUsage, "cannot reach the cluster: no kubeconfig"},
		{"no statefulset", getEnv(t), []string{"get", "-n", "vs", "--statefulset", "nope", "--sources", "samples.vsched.dev/v1alpha1/samplesources"}, ExitInvalid, `StatefulSet vs/nope: statefulsets.apps "nope" not found`},
	} {
		code, _, errOut := runEnv(t, nil, tc.env, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tc.name, code, errOut, tc.code, tc.want)
		}
	}
}
