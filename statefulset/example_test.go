package statefulset_test

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/types"
	"knative.dev/pkg/logging"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/statefulset"
)

// ExampleNew builds a scheduler for one StatefulSet and places a source.
// The in-memory cluster stands in for the informers and the source lister
// a controller has.
func ExampleNew() {
	ctx, cancel := context.WithCancel(logging.WithLogger(context.Background(), zap.NewNop().Sugar()))
	defer cancel()
	cluster, err := memcluster.New(ctx, memcluster.Options{Zones: []string{"a", "b", "c"}, Replicas: 3, Capacity: 10})
	if err != nil {
		panic(err)
	}
	defer cluster.Shutdown()
	sources := memcluster.NewSources()

	// config-scheduler and config-descheduler, live-reloaded once the
	// store watches them (config.ProfilesStore.WatchConfigs); the default policy
	// until then.
	store, err := config.NewProfilesStore(ctx, plugins.MustInTreeRegistry(), config.Names{}, nil)
	if err != nil {
		panic(err)
	}
	sched, err := statefulset.New(ctx, statefulset.Config{
		Namespace:    cluster.Namespace(),
		Name:         cluster.StatefulSetName(),
		Capacity:     cluster.Capacity(),
		Lister:       sources.List,
		ListerSynced: sources.HasSynced,
		Informers:    statefulset.InformersFromFactory(cluster.InformerFactory()),
		Profiles:     config.ProfilesFromStore(store),
		AlwaysLeader: true, // a single replica; else promote it as a knative reconciler
	})
	if err != nil {
		panic(err)
	}
	if err := cluster.Start(ctx); err != nil { // starts the informers and waits for them
		panic(err)
	}

	src, err := sources.Create(types.NamespacedName{Namespace: "ns", Name: "kafka-source"}, 6)
	if err != nil {
		panic(err)
	}
	placements, err := sched.Schedule(ctx, src)
	if err != nil {
		panic(err)
	}
	perZone := map[string]int32{}
	for _, p := range placements {
		perZone[p.ZoneName] += p.VReplicas
	}
	for _, zone := range slices.Sorted(maps.Keys(perZone)) {
		fmt.Printf("zone %s: %d vreplicas\n", zone, perZone[zone])
	}
	// Output:
	// zone a: 2 vreplicas
	// zone b: 2 vreplicas
	// zone c: 2 vreplicas
}
