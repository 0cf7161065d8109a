package podfitsresources

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
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
	cases := []struct {
		name    string
		cluster func() *frameworktest.Cluster
		src     *frameworktest.VPod
		ordinal int32
		want    plugintest.Outcome
	}{
		{
			name:    "empty pod",
			cluster: func() *frameworktest.Cluster { return frameworktest.NewCluster(3).Node("n0", "").Pods("n0") },
			src:     plugintest.Source(0),
			want:    plugintest.Pass,
		},
		{
			name:    "one free slot left by other sources",
			cluster: func() *frameworktest.Cluster { return frameworktest.NewCluster(3).Node("n0", "").Pods("n0").Use(0, 2) },
			src:     plugintest.Source(0),
			want:    plugintest.Pass,
		},
		{
			name:    "one free slot left by the source itself",
			cluster: func() *frameworktest.Cluster { return frameworktest.NewCluster(3).Node("n0", "").Pods("n0") },
			src:     plugintest.Source(0, frameworktest.P(0, 2)),
			want:    plugintest.Pass,
		},
		{
			name:    "full with other sources",
			cluster: func() *frameworktest.Cluster { return frameworktest.NewCluster(3).Node("n0", "").Pods("n0").Use(0, 3) },
			src:     plugintest.Source(0),
			want:    full("pod adapter-0 is full (3/3 vreplicas)"),
		},
		{
			name: "full with the source and others",
			cluster: func() *frameworktest.Cluster {
				return frameworktest.NewCluster(3).Node("n0", "").Pods("n0", "n0").Use(1, 1)
			},
			src:     plugintest.Source(0, frameworktest.P(1, 2)),
			ordinal: 1,
			want:    full("pod adapter-1 is full (3/3 vreplicas)"),
		},
		{
			// Capacity was lowered under existing placements.
			name:    "over capacity",
			cluster: func() *frameworktest.Cluster { return frameworktest.NewCluster(3).Node("n0", "").Pods("n0").Use(0, 5) },
			src:     plugintest.Source(0),
			want:    full("pod adapter-0 is full (5/3 vreplicas)"),
		},
		{
			name: "pod does not exist",
			cluster: func() *frameworktest.Cluster {
				return frameworktest.NewCluster(3).Node("n0", "").Pods("n0", "n0").Remove(1)
			},
			src:     plugintest.Source(0),
			ordinal: 1,
			want:    full("pod with ordinal 1 does not exist"),
		},
		{
			name:    "ordinal beyond the StatefulSet",
			cluster: func() *frameworktest.Cluster { return frameworktest.NewCluster(3).Node("n0", "").Pods("n0") },
			src:     plugintest.Source(0),
			ordinal: 4,
			want:    full("pod with ordinal 4 does not exist"),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := plugintest.Decide(t, tc.cluster(), tc.src)
			got := plugintest.Filter(New(), d, tc.ordinal)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Filter(%d) (-want +got):\n%s", tc.ordinal, diff)
			}
		})
	}
}

func TestPromises(t *testing.T) {
	p := New()
	if p.Name() != Name || !p.EnforcesCapacity() || !p.EquivalentWithinClass() {
		t.Errorf("Name %q, EnforcesCapacity %v, EquivalentWithinClass %v; want %q, true, true",
			p.Name(), p.EnforcesCapacity(), p.EquivalentWithinClass(), Name)
	}
}

func TestRegistration(t *testing.T) {
	reg := Spec.Registration()
	if reg.Name != Name || reg.Kinds != framework.KindFilter || reg.Modes != framework.ForPlace || reg.TakesArgs {
		t.Errorf("registration = %+v; want a Place filter named %s without args", reg, Name)
	}
	path := field.NewPath("predicates").Index(0).Child("Args")
	for _, raw := range []string{"", "{}", "null"} {
		args, errs := reg.DecodeArgs([]byte(raw), path)
		if len(errs) > 0 {
			t.Fatalf("DecodeArgs(%q): %v", raw, errs)
		}
		pl, err := reg.New(context.Background(), args)
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		if _, ok := pl.(framework.FilterPlugin); !ok {
			t.Errorf("New returned %T, not a FilterPlugin", pl)
		}
	}
	_, errs := reg.DecodeArgs([]byte(`{"Capacity": 4}`), path)
	want := []string{`predicates[0].Args: Invalid value: "{\"Capacity\": 4}": json: unknown field "Capacity"`}
	if diff := cmp.Diff(want, plugintest.Errors(errs)); diff != "" {
		t.Errorf("DecodeArgs with an unknown field (-want +got):\n%s", diff)
	}
}

// TestProfile places vreplicas with PodFitsResources alone: with no score
// plugin every feasible pod ties, so the fullest pod with room wins (best
// fit), then the lowest ordinal.
func TestProfile(t *testing.T) {
	newCluster := func() *frameworktest.Cluster {
		// Pod 1 has one slot taken by another source.
		return frameworktest.NewCluster(2).Node("n0", "za").Node("n1", "zb").Pods("n0", "n1", "n0").Use(1, 1)
	}
	prof, err := framework.NewProfile(framework.Place, []framework.FilterPlugin{New()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !prof.Grouped() {
		t.Error("profile is not evaluated by class; PodFitsResources should allow it")
	}
	cases := []struct {
		name       string
		src        *frameworktest.VPod
		n          int32
		wantResult framework.Result
		want       []vsched.Placement
	}{
		{
			// Pod 1 (1 free) fills first, then pod 0 and pod 2 (2 free
			// each) in ordinal order.
			name:       "fills the fullest pods first",
			src:        plugintest.Source(0),
			n:          4,
			wantResult: framework.Result{Changed: 4},
			want: []vsched.Placement{
				plugintest.At(0, 2, "n0", "za"),
				plugintest.At(1, 1, "n1", "zb"),
				plugintest.At(2, 1, "n0", "za"),
			},
		},
		{
			// Pods 1 and 2 have 1 free each, pod 0 has 2: pod 1 (the
			// lower) then pod 2 fill before pod 0 is used.
			name:       "grows on top of existing placements",
			src:        plugintest.Source(0, frameworktest.P(2, 1)),
			n:          2,
			wantResult: framework.Result{Changed: 2},
			want: []vsched.Placement{
				plugintest.At(1, 1, "n1", "zb"),
				plugintest.At(2, 2, "n0", "za"),
			},
		},
		{
			// 2 + 1 + 2 free slots; the sixth vreplica stays pending.
			name: "stops when every pod is full",
			src:  plugintest.Source(0),
			n:    6,
			wantResult: framework.Result{Changed: 5, Reason: `3 candidate pod(s): PodFitsResources rejected 3 pod(s) ` +
				`(e.g. "pod adapter-0 is full (2/2 vreplicas)")`},
			want: []vsched.Placement{
				plugintest.At(0, 2, "n0", "za"),
				plugintest.At(1, 1, "n1", "zb"),
				plugintest.At(2, 2, "n0", "za"),
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, got := plugintest.Run(t, newCluster, tc.src, prof, tc.n)
			if diff := cmp.Diff(tc.wantResult, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("placements (-want +got):\n%s", diff)
			}
		})
	}
}
