package memcluster_test

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"
	"knative.dev/pkg/logging"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/statefulset"
)

// ExampleCluster_DeleteStatefulSet deletes the StatefulSet under a running
// scheduler, as an upgrade that recreates it does: while it is missing a
// decision answers a MissingError (a retryable ErrNotReady) and the
// committed placements stay; once it is created again at its size, the
// source keeps them.
func ExampleCluster_DeleteStatefulSet() {
	ctx, cancel := context.WithCancel(logging.WithLogger(context.Background(), zap.NewNop().Sugar()))
	defer cancel()
	c, err := memcluster.New(ctx, memcluster.Options{Zones: []string{"a", "b"}, Replicas: 2, Capacity: 4})
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
	src, _ := sources.Create(key("src"), 4)
	placed, _ := sources.Reconcile(ctx, sched, src.GetKey())

	if err := c.DeleteStatefulSet(true); err != nil { // --cascade=orphan
		panic(err)
	}
	if err := c.Sync(ctx); err != nil {
		panic(err)
	}
	_, err = sources.Reconcile(ctx, sched, src.GetKey())
	var missing *vsched.MissingError
	fmt.Println("while deleted:", errors.As(err, &missing), errors.Is(err, vsched.ErrNotReady), missing.Why)

	if err := c.CreateStatefulSet(2); err != nil {
		panic(err)
	}
	if err := c.Sync(ctx); err != nil {
		panic(err)
	}
	again, err := sources.Reconcile(ctx, sched, src.GetKey())
	fmt.Println("back:", err, fmt.Sprint(again) == fmt.Sprint(placed))
	// Output:
	// while deleted: true true StatefulSet vsched/adapter was deleted at 2025-01-01T00:00:00Z
	// back: <nil> true
}
