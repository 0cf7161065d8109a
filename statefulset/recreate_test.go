package statefulset_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/types"
	"knative.dev/pkg/logging"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/autoscaler"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/statefulset"
)

// recreateWorld is a running scheduler and autoscaler on a memcluster with
// two committed sources, for deleting the StatefulSet under them.
type recreateWorld struct {
	ctx     context.Context
	c       *memcluster.Cluster
	src     *memcluster.Sources
	sched   *statefulset.Scheduler
	auto    *autoscaler.Autoscaler
	keys    []types.NamespacedName
	before  map[types.NamespacedName][]vsched.Placement
	sources map[types.NamespacedName]int32
}

func newRecreateWorld(t *testing.T) *recreateWorld {
	t.Helper()
	ctx, cancel := context.WithCancel(logging.WithLogger(context.Background(), zap.NewNop().Sugar()))
	c, err := memcluster.New(ctx, memcluster.Options{Zones: []string{"a", "b", "c"}, Replicas: 3, Capacity: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); c.Shutdown() })
	w := &recreateWorld{ctx: ctx, c: c, src: memcluster.NewSources(), before: map[types.NamespacedName][]vsched.Placement{}}
	w.startController(t)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for i, n := range []int32{7, 4} {
		key := types.NamespacedName{Namespace: "ns", Name: []string{"kafka", "redis"}[i]}
		if _, err := w.src.Create(key, n); err != nil {
			t.Fatal(err)
		}
		if _, err := w.src.Reconcile(ctx, w.sched, key); err != nil {
			t.Fatalf("placing %s: %v", key.Name, err)
		}
		w.keys = append(w.keys, key)
		w.before[key] = w.committed(t, key)
	}
	return w
}

