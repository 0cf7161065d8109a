package memcluster_test

import (
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/vsched/vsched/memcluster"
)

// TestSyncWaitsForLateHandlersToSync: a registration's HasSynced turns
// true a step after its handler has seen the last initial object, and a
// scheduler's readiness asks it right after Sync. Sync used to return in
// between, which a loaded machine hits about once in a thousand (a
// scheduler then answered "informers have not synced"). The loop makes
// that window likely to be hit at least once under load.
func TestSyncWaitsForLateHandlersToSync(t *testing.T) {
	c, ctx := started(t, memcluster.Options{Replicas: 3})
	f := c.InformerFactory()
	infs := map[string]cache.SharedIndexInformer{
		"pods":         f.Core().V1().Pods().Informer(),
		"nodes":        f.Core().V1().Nodes().Informer(),
		"statefulsets": f.Apps().V1().StatefulSets().Informer(),
	}
	const rounds = 700
	unsynced := map[string]int{}
	for i := 0; i < rounds; i++ {
		regs := map[string]cache.ResourceEventHandlerRegistration{}
		for name, inf := range infs {
			reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{})
			if err != nil {
				t.Fatal(err)
			}
			regs[name] = reg
		}
		if err := c.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		for name, reg := range regs {
			if !reg.HasSynced() {
				unsynced[name]++
			}
			if err := infs[name].RemoveEventHandler(reg); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(unsynced) != 0 {
		t.Fatalf("registrations not synced right after Sync, per informer, in %d rounds: %v", rounds, unsynced)
	}
}
