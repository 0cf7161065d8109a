package nomaxresourcecount

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins/core/evenpodspread"
	"github.com/vsched/vsched/plugins/core/podfitsresources"
	"github.com/vsched/vsched/plugins/internal/plugintest"
)

func mustNew(t *testing.T, numPartitions *int32) *Plugin {
	return plugintest.Build(t, New, &Args{NumPartitions: numPartitions})
}

// fourPods is four empty pods of capacity 10 on nodes n0, n1, n0, n1.
func fourPods() *frameworktest.Cluster {
	return frameworktest.NewCluster(10).Node("n0", "za").Node("n1", "zb").Pods("n0", "n1", "n0", "n1")
}

func TestFilter(t *testing.T) {
	reject := func(msg string) plugintest.Outcome {
		return plugintest.Outcome{Code: "UnschedulableAndUnresolvable", Message: msg}
	}
	p := frameworktest.P
	cases := []plugintest.Filtering{
		{
			Name:    "below the limit",
			Cluster: fourPods(),
			Plugin:  mustNew(t, ptr.To[int32](3)),
			Src:     plugintest.Source(0, p(0, 1), p(1, 1)),
			Ordinal: 2,
			Want:    plugintest.Pass,
		},
		{
			Name:    "at the limit from NumPartitions",
			Cluster: fourPods(),
			Plugin:  mustNew(t, ptr.To[int32](2)),
			Src:     plugintest.Source(0, p(0, 1), p(1, 1)),
			Ordinal: 2,
			Want:    reject("the source already spans 2 pod(s), the limit set by NumPartitions (2); only pods holding it may take more"),
		},
		{
			Name:    "at the limit, pod holding the source",
			Cluster: fourPods(),
			Plugin:  mustNew(t, ptr.To[int32](2)),
			Src:     plugintest.Source(0, p(0, 1), p(1, 1)),
			Ordinal: 1,
			Want:    plugintest.Pass,
		},
		{
			Name:    "source's own count wins over a larger NumPartitions",
			Cluster: fourPods(),
			Plugin:  mustNew(t, ptr.To[int32](10)),
			Src:     plugintest.Source(2, p(0, 1), p(1, 1)),
			Ordinal: 2,
			Want:    reject("the source already spans 2 pod(s), the limit set by the source's resource count (2); only pods holding it may take more"),
		},
		{
			Name:    "source's own count wins over a smaller NumPartitions",
			Cluster: fourPods(),
			Plugin:  mustNew(t, ptr.To[int32](1)),
			Src:     plugintest.Source(3, p(0, 1), p(1, 1)),
			Ordinal: 2,
			Want:    plugintest.Pass,
		},
		{
			Name:    "source's own count without NumPartitions",
			Cluster: fourPods(),
			Plugin:  mustNew(t, nil),
			Src:     plugintest.Source(1, p(3, 4)),
			Ordinal: 0,
			Want:    reject("the source already spans 1 pod(s), the limit set by the source's resource count (1); only pods holding it may take more"),
		},
		{
			// Partitions were removed after the source spread out.
			Name:    "already beyond the limit",
			Cluster: fourPods(),
			Plugin:  mustNew(t, ptr.To[int32](2)),
			Src:     plugintest.Source(0, p(0, 1), p(1, 1), p(2, 1)),
			Ordinal: 3,
			Want:    reject("the source already spans 3 pod(s), the limit set by NumPartitions (2); only pods holding it may take more"),
		},
		{
			Name:    "no limit",
			Cluster: fourPods(),
			Plugin:  mustNew(t, nil),
			Src:     plugintest.Source(0, p(0, 1), p(1, 1), p(2, 1)),
			Ordinal: 3,
			Want:    plugintest.Pass,
		},
	}
	plugintest.ExpectFilters(t, cases)
}

