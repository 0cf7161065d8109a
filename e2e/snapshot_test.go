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
	"github.com/vsched/vsched/internal/app/sim"
)

// TestSnapshotReproducesLivePlacements takes a `vsched snapshot` of the
// cluster mid-run, once the sources have settled, and checks that
// simulating it reproduces the live placements exactly: the nodes, the
// StatefulSet's pods, the ConfigMaps and the sources' placements are read
// as the scheduler sees them.
func TestSnapshotReproducesLivePlacements(t *testing.T) {
	e := newEnv(t, 5*time.Minute, 1)
	_, live := e.placeSources(20, 6, 3)

	var snap, errOut bytes.Buffer
	clients := func(string, string) (kubernetes.Interface, dynamic.Interface, error) {
		return e.cp.Kube, e.cp.Dynamic, nil
	}
	gvr := v1alpha1.GroupVersionResource
	code := cli.Main([]string{"snapshot", "-n", systemNS, "--statefulset", adapterName, "--capacity", fmt.Sprint(capacity),
		"--sources", gvr.Group + "/" + gvr.Version + "/" + gvr.Resource, "--sources-namespace", sourcesNS},
		cli.Env{Stdout: &snap, Stderr: &errOut, KubeClients: clients})
	if code != cli.ExitOK {
		t.Fatalf("vsched snapshot: exit %d: %s", code, errOut.String())
	}
	e.mark("snapshot taken")

	var simOut bytes.Buffer
	errOut.Reset()
	code = cli.Main([]string{"simulate", "-f", "-", "-o", "json"}, cli.Env{Stdin: bytes.NewReader(snap.Bytes()), Stdout: &simOut, Stderr: &errOut})
	if code != cli.ExitOK {
		t.Fatalf("vsched simulate of the snapshot: exit %d: %s\n%s", code, errOut.String(), snap.String())
	}
	// -o json writes a sim.Result.
	var res sim.Result
	if err := json.Unmarshal(simOut.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if res.Initial == nil {
		t.Fatal("the simulation shows no initial cluster")
	}
	got, wantPlaced := map[string]map[string]int32{}, map[string]map[string]int32{}
	for src, ps := range res.Initial.Placements {
		got[src] = map[string]int32{}
		for _, p := range ps {
			got[src][p.PodName] += p.VReplicas
		}
	}
	for _, src := range live.sources {
		k := src.Namespace + "/" + src.Name
		wantPlaced[k] = map[string]int32{}
		for _, p := range src.Status.Placements {
			if p.VReplicas > 0 {
				wantPlaced[k][p.PodName] += p.VReplicas
			}
		}
	}
	if diff := cmp.Diff(wantPlaced, got); diff != "" {
		t.Errorf("simulating the snapshot moved vreplicas (-live +simulated):\n%s\nsnapshot:\n%s", diff, snap.String())
	}
	e.mark("snapshot simulated")
}
