package descheduler_test

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/descheduler"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/plugins"
)

// evenZones is a profile whose EvenZoneSpread rebalances.
func evenZones(t *testing.T) *framework.Profile {
	t.Helper()
	reg := plugins.MustInTreeRegistry()
	sc, err := config.ParsePlaceConfigMapFromData(map[string]string{
		"predicates": `[{"Name": "PodFitsResources"}, {"Name": "EvenZoneSpread", "Args": {"MaxSkew": 1}}]`,
	}, reg)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := config.BuildProfiles(context.Background(), reg, sc, plugins.DefaultRemoveConfig())
	if err != nil {
		t.Fatal(err)
	}
	return ps.Place
}

// A zone goes down, sources are placed in the two others meanwhile, and the
// zone comes back: every source left uneven is found, although none of them
// changed since the scan before.
func TestRebalanceScanFindsSourcesAfterZoneReturns(t *testing.T) {
	place := evenZones(t)
	w := newScanWorld(t, 10)
	for _, n := range []string{"a1", "b1", "c1"} {
		w.node(n, false)
	}
	// Pods 0 and 3 in zone a, 1 and 4 in b, 2 and 5 in c.
	for ord, n := range []string{"a1", "b1", "c1", "a1", "b1", "c1"} {
		w.pod(int32(ord), n)
	}
	w.st.SetReplicas(6)
	w.commit("even", 0, 1, 1, 1, 2, 1)
	w.commit("moved", 0, 1, 1, 1, 2, 1)
	var sc descheduler.RebalanceScan
	if got := w.scan(&sc, place, nil, nil, 100); len(got) != 0 || !sc.Full {
		t.Fatalf("first scan: %v (full %v), want nothing from a full scan", got, sc.Full)
	}
	w.node("c1", true)
	if got := w.scan(&sc, place, nil, nil, 100); len(got) != 0 || !sc.Full {
		t.Fatalf("zone c down: %v (full %v), want nothing from a full scan", got, sc.Full)
	}
	// While zone c is down, sources go to zones a and b only.
	w.commit("moved", 0, 1, 1, 1, 3, 1)
	w.commit("new-a", 0, 2, 1, 1)
	w.commit("new-b", 1, 1, 4, 1, 3, 1)
	if got := w.scan(&sc, place, nil, nil, 100); len(got) != 0 || sc.Full || sc.Checked != 3 {
		t.Fatalf("placed while zone c is down: %v (full %v, looked at %d), want nothing, looking at the 3 changed", got, sc.Full, sc.Checked)
	}
	if got := w.scan(&sc, place, nil, nil, 100); len(got) != 0 || sc.Checked != 0 {
		t.Fatalf("nothing changed: %v, looked at %d sources, want none", got, sc.Checked)
	}
	w.node("c1", false)
	got := w.scan(&sc, place, nil, nil, 100)
	if d := cmp.Diff([]string{"moved:1", "new-a:1", "new-b:1"}, got); d != "" {
		t.Errorf("zone c back (-want +got):\n%s", d)
	}
}

// On random sequences of changes (placements, deletions, zones going down
// and coming back, pods moving to other nodes, resizes, the lister showing
// other vreplicas, skipped sources, budgets), the scan finds at every step
// exactly what a full RebalanceMoves finds, while looking at fewer sources
// most of the time.
func TestRebalanceScanFindsWhatAFullScanFinds(t *testing.T) {
	place := evenZones(t)
	nodes := []string{"a1", "a2", "b1", "b2", "c1", "c2"}
	for seed := int64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewSource(seed))
		w := newScanWorld(t, 8)
		for _, n := range nodes {
			w.node(n, false)
		}
		for ord := int32(0); ord < 12; ord++ {
			w.pod(ord, nodes[ord%6])
		}
		w.st.SetReplicas(12)
		listed := map[types.NamespacedName]vsched.VPod{}
		var sc descheduler.RebalanceScan
		partial, found := 0, 0
		for step := 0; step < 150; step++ {
			skip := randomChange(rng, w, nodes, listed)
			found += len(w.scan(&sc, place, listed, skip, int32(1+rng.Intn(12))))
			if !sc.Full {
				partial++
			}
		}
		if partial < 75 || found == 0 {
			t.Errorf("seed %d: %d of 150 scans looked at part of the sources, %d moves found; want most, and some", seed, partial, found)
		}
	}
}

// randomChange makes one random change to w, and returns the sources to
// skip in the next scan.
func randomChange(rng *rand.Rand, w *scanWorld, nodes []string, listed map[types.NamespacedName]vsched.VPod) map[types.NamespacedName]bool {
	name := fmt.Sprintf("s%02d", rng.Intn(30))
	k := types.NamespacedName{Namespace: "ns", Name: name}
	switch op := rng.Intn(20); {
	case op < 10:
		var pairs []int32
		for n := 1 + rng.Intn(4); n > 0; n-- {
			pairs = append(pairs, int32(rng.Intn(12)), 1)
		}
		w.commit(name, pairs...)
	case op < 12:
		w.st.Forget(k, t0)
	case op < 14:
		w.node(nodes[rng.Intn(len(nodes))], rng.Intn(2) == 0)
	case op == 14:
		w.pod(int32(rng.Intn(12)), nodes[rng.Intn(len(nodes))])
	case op == 15:
		w.st.SetReplicas(int32(9 + rng.Intn(4)))
	case op < 18:
		ps, _ := w.st.Placements(k)
		listed[k] = &vsched.PlainVPod{Key: k, VReplicas: vsched.TotalVReplicas(ps) + int32(rng.Intn(3)) - 1, Placements: ps}
	default:
		delete(listed, k)
	}
	if rng.Intn(4) > 0 {
		return nil
	}
	return map[types.NamespacedName]bool{{Namespace: "ns", Name: fmt.Sprintf("s%02d", rng.Intn(30))}: true}
}