// startController builds the controller's scheduler and autoscaler, as a
// process (re)starting does.
func (w *recreateWorld) startController(t *testing.T) {
	t.Helper()
	if w.sched != nil {
		w.sched.Close()
	}
	profiles, err := config.ProfilesFromConfigMaps(w.ctx, plugins.MustInTreeRegistry(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.sched, err = statefulset.New(w.ctx, statefulset.Config{
		Namespace: w.c.Namespace(), Name: w.c.StatefulSetName(), Capacity: w.c.Capacity(),
		Lister: w.src.List, ListerSynced: w.src.HasSynced, FreshLister: w.src.ListFresh,
		Informers: statefulset.InformersFromFactory(w.c.InformerFactory()),
		Profiles:  profiles, AlwaysLeader: true, Clock: w.c.Clock(),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.sched.Close)
	w.auto, err = autoscaler.New(w.ctx, autoscaler.Options{Scheduler: w.sched, Client: w.c.Client(), Clock: w.c.Clock(),
		Cache: autoscaler.CacheFromFactory(w.c.InformerFactory())})
	if err != nil {
		t.Fatal(err)
	}
}

func (w *recreateWorld) committed(t *testing.T, key types.NamespacedName) []vsched.Placement {
	t.Helper()
	v, err := w.src.Get(key)
	if err != nil {
		t.Fatal(err)
	}
	return v.GetPlacements()
}

func (w *recreateWorld) sync(t *testing.T) {
	t.Helper()
	if err := w.c.Sync(w.ctx); err != nil {
		t.Fatal(err)
	}
}

// lost reports every source whose committed placements differ from those
// it held before the StatefulSet was deleted.
func (w *recreateWorld) lost(t *testing.T, when string) {
	t.Helper()
	for _, k := range w.keys {
		if diff := cmp.Diff(w.before[k], w.committed(t, k)); diff != "" {
			t.Errorf("%s: %s's committed placements changed (-before +now):\n%s", when, k.Name, diff)
		}
	}
}

// A StatefulSet deleted under a running scheduler (an upgrade that
// recreates it) is "not ready", never "scaled to zero": Schedule answers a
// retryable ErrNotReady with no placements a controller would write, the
// autoscaler holds, and nothing committed is lost. When it comes back with
// the same name, as its manifest says (replicas: 0), the autoscaler sizes it
// from what the sources hold and the sources keep their placements: 0
// moves.
func TestStatefulSetDeletedAndRecreated(t *testing.T) {
	for _, tc := range []struct {
		name string
		// orphan deletes with --cascade=orphan; restart replaces the
		// controller process while the StatefulSet is gone (an upgrade
		// of both): the new one never saw the delete.
		orphan, restart bool
	}{{"cascading", false, false}, {"orphan", true, false}, {"controller restarted too", false, true}} {
		orphan := tc.orphan
		t.Run(tc.name, func(t *testing.T) {
			w := newRecreateWorld(t)
			if err := w.c.DeleteStatefulSet(orphan); err != nil {
				t.Fatal(err)
			}
			w.sync(t)
			for _, k := range w.keys {
				ps, err := w.src.Reconcile(w.ctx, w.sched, k)
				if !errors.Is(err, vsched.ErrNotReady) || ps != nil {
					t.Errorf("Schedule(%s) while the StatefulSet is deleted = [%s], %v; want no placements and ErrNotReady", k.Name, placed(ps), err)
				}
			}
			w.lost(t, "while deleted")
			rep, err := w.auto.Reconcile(w.ctx)
			if err != nil || rep.Action != autoscaler.ActionHold || rep.Written {
				t.Errorf("autoscaler while the StatefulSet is deleted: %s written=%v (%s), %v; want a hold", rep.Action, rep.Written, rep.Reason, err)
			}
			if w.c.StatefulSetExists() {
				t.Fatal("the autoscaler created the StatefulSet")
			}

			if err := w.c.CreateStatefulSet(0); err != nil {
				t.Fatal(err)
			}
			if tc.restart {
				w.startController(t)
			}
			w.sync(t)
			for _, k := range w.keys {
				if ps, err := w.src.Reconcile(w.ctx, w.sched, k); !errors.Is(err, vsched.ErrNotReady) || ps != nil {
					t.Errorf("Schedule(%s) with the StatefulSet back at 0 replicas = [%s], %v; want no placements and ErrNotReady until it is sized back", k.Name, placed(ps), err)
				}
			}
			w.lost(t, "recreated at 0 replicas")
			rep, err = w.auto.Reconcile(w.ctx)
			if err != nil || rep.Action != autoscaler.ActionScaleUp || !rep.Written || rep.Target != 3 {
				t.Errorf("autoscaler after the StatefulSet came back: %s to %d written=%v (%s), %v; want a scale-up to 3, the pods the sources hold", rep.Action, rep.Target, rep.Written, rep.Reason, err)
			}
			if _, err := w.c.Settle(); err != nil {
				t.Fatal(err)
			}
			w.sync(t)
			for _, k := range w.keys {
				ps, err := w.src.Reconcile(w.ctx, w.sched, k)
				if err != nil {
					t.Errorf("Schedule(%s) once the StatefulSet is back: %v", k.Name, err)
				}
				if diff := cmp.Diff(w.before[k], ps); diff != "" {
					t.Errorf("Schedule(%s) once the StatefulSet is back moved vreplicas (-before +after):\n%s", k.Name, diff)
				}
			}
			w.lost(t, "after it came back")
		})
	}
}

// placed renders placements as "pod:n pod:n", nil as "nil".
func placed(ps []vsched.Placement) string {
	if ps == nil {
		return "nil"
	}
	out := ""
	for i, p := range ps {
		if i > 0 {
			out += " "
		}
		out += fmt.Sprintf("%s:%d", p.PodName, p.VReplicas)
	}
	return out
}

// A StatefulSet missing when the scheduler starts: Schedule answers the
// error that names it, which matches ErrNotReady and ErrStatefulSetMissing,
// and StatefulSetMissing says the same for a probe.
func TestStatefulSetMissingAtStart(t *testing.T) {
	ctx, cancel := context.WithCancel(logging.WithLogger(context.Background(), zap.NewNop().Sugar()))
	c, err := memcluster.New(ctx, memcluster.Options{Zones: []string{"a"}, Replicas: 1, Capacity: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); c.Shutdown() })
	if err := c.DeleteStatefulSet(false); err != nil {
		t.Fatal(err)
	}
	w := &recreateWorld{ctx: ctx, c: c, src: memcluster.NewSources()}
	w.startController(t)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: "ns", Name: "src"}
	v, err := w.src.Create(key, 2)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := w.sched.Schedule(ctx, v)
	var missing *vsched.MissingError
	const why = "StatefulSet vsched/adapter not found"
	if ps != nil || !errors.As(err, &missing) || missing.Why != why || !errors.Is(err, vsched.ErrNotReady) || !errors.Is(err, vsched.ErrStatefulSetMissing) {
		t.Errorf("Schedule with no StatefulSet = [%s], %v; want no placements and a MissingError %q", placed(ps), err, why)
	}
	if got := w.sched.StatefulSetMissing(); got != why {
		t.Errorf("StatefulSetMissing() = %q; want %q", got, why)
	}
	if got := w.sched.NotReady(); got != why {
		t.Errorf("NotReady() = %q; want %q", got, why)
	}
}
