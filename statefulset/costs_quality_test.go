package statefulset

import "testing"

// TestWeightedWorkloadQuality places BenchmarkWeightedWorkload's W1 (600
// pods of 20 slots and 4Gi on 12 nodes, 1,000 sources, one in ten at
// 1000Mi per vreplica and the others at 100Mi) and checks issue 23's
// goals: nothing pending, no pod over its memory, and the pods used at
// most max over slots and memory of ceil(total / pod capacity) plus the
// nodes. It logs, side by side, the pods over memory that count-only
// placement (the same sources on pods without memory) leaves.
func TestWeightedWorkloadQuality(t *testing.T) {
	if testing.Short() {
		t.Skip("places 1,000 sources twice")
	}
	costed := placeWeighted(t, true)
	countOnly := placeWeighted(t, false)
	t.Logf("with costs: %d pods over memory, %d used (bound %d); count-only: %d over memory, %d used",
		costed.over, costed.used, costed.bound, countOnly.over, countOnly.used)
	if costed.pending != 0 || costed.over != 0 || costed.used > costed.bound {
		t.Errorf("with costs: %d pending, %d pods over memory, %d pods used; want 0, 0 and at most %d",
			costed.pending, costed.over, costed.used, costed.bound)
	}
	if countOnly.over == 0 {
		t.Errorf("count-only placement left no pod over memory: the workload does not test costs")
	}
}

// placeWeighted schedules W1's costed sources once, the pods with memory
// or without, and measures the placement.
func placeWeighted(t *testing.T, podsMem bool) weightedQuality {
	cluster := benchCluster(t, w1)
	defer cluster.Shutdown()
	vpods := makeCostSources(w1, true)
	s := startWeighted(t, cluster, w1, benchProfiles(t, nil), vpods, podsMem)
	defer s.Close()
	return scheduleWeighted(t, s, w1, vpods)
}
