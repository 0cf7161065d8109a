package memcluster_test

import (
	"context"
	"fmt"

	"go.uber.org/zap"
	"knative.dev/pkg/logging"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/statefulset"
)

// Example schedules on the in-memory cluster through a zone failure and a
// scale-up, the way a controller's reconcile loop would: Reconcile
// schedules a source and commits its placements, Sync waits until the
// scheduler's informers have seen a cluster change.
func Example() {
	ctx, cancel := context.WithCancel(logging.WithLogger(context.Background(), zap.NewNop().Sugar()))
	defer cancel()
	c, err := memcluster.New(ctx, memcluster.Options{Zones: []string{"a", "b", "c"}, Replicas: 3, Capacity: 4})
	if err != nil {
		panic(err)
	}
	defer c.Shutdown()
	sources := memcluster.NewSources()
	profiles, err := config.ProfilesFromConfigMaps(ctx, plugins.MustInTreeRegistry(), nil, nil)
	if err != nil {
		panic(err)
	}
	cfg := statefulset.Config{Namespace: c.Namespace(), Name: c.StatefulSetName(), Capacity: c.Capacity(), AlwaysLeader: true}
	cfg.Lister, cfg.ListerSynced, cfg.Profiles = sources.List, sources.HasSynced, profiles
	cfg.Informers, cfg.Clock = statefulset.InformersFromFactory(c.InformerFactory()), c.Clock()
	sched, err := statefulset.New(ctx, cfg)
	if err != nil {
		panic(err)
	}
	if err := c.Start(ctx); err != nil {
		panic(err)
	}
	report := func(name string, ps []vsched.Placement, err error) {
		fmt.Printf("%s: %d placed, %d on pod 0 (zone a), %d pending\n",
			name, vsched.TotalVReplicas(ps), onPod(ps, c.PodName(0)), vsched.PendingCount(err))
	}

	one, _ := sources.Create(key("one"), 3)
	ps, err := sources.Reconcile(ctx, sched, one.GetKey())
	report("one", ps, err)

	// Zone a fails: nothing new goes there, and what does not fit waits.
	if err := c.FailZone("a"); err != nil {
		panic(err)
	}
	if err := c.Sync(ctx); err != nil {
		panic(err)
	}
	two, _ := sources.Create(key("two"), 8)
	ps, err = sources.Reconcile(ctx, sched, two.GetKey())
	report("two", ps, err)

	// Two more pods make room for the rest.
	if err := c.ScaleTo(5); err != nil {
		panic(err)
	}
	if err := c.Sync(ctx); err != nil {
		panic(err)
	}
	ps, err = sources.Reconcile(ctx, sched, two.GetKey())
	report("two", ps, err)
	// Output:
	// one: 3 placed, 1 on pod 0 (zone a), 0 pending
	// two: 6 placed, 0 on pod 0 (zone a), 2 pending
	// two: 8 placed, 0 on pod 0 (zone a), 0 pending
}

func onPod(ps []vsched.Placement, pod string) int32 {
	if p := vsched.PlacementForPod(ps, pod); p != nil {
		return p.VReplicas
	}
	return 0
}