func TestPrepare(t *testing.T) {
	cases := []struct {
		name          string
		numPartitions *int32
		resources     int32
		want          framework.Code
	}{
		{name: "NumPartitions only", numPartitions: ptr.To[int32](4), want: framework.Success},
		{name: "source's count only", resources: 4, want: framework.Success},
		{name: "both", numPartitions: ptr.To[int32](4), resources: 2, want: framework.Success},
		{name: "neither", want: framework.Skip},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := plugintest.Decide(t, fourPods(), plugintest.Source(tc.resources))
			if got := mustNew(t, tc.numPartitions).Prepare(context.Background(), d).Code(); got != tc.want {
				t.Errorf("Prepare = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDecodeArgs(t *testing.T) {
	plugintest.ExpectRegistration(t, Spec.Registration(), plugintest.Registered{
		Name: Name, Kinds: framework.KindFilter, Modes: framework.ForPlace, TakesArgs: true,
	})
	path := field.NewPath("predicates").Index(1).Child("Args")
	cases := []frameworktest.ArgsCase[Args]{
		{Name: "no args", Raw: "", Want: &Args{}},
		{Name: "empty object", Raw: "{}", Want: &Args{}},
		{Name: "set", Raw: `{"NumPartitions": 100}`, Want: &Args{NumPartitions: ptr.To[int32](100)}},
		{
			Name:     "zero",
			Raw:      `{"NumPartitions": 0}`,
			WantErrs: []string{"predicates[1].Args.NumPartitions: Invalid value: 0: must be at least 1 when set"},
		},
		{
			Name:     "negative",
			Raw:      `{"NumPartitions": -5}`,
			WantErrs: []string{"predicates[1].Args.NumPartitions: Invalid value: -5: must be at least 1 when set"},
		},
		{
			Name:     "unknown field",
			Raw:      `{"Partitions": 3}`,
			WantErrs: []string{`predicates[1].Args: Invalid value: "{\"Partitions\": 3}": json: unknown field "Partitions"`},
		},
	}
	frameworktest.ExpectDecodeArgs(t, Spec, path, cases, func(t *testing.T, pl framework.Plugin, want *Args) {
		limit := int32(0)
		if want.NumPartitions != nil {
			limit = *want.NumPartitions
		}
		if got := pl.(*Plugin).numPartitions; got != limit {
			t.Errorf("plugin NumPartitions = %d, want %d", got, limit)
		}
	})
}

func TestNew(t *testing.T) {
	p := plugintest.Build(t, New, nil)
	if p.numPartitions != 0 || p.Name() != Name || !p.EquivalentWithinClass() {
		t.Errorf("New(nil) = %+v (name %q, equivalent %v), want no limit", p, p.Name(), p.EquivalentWithinClass())
	}
	plugintest.ExpectRejected(t, Spec, New, &Args{NumPartitions: ptr.To[int32](0)}, "NoMaxResourceCount: NumPartitions: Invalid value: 0: must be at least 1 when set")
	plugintest.ExpectRejected(t, Spec, New, &Args{NumPartitions: ptr.To[int32](-1)}, "NoMaxResourceCount: NumPartitions: Invalid value: -1: must be at least 1 when set")
}

func TestProfile(t *testing.T) {
	spread := plugintest.Build(t, evenpodspread.New, nil)
	profile := func(numPartitions *int32) *framework.Profile {
		return plugintest.GroupedProfile(t,
			[]framework.FilterPlugin{podfitsresources.New(), mustNew(t, numPartitions)},
			[]framework.WeightedScore{{Plugin: spread, Weight: 1}})
	}
	// Capacity 2, four pods on nodes n0, n1, n0, n1.
	newCluster := func() *frameworktest.Cluster {
		return frameworktest.NewCluster(2).Node("n0", "za").Node("n1", "zb").Pods("n0", "n1", "n0", "n1")
	}
	cases := []struct {
		numPartitions *int32
		plugintest.Placing
	}{
		{
			numPartitions: ptr.To[int32](2),
			Placing: plugintest.Placing{
				// EvenPodSpread alternates pods 0 and 1, then both are full
				// and pods 2 and 3 would be a third pod.
				Name:    "NumPartitions caps the pods",
				Cluster: newCluster,
				Src:     plugintest.Source(0),
				N:       5,
				WantResult: framework.Result{Changed: 4, Reason: `bound by NoMaxResourceCount, which rejected 2 pod(s) that have room; 4 candidate pod(s): ` +
					`PodFitsResources rejected 2 pod(s) (e.g. "pod adapter-0 is full (2/2 vreplicas)"); ` +
					`NoMaxResourceCount rejected 2 pod(s) (e.g. "the source already spans 2 pod(s), ` +
					`the limit set by NumPartitions (2); only pods holding it may take more")`},
				Want: []vsched.Placement{
					plugintest.At(0, 2, "n0", "za"),
					plugintest.At(1, 2, "n1", "zb"),
				},
			},
		},
		{
			numPartitions: ptr.To[int32](2),
			Placing: plugintest.Placing{
				// Three partitions of its own: pods 0, 1, 2 get 1 each, then
				// pod 0 and 1 one more; pod 3 is never used.
				Name:       "the source's own count wins",
				Cluster:    newCluster,
				Src:        plugintest.Source(3),
				N:          5,
				WantResult: framework.Result{Changed: 5},
				Want: []vsched.Placement{
					plugintest.At(0, 2, "n0", "za"),
					plugintest.At(1, 2, "n1", "zb"),
					plugintest.At(2, 1, "n0", "za"),
				},
			},
		},
		{
			Placing: plugintest.Placing{
				// No limit: the plugin is skipped and EvenPodSpread uses
				// every pod.
				Name:       "no limit",
				Cluster:    newCluster,
				Src:        plugintest.Source(0),
				N:          5,
				WantResult: framework.Result{Changed: 5},
				Want: []vsched.Placement{
					plugintest.At(0, 2, "n0", "za"),
					plugintest.At(1, 1, "n1", "zb"),
					plugintest.At(2, 1, "n0", "za"),
					plugintest.At(3, 1, "n1", "zb"),
				},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) { tc.Expect(t, profile(tc.numPartitions)) })
	}

	t.Run("skipped plugins are named in explanations", func(t *testing.T) {
		d := plugintest.Decide(t, newCluster(), plugintest.Source(0))
		ex := &framework.Explanation{}
		if _, err := profile(nil).Run(context.Background(), d, 1, ex); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{Name}, ex.Skipped); diff != "" {
			t.Errorf("skipped (-want +got):\n%s", diff)
		}
	})
}

// TestProfileWithEvenPodSpreadFilter runs the predicates of the design's
// example configuration: once the source spans its NumPartitions pods, the
// pods it may not use must not count as empty for EvenPodSpread, or the
// source would stop at MaxSkew vreplicas per pod while the pods have room.
func TestProfileWithEvenPodSpreadFilter(t *testing.T) {
	spread := plugintest.Build(t, evenpodspread.New, &evenpodspread.Args{MaxSkew: ptr.To[int32](2)})
	prof := plugintest.Profile(t, framework.Place,
		[]framework.FilterPlugin{podfitsresources.New(), mustNew(t, ptr.To[int32](2)), spread},
		[]framework.WeightedScore{{Plugin: spread, Weight: 1}})
	// 0 0 0 0 -> pod 0; 1 0 0 0: pod 0 50, others 100 -> pod 1; the cap
	// is reached and 1 1 alone counts, so pods 0 and 1 alternate.
	plugintest.Placing{
		Cluster:    fourPods,
		Src:        plugintest.Source(0),
		N:          8,
		WantResult: framework.Result{Changed: 8},
		Want: []vsched.Placement{
			plugintest.At(0, 4, "n0", "za"),
			plugintest.At(1, 4, "n1", "zb"),
		},
	}.Expect(t, prof)
}
