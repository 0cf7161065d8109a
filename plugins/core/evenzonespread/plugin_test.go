package evenzonespread

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins/core/lowestordinalpriority"
	"github.com/vsched/vsched/plugins/core/podfitsresources"
	"github.com/vsched/vsched/plugins/internal/plugintest"
)

func skew(n int32) *int32 { return &n }

func mustNew(t *testing.T, maxSkew int32) *Plugin {
	t.Helper()
	p, err := New(context.Background(), &Args{MaxSkew: skew(maxSkew)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// zones returns nodes na, nb, nc in zone-a, zone-b, zone-c and no pods.
func zones() *frameworktest.Cluster {
	return frameworktest.NewCluster(10).Node("na", "zone-a").Node("nb", "zone-b").Node("nc", "zone-c")
}

// threeZones has one pod per zone: adapter-0 in a, -1 in b, -2 in c.
func threeZones() *frameworktest.Cluster { return zones().Pods("na", "nb", "nc") }

func TestFilter(t *testing.T) {
	reject := func(msg string) plugintest.Outcome {
		return plugintest.Outcome{Code: "Unschedulable", Message: msg}
	}
	p := frameworktest.P
	cases := []struct {
		name    string
		cluster *frameworktest.Cluster
		src     *frameworktest.VPod
		maxSkew int32
		ordinal int32
		want    plugintest.Outcome
	}{
		{
			name:    "first vreplica",
			cluster: threeZones(),
			src:     plugintest.Source(0),
			maxSkew: 1,
			want:    plugintest.Pass,
		},
		{
			// 1 0 0 -> 2 0 0: skew 2
			name:    "second vreplica in the same zone",
			cluster: threeZones(),
			src:     plugintest.Source(0, p(0, 1)),
			maxSkew: 1,
			want:    reject("zone zone-a holds 1 of the source's vreplicas; one more would make the skew across zones 2, above MaxSkew 1 (fewest: 0, in zone-b, zone-c)"),
		},
		{
			// 1 0 0 -> 1 1 0: skew 1
			name:    "second vreplica in another zone",
			cluster: threeZones(),
			src:     plugintest.Source(0, p(0, 1)),
			maxSkew: 1,
			ordinal: 1,
			want:    plugintest.Pass,
		},
		{
			// 1 0 0 -> 2 0 0: skew 2, within MaxSkew 2
			name:    "larger MaxSkew",
			cluster: threeZones(),
			src:     plugintest.Source(0, p(0, 1)),
			maxSkew: 2,
			want:    plugintest.Pass,
		},
		{
			// Pods 0 and 1 are bound, pod 2 is not yet: zone-c has a
			// schedulable node and counts with 0. 1 1 (0) -> 2 1 (0).
			name:    "a scale-up in flight counts the zone still to get pods",
			cluster: zones().Pods("na", "nb", ""),
			src:     plugintest.Source(0, p(0, 1), p(1, 1)),
			maxSkew: 1,
			want:    reject("zone zone-a holds 1 of the source's vreplicas; one more would make the skew across zones 2, above MaxSkew 1 (fewest: 0, in zone-c (no pod yet, a scale-up is in flight))"),
		},
		{
			// Pod 2 was deleted and is being recreated: the same.
			name:    "a pod being recreated counts its possible zones",
			cluster: zones().Pods("na", "nb", "nb").Remove(2),
			src:     plugintest.Source(0, p(0, 1), p(1, 1)),
			maxSkew: 1,
			want:    reject("zone zone-a holds 1 of the source's vreplicas; one more would make the skew across zones 2, above MaxSkew 1 (fewest: 0, in zone-c (no pod yet, a scale-up is in flight))"),
		},
		{
			// Every pod is bound: zone-c has a node but no pod, so it
			// does not count. 1 1 -> 2 1.
			name:    "a zone without pods does not count once every pod is bound",
			cluster: zones().Pods("na", "nb"),
			src:     plugintest.Source(0, p(0, 1), p(1, 1)),
			maxSkew: 1,
			want:    plugintest.Pass,
		},
		{
			// A scale-up is in flight, but zone-c's only node is
			// cordoned (or NotReady): its pods cannot go there.
			name:    "a zone without a schedulable node never counts",
			cluster: zones().Pods("na", "nb", "").Cordon("nc"),
			src:     plugintest.Source(0, p(0, 1), p(1, 1)),
			maxSkew: 1,
			want:    plugintest.Pass,
		},
		{
			// zone-c's node is cordoned and its pod not a candidate:
			// 1 1 (1) -> 2 1, the failed zone is left out.
			name:    "a failed zone is left out",
			cluster: threeZones().Cordon("nc"),
			src:     plugintest.Source(0, p(0, 1), p(1, 1), p(2, 1)),
			maxSkew: 1,
			want:    plugintest.Pass,
		},
		{
			// 5 0 0 -> 5 1 0: zone-b holds the fewest; the skew does not
			// widen, so the source can even out.
			name:    "already skewed, least loaded zone",
			cluster: threeZones(),
			src:     plugintest.Source(0, p(0, 5)),
			maxSkew: 1,
			ordinal: 1,
			want:    plugintest.Pass,
		},
		{
			// 5 2 0 -> 5 3 0: zone-b is not the least loaded.
			name:    "already skewed, zone in between",
			cluster: threeZones(),
			src:     plugintest.Source(0, p(0, 5), p(1, 2)),
			maxSkew: 1,
			ordinal: 1,
			want:    reject("zone zone-b holds 2 of the source's vreplicas; one more would make the skew across zones 5, above MaxSkew 1 (fewest: 0, in zone-c)"),
		},
		{
			name:    "pod on a node without a zone label",
			cluster: threeZones().Node("nx", "").Pods("nx"),
			src:     plugintest.Source(0),
			maxSkew: 1,
			ordinal: 3,
			want:    reject(`pod adapter-3 is on node "nx", which has no zone label; the source is spread over 3 zones`),
		},
		{
			name:    "no zones at all",
			cluster: frameworktest.NewCluster(10).Node("n0", "").Pods("n0", "n0"),
			src:     plugintest.Source(0, p(0, 5)),
			maxSkew: 1,
			want:    plugintest.Pass,
		},
		{
			name:    "unknown pod",
			cluster: threeZones(),
			src:     plugintest.Source(0),
			maxSkew: 1,
			ordinal: 9,
			want:    reject("pod with ordinal 9 does not exist"),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := plugintest.Decide(t, tc.cluster, tc.src)
			got := plugintest.Filter(mustNew(t, tc.maxSkew), d, tc.ordinal)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Filter(%d) (-want +got):\n%s", tc.ordinal, diff)
			}
		})
	}
}

// packProfile is PodFitsResources and EvenZoneSpread (MaxSkew 1) with
// LowestOrdinalPriority: the spread is the only thing keeping vreplicas off
// the lowest ordinals.
func packProfile(t *testing.T) *framework.Profile {
	t.Helper()
	prof, err := framework.NewProfile(framework.Place,
		[]framework.FilterPlugin{podfitsresources.New(), mustNew(t, 1)},
		[]framework.WeightedScore{{Plugin: lowestordinalpriority.New(), Weight: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return prof
}

func TestProfile(t *testing.T) {
	prof := packProfile(t)
	if !prof.Grouped() {
		t.Error("profile is not evaluated by class")
	}
	if !prof.SpreadsOverZones() {
		t.Error("profile with EvenZoneSpread does not report SpreadsOverZones")
	}
	cases := []struct {
		name       string
		cluster    func() *frameworktest.Cluster
		src        *frameworktest.VPod
		n          int32
		wantResult framework.Result
		want       []vsched.Placement
	}{
		{
			// Lowest ordinal first, but never two zones apart:
			// pods 0,3 in a; 1,4 in b; 2 in c.
			name:       "lowest ordinals within the spread",
			cluster:    func() *frameworktest.Cluster { return threeZones().Pods("na", "nb") },
			src:        plugintest.Source(0),
			n:          5,
			wantResult: framework.Result{Changed: 5},
			want: []vsched.Placement{
				plugintest.At(0, 2, "na", "zone-a"),
				plugintest.At(1, 2, "nb", "zone-b"),
				plugintest.At(2, 1, "nc", "zone-c"),
			},
		},
		{
			// The StatefulSet grows from 0 to 3 and only pod 0 is bound:
			// one vreplica, the rest waits for pods in zone-b and zone-c.
			name:    "scale-up in flight: waits for the other zones",
			cluster: func() *frameworktest.Cluster { return zones().Pods("na", "", "") },
			src:     plugintest.Source(0),
			n:       4,
			wantResult: framework.Result{Changed: 1, Reason: `bound by EvenZoneSpread, which rejected 1 pod(s) that have room; 1 candidate pod(s): ` +
				`EvenZoneSpread rejected 1 pod(s) (e.g. "zone zone-a holds 1 of the source's vreplicas; ` +
				`one more would make the skew across zones 2, above MaxSkew 1 ` +
				`(fewest: 0, in zone-b (no pod yet, a scale-up is in flight), zone-c (no pod yet, a scale-up is in flight))")`},
			want: []vsched.Placement{plugintest.At(0, 1, "na", "zone-a")},
		},
		{
			// zone-a's pod is full: 0 0 0 -> 0 1 1, then zone-b and
			// zone-c would be 2 ahead of zone-a.
			name:    "a full zone caps the others",
			cluster: func() *frameworktest.Cluster { return threeZones().Use(0, 10) },
			src:     plugintest.Source(0),
			n:       4,
			wantResult: framework.Result{Changed: 2, Reason: `bound by EvenZoneSpread, which rejected 2 pod(s) that have room; 3 candidate pod(s): ` +
				`PodFitsResources rejected 1 pod(s) (e.g. "pod adapter-0 is full (10/10 vreplicas)"); ` +
				`EvenZoneSpread rejected 2 pod(s) (e.g. "zone zone-b holds 1 of the source's vreplicas; ` +
				`one more would make the skew across zones 2, above MaxSkew 1 (fewest: 0, in zone-a (full: it bounds the source))")`},
			want: []vsched.Placement{
				plugintest.At(1, 1, "nb", "zone-b"),
				plugintest.At(2, 1, "nc", "zone-c"),
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, got := plugintest.Run(t, tc.cluster, tc.src, prof, tc.n)
			if diff := cmp.Diff(tc.wantResult, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("placements (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeArgs(t *testing.T) {
	reg := Spec.Registration()
	if reg.Name != Name || reg.Kinds != framework.KindFilter || reg.Modes != framework.ForPlace || !reg.TakesArgs {
		t.Errorf("registration = %+v; want a Place filter plugin named %s taking args", reg, Name)
	}
	path := field.NewPath("predicates").Index(1).Child("Args")
	cases := []struct {
		name     string
		raw      string
		want     *Args
		wantErrs []string
	}{
		{name: "no args", raw: "", want: &Args{MaxSkew: skew(1)}},
		{name: "set", raw: `{"MaxSkew": 2}`, want: &Args{MaxSkew: skew(2)}},
		{
			name:     "zero",
			raw:      `{"MaxSkew": 0}`,
			wantErrs: []string{"predicates[1].Args.MaxSkew: Invalid value: 0: must be at least 1"},
		},
		{
			name:     "unknown field",
			raw:      `{"Skew": 2}`,
			wantErrs: []string{`predicates[1].Args: Invalid value: "{\"Skew\": 2}": json: unknown field "Skew"`},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args, errs := reg.DecodeArgs([]byte(tc.raw), path)
			if diff := cmp.Diff(tc.wantErrs, plugintest.Errors(errs)); diff != "" {
				t.Fatalf("errors (-want +got):\n%s", diff)
			}
			if len(errs) > 0 {
				return
			}
			if diff := cmp.Diff(tc.want, args); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			pl, err := reg.New(context.Background(), args)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if got := pl.(*Plugin).maxSkew; got != *tc.want.MaxSkew {
				t.Errorf("plugin MaxSkew = %d, want %d", got, *tc.want.MaxSkew)
			}
		})
	}
}

func TestNew(t *testing.T) {
	p, err := New(context.Background(), nil)
	if err != nil {
		t.Fatalf("New(nil): %v", err)
	}
	if p.maxSkew != 1 || p.Name() != Name || !p.EquivalentWithinClass() || !p.SpreadsOverZones() {
		t.Errorf("New(nil) = %+v, want MaxSkew 1, equivalent within class, spreading over zones", p)
	}
	_, err = New(context.Background(), &Args{MaxSkew: skew(0)})
	if want := "EvenZoneSpread: MaxSkew: Invalid value: 0: must be at least 1"; err == nil || err.Error() != want {
		t.Errorf("New(MaxSkew 0) = %v, want %q", err, want)
	}
}
