package embedkit_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/embedkit"
	"github.com/vsched/vsched/memcluster"
)

// TestDrainMoveLimitFollowsTheConfig: the vreplicas one Schedule call moves
// off a draining pod are bounded by config-autoscaler's move limits in force
// at that call, with no autoscaler cycle in between.
func TestDrainMoveLimitFollowsTheConfig(t *testing.T) {
	var live atomic.Pointer[config.AutoscalerConfig]
	limit := func(n int32) {
		c := config.DefaultAutoscalerConfig()
		c.MaxMovesPerSource = n
		live.Store(c)
	}
	limit(3)
	s, c, sources, _ := start(t, true, func(mo *memcluster.Options, eo *embedkit.Options) {
		mo.Replicas, mo.Capacity = 3, 10
		eo.AutoscalerConfig = live.Load
	})
	ctx := context.Background()
	schedule := func(name string) map[string]int32 {
		t.Helper()
		key := types.NamespacedName{Namespace: "ns", Name: name}
		ps, err := sources.Reconcile(ctx, s, key)
		if err != nil {
			t.Fatal(err)
		}
		s.Observe(mustGet(t, sources, key))
		got := map[string]int32{}
		for _, p := range ps {
			got[p.PodName] = p.VReplicas
		}
		return got
	}
	for name, n := range map[string]int32{"a": 20, "b": 1} {
		if _, err := sources.Create(types.NamespacedName{Namespace: "ns", Name: name}, n); err != nil {
			t.Fatal(err)
		}
	}
	schedule("a") // adapter-0 and adapter-1
	schedule("b") // adapter-2
	if err := c.SetDraining(1, true); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		limit int32
		want  map[string]int32
	}{
		{3, map[string]int32{"adapter-0": 10, "adapter-1": 7, "adapter-2": 3}},
		{5, map[string]int32{"adapter-0": 10, "adapter-1": 2, "adapter-2": 8}},
	} {
		limit(step.limit)
		if diff := cmp.Diff(step.want, schedule("a")); diff != "" {
			t.Errorf("max-moves-per-source %d: placements (-want +got):\n%s", step.limit, diff)
		}
	}
	if err := vsched.ValidatePlacements(mustGetPlacements(t, sources, "a")); err != nil {
		t.Error(err)
	}
}

func mustGetPlacements(t *testing.T, sources *memcluster.Sources, name string) []vsched.Placement {
	t.Helper()
	return mustGet(t, sources, types.NamespacedName{Namespace: "ns", Name: name}).GetPlacements()
}
