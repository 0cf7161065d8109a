package podfitsresources

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins/internal/plugintest"
)

func TestFilter(t *testing.T) {
	full := func(msg string) plugintest.Outcome {
		return plugintest.Outcome{Code: "UnschedulableAndUnresolvable", Message: msg}
	}
	cases := []plugintest.Filtering{
		{
			Name:    "empty pod",
			Plugin:  New(),
			Cluster: frameworktest.NewCluster(3).Node("n0", "").Pods("n0"),
			Src:     plugintest.Source(0),
			Want:    plugintest.Pass,
		},
		{
			Name:    "one free slot left by other sources",
			Plugin:  New(),
			Cluster: frameworktest.NewCluster(3).Node("n0", "").Pods("n0").Use(0, 2),
			Src:     plugintest.Source(0),
			Want:    plugintest.Pass,
		},
		{
			Name:    "one free slot left by the source itself",
			Plugin:  New(),
			Cluster: frameworktest.NewCluster(3).Node("n0", "").Pods("n0"),
			Src:     plugintest.Source(0, frameworktest.P(0, 2)),
			Want:    plugintest.Pass,
		},
		{
			Name:    "full with other sources",
			Plugin:  New(),
			Cluster: frameworktest.NewCluster(3).Node("n0", "").Pods("n0").Use(0, 3),
			Src:     plugintest.Source(0),
			Want:    full("pod adapter-0 is full (3/3 vreplicas)"),
		},
		{
			Name:    "full with the source and others",
			Plugin:  New(),
			Cluster: frameworktest.NewCluster(3).Node("n0", "").Pods("n0", "n0").Use(1, 1),
			Src:     plugintest.Source(0, frameworktest.P(1, 2)),
			Ordinal: 1,
			Want:    full("pod adapter-1 is full (3/3 vreplicas)"),
		},
		{
			// Capacity was lowered under existing placements.
			Name:    "over capacity",
			Plugin:  New(),
			Cluster: frameworktest.NewCluster(3).Node("n0", "").Pods("n0").Use(0, 5),
			Src:     plugintest.Source(0),
			Want:    full("pod adapter-0 is full (5/3 vreplicas)"),
		},
		{
			Name:    "pod does not exist",
			Plugin:  New(),
			Cluster: frameworktest.NewCluster(3).Node("n0", "").Pods("n0", "n0").Remove(1),
			Src:     plugintest.Source(0),
			Ordinal: 1,
			Want:    full("pod with ordinal 1 does not exist"),
		},
		{
			Name:    "ordinal beyond the StatefulSet",
			Plugin:  New(),
			Cluster: frameworktest.NewCluster(3).Node("n0", "").Pods("n0"),
			Src:     plugintest.Source(0),
			Ordinal: 4,
			Want:    full("pod with ordinal 4 does not exist"),
		},
	}
	plugintest.ExpectFilters(t, cases)
}

func TestPromises(t *testing.T) {
	p := New()
	if p.Name() != Name || !p.EnforcesCapacity() || !p.EquivalentWithinClass() {
		t.Errorf("Name %q, EnforcesCapacity %v, EquivalentWithinClass %v; want %q, true, true",
			p.Name(), p.EnforcesCapacity(), p.EquivalentWithinClass(), Name)
	}
}

func TestRegistration(t *testing.T) {
	plugintest.ExpectRegistration(t, Spec.Registration(), plugintest.Registered{Name: Name, Kinds: framework.KindFilter, Modes: framework.ForPlace})
	plugintest.ExpectNoArgs(t, Spec, field.NewPath("predicates").Index(0).Child("Args"), `{"Capacity": 4}`,
		`predicates[0].Args: Invalid value: "{\"Capacity\": 4}": json: unknown field "Capacity"`,
		func(t *testing.T, pl framework.Plugin) {
			if _, ok := pl.(framework.FilterPlugin); !ok {
				t.Errorf("New returned %T, not a FilterPlugin", pl)
			}
		})
}

// TestProfile places vreplicas with PodFitsResources alone: with no score
// plugin every feasible pod ties, so the fullest pod with room wins (best
// fit), then the lowest ordinal.
func TestProfile(t *testing.T) {
	newCluster := func() *frameworktest.Cluster {
		// Pod 1 has one slot taken by another source.
		return frameworktest.NewCluster(2).Node("n0", "za").Node("n1", "zb").Pods("n0", "n1", "n0").Use(1, 1)
	}
	prof := plugintest.GroupedProfile(t, []framework.FilterPlugin{New()}, nil)
	cases := []plugintest.Placing{
		{
			// Pod 1 (1 free) fills first, then pod 0 and pod 2 (2 free
			// each) in ordinal order.
			Name:       "fills the fullest pods first",
			Cluster:    newCluster,
			Src:        plugintest.Source(0),
			N:          4,
			WantResult: framework.Result{Changed: 4},
			Want: []vsched.Placement{
				plugintest.At(0, 2, "n0", "za"),
				plugintest.At(1, 1, "n1", "zb"),
				plugintest.At(2, 1, "n0", "za"),
			},
		},
		{
			// Pods 1 and 2 have 1 free each, pod 0 has 2: pod 1 (the
			// lower) then pod 2 fill before pod 0 is used.
			Name:       "grows on top of existing placements",
			Cluster:    newCluster,
			Src:        plugintest.Source(0, frameworktest.P(2, 1)),
			N:          2,
			WantResult: framework.Result{Changed: 2},
			Want: []vsched.Placement{
				plugintest.At(1, 1, "n1", "zb"),
				plugintest.At(2, 2, "n0", "za"),
			},
		},
		{
			// 2 + 1 + 2 free slots; the sixth vreplica stays pending.
			Name:    "stops when every pod is full",
			Cluster: newCluster,
			Src:     plugintest.Source(0),
			N:       6,
			WantResult: framework.Result{Changed: 5, Reason: `3 candidate pod(s): PodFitsResources rejected 3 pod(s) ` +
				`(e.g. "pod adapter-0 is full (2/2 vreplicas)")`},
			Want: []vsched.Placement{
				plugintest.At(0, 2, "n0", "za"),
				plugintest.At(1, 1, "n1", "zb"),
				plugintest.At(2, 2, "n0", "za"),
			},
		},
	}
	plugintest.ExpectPlacing(t, prof, cases)
}
