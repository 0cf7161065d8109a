//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/vsched/vsched/internal/app/cli"
	"github.com/vsched/vsched/internal/app/sample/apis/v1alpha1"
)

// TestGetLiveView runs `vsched get` against the control plane once the
// sources have settled: per source, its placements and their nodes and
// zones are the live ones and nothing is pending; per pod, its use is the
// sum of what the sources placed there. The table goes to the test's log
// (docs/operations.md shows it).
func TestGetLiveView(t *testing.T) {
	e := newEnv(t, 5*time.Minute, 1)
	_, live := e.placeSources(12, 6, 5)
	clients := func(string, string) (kubernetes.Interface, dynamic.Interface, error) {
		return e.cp.Kube, e.cp.Dynamic, nil
	}
	gvr := v1alpha1.GroupVersionResource
	get := func(format string) []byte {
		var out, errOut bytes.Buffer
		code := cli.Main([]string{"get", "-n", systemNS, "--statefulset", adapterName, "--capacity", fmt.Sprint(capacity),
			"--sources", gvr.Group + "/" + gvr.Version + "/" + gvr.Resource, "--sources-namespace", sourcesNS, "-o", format},
			cli.Env{Stdout: &out, Stderr: &errOut, KubeClients: clients})
		if code != cli.ExitOK {
			t.Fatalf("vsched get -o %s: exit %d: %s", format, code, errOut.String())
		}
		return out.Bytes()
	}
	var view cli.LiveView
	if err := json.Unmarshal(get("json"), &view); err != nil {
		t.Fatal(err)
	}
	t.Logf("vsched get -o wide:\n%s", get("wide"))
	e.mark("vsched get read the cluster")

	want, got := map[string]map[string]string{}, map[string]map[string]string{}
	for _, src := range live.sources {
		k := src.Namespace + "/" + src.Name
		want[k] = map[string]string{}
		for _, p := range src.Status.Placements {
			if p.VReplicas > 0 {
				pod := live.pods[p.PodName]
				node := live.nodes[pod.Spec.NodeName]
				want[k][p.PodName] = fmt.Sprintf("%d on %s in %s", p.VReplicas, node.Name, node.Labels["topology.kubernetes.io/zone"])
			}
		}
	}
	used := map[string]int32{}
	for _, s := range view.Sources {
		got[s.Source] = map[string]string{}
		for _, p := range s.Placements {
			got[s.Source][p.Pod] = fmt.Sprintf("%d on %s in %s", p.VReplicas, p.Node, p.Zone)
			used[p.Pod] += p.VReplicas
		}
		if s.Pending != 0 || s.Placed != s.VReplicas || s.Reason != "AllPlaced" {
			t.Errorf("%s: %d placed of %d, %d pending, reason %q; want all placed", s.Source, s.Placed, s.VReplicas, s.Pending, s.Reason)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("vsched get's placements differ from the live ones (-live +get):\n%s", diff)
	}
	for _, p := range view.Pods {
		if p.Used != used[p.Name] || p.Free == nil || *p.Free != capacity-p.Used || p.State != "ok" {
			t.Errorf("pod %s: used %d, free %v, state %s; the sources place %d there", p.Name, p.Used, p.Free, p.State, used[p.Name])
		}
	}
	if int(view.StatefulSet.Replicas) != len(view.Pods) || *live.sts.Spec.Replicas != view.StatefulSet.Replicas {
		t.Errorf("StatefulSet: %d replicas and %d pods in the view; live spec.replicas %d", view.StatefulSet.Replicas, len(view.Pods), *live.sts.Spec.Replicas)
	}
}
