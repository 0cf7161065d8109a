package autoscaler_test

import (
	"context"
	"fmt"

	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/types"
	"knative.dev/pkg/logging"

	"github.com/vsched/vsched/autoscaler"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/statefulset"
)

// The autoscaler is built over a running scheduler and shares its
// informers; here a cluster in memory stands in for Kubernetes.
func ExampleNew() {
	ctx := logging.WithLogger(context.Background(), zap.NewNop().Sugar())
	c, _ := memcluster.New(ctx, memcluster.Options{Replicas: 1, Capacity: 10})
	defer c.Shutdown()
	sources := memcluster.NewSources()
	profiles, _ := config.ProfilesFromConfigMaps(ctx, plugins.MustInTreeRegistry(), nil, nil)
	sched, _ := statefulset.New(ctx, statefulset.Config{
		Namespace: c.Namespace(), Name: c.StatefulSetName(), Capacity: 10,
		Lister: sources.List, ListerSynced: sources.HasSynced,
		Informers: statefulset.InformersFromFactory(c.InformerFactory()), Profiles: profiles, AlwaysLeader: true,
		// Compaction moves each source in steps of config-autoscaler's
		// max-moves-per-source.
		DrainMoveLimit: config.AutoscalerSource(config.DefaultAutoscalerConfig).DrainMoveLimit,
	})
	auto, err := autoscaler.New(ctx, autoscaler.Options{
		Scheduler: sched,
		Client:    c.Client(),
		Config:    config.DefaultAutoscalerConfig,
		Cache:     autoscaler.CacheFromFactory(c.InformerFactory()),
	})
	if err != nil {
		panic(err)
	}
	_ = c.Start(ctx)

	// A source wants 25 vreplicas; one pod holds 10 of them.
	key := types.NamespacedName{Namespace: "sources", Name: "orders"}
	_, _ = sources.Create(key, 25)
	_, _ = sources.Reconcile(ctx, sched, key)

	d, _ := auto.Reconcile(ctx)
	fmt.Println(d.Action, d.Current, "->", d.Target, "written:", d.Written)
	// Output: ScaleUp 1 -> 3 written: true
}
