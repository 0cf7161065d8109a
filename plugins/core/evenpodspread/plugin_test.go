package evenpodspread

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins/core/podfitsresources"
	"github.com/vsched/vsched/plugins/internal/plugintest"
)

func mustNew(t *testing.T, maxSkew int32) *Plugin {
	return plugintest.Build(t, New, &Args{MaxSkew: &maxSkew})
}

// threePods is three empty pods of capacity 10 on nodes n0, n0 and n1.
func threePods() *frameworktest.Cluster {
	return frameworktest.NewCluster(10).Node("n0", "").Node("n1", "").Pods("n0", "n0", "n1")
}

func TestFilter(t *testing.T) {
	reject := func(msg string) plugintest.Outcome {
		return plugintest.Outcome{Code: "Unschedulable", Message: msg}
	}
	p := frameworktest.P
	cases := []plugintest.Filtering{
		{
			// 0 0 0 -> 1 0 0: skew 1
			Name:    "first vreplica",
			Cluster: threePods(),
			Src:     plugintest.Source(0),
			Plugin:  mustNew(t, 1),
			Want:    plugintest.Pass,
		},
		{
			// 1 0 0 -> 2 0 0: skew 2 > 1
			Name:    "second on the same pod",
			Cluster: threePods(),
			Src:     plugintest.Source(0, p(0, 1)),
			Plugin:  mustNew(t, 1),
			Want:    reject("pod adapter-0 holds 1 of the source's vreplicas; one more would make the skew across pods 2, above MaxSkew 1"),
		},
		{
			// 1 0 0 -> 1 1 0: skew 1
			Name:    "second on another pod",
			Cluster: threePods(),
			Src:     plugintest.Source(0, p(0, 1)),
			Plugin:  mustNew(t, 1),
			Ordinal: 1,
			Want:    plugintest.Pass,
		},
		{
			// 1 0 0 -> 2 0 0: skew 2 <= 2
			Name:    "second on the same pod with MaxSkew 2",
			Cluster: threePods(),
			Src:     plugintest.Source(0, p(0, 1)),
			Plugin:  mustNew(t, 2),
			Want:    plugintest.Pass,
		},
		{
			// pods 1 and 2 are full with other sources and not eligible:
			// 1 -> 2, a single pod has no skew
			Name:    "full pods not holding the source are not counted",
			Cluster: threePods().Use(1, 10).Use(2, 10),
			Src:     plugintest.Source(0, p(0, 1)),
			Plugin:  mustNew(t, 1),
			Want:    plugintest.Pass,
		},
		{
			// pod 0 is full but holds 1, so it counts: 1 2 -> 1 3: skew 2
			Name:    "full pods holding the source are counted",
			Cluster: threePods().Use(0, 9).Use(2, 10),
			Src:     plugintest.Source(0, p(0, 1), p(1, 2)),
			Plugin:  mustNew(t, 1),
			Ordinal: 1,
			Want:    reject("pod adapter-1 holds 2 of the source's vreplicas; one more would make the skew across pods 2, above MaxSkew 1"),
		},
		{
			// pod 2 is on a cordoned node and not a candidate:
			// 1 1 -> 2 1: skew 1
			Name:    "pods on cordoned nodes are not counted",
			Cluster: threePods().Cordon("n1"),
			Src:     plugintest.Source(0, p(0, 1), p(1, 1)),
			Plugin:  mustNew(t, 1),
			Want:    plugintest.Pass,
		},
		{
			// 1 1 0 -> 2 1 0: skew 2
			Name:    "same placements with pod 2 schedulable",
			Cluster: threePods(),
			Src:     plugintest.Source(0, p(0, 1), p(1, 1)),
			Plugin:  mustNew(t, 1),
			Want:    reject("pod adapter-0 holds 1 of the source's vreplicas; one more would make the skew across pods 2, above MaxSkew 1"),
		},
		{
			// 5 0 0 -> 5 1 0: skew stays 5 > 1, but pod 1 holds the
			// fewest, so the source can even out
			Name:    "already skewed, least loaded pod",
			Cluster: threePods(),
			Src:     plugintest.Source(0, p(0, 5)),
			Plugin:  mustNew(t, 1),
			Ordinal: 1,
			Want:    plugintest.Pass,
		},
		{
			// 5 0 0 -> 6 0 0: skew 6
			Name:    "already skewed, most loaded pod",
			Cluster: threePods(),
			Src:     plugintest.Source(0, p(0, 5)),
			Plugin:  mustNew(t, 1),
			Want:    reject("pod adapter-0 holds 5 of the source's vreplicas; one more would make the skew across pods 6, above MaxSkew 1"),
		},
		{
			// 5 2 0 -> 5 3 0: skew 5, and pod 1 does not hold the fewest
			Name:    "already skewed, pod in between",
			Cluster: threePods(),
			Src:     plugintest.Source(0, p(0, 5), p(1, 2)),
			Plugin:  mustNew(t, 1),
			Ordinal: 1,
			Want:    reject("pod adapter-1 holds 2 of the source's vreplicas; one more would make the skew across pods 5, above MaxSkew 1"),
		},
		{
			// The source may span 2 pods and does: pod 2 can never take
			// any, so only 1 1 counts -> 2 1: skew 1
			Name:     "pod cap reached: only holders count",
			Cluster:  threePods(),
			Src:      plugintest.Source(0, p(0, 1), p(1, 1)),
			Plugin:   mustNew(t, 1),
			PodLimit: 2,
			Want:     plugintest.Pass,
		},
		{
			// cap 3 not reached: 1 1 0 -> 2 1 0: skew 2
			Name:     "pod cap not reached: every eligible pod counts",
			Cluster:  threePods(),
			Src:      plugintest.Source(0, p(0, 1), p(1, 1)),
			Plugin:   mustNew(t, 1),
			PodLimit: 3,
			Want:     reject("pod adapter-0 holds 1 of the source's vreplicas; one more would make the skew across pods 2, above MaxSkew 1"),
		},
		{
			// cap 2 reached: 3 1 -> 4 1: skew 3
			Name:     "pod cap reached: holders still even out",
			Cluster:  threePods(),
			Src:      plugintest.Source(0, p(0, 3), p(1, 1)),
			Plugin:   mustNew(t, 1),
			PodLimit: 2,
			Want:     reject("pod adapter-0 holds 3 of the source's vreplicas; one more would make the skew across pods 3, above MaxSkew 1"),
		},
		{
			// cap 3 reached, but pod 2's node is cordoned: only 1 1
			// counts -> 2 1: skew 1
			Name:     "pod cap reached: holders that are not candidates do not count",
			Cluster:  threePods().Cordon("n1"),
			Src:      plugintest.Source(0, p(0, 1), p(1, 1), p(2, 5)),
			Plugin:   mustNew(t, 1),
			PodLimit: 3,
			Want:     plugintest.Pass,
		},
		{
			// An unknown pod holds 0, never more than the fewest.
			Name:    "unknown pod",
			Cluster: threePods(),
			Src:     plugintest.Source(0, p(0, 5)),
			Plugin:  mustNew(t, 1),
			Ordinal: 7,
			Want:    plugintest.Pass,
		},
		{
			// Pod 3 was deleted while holding 2; counted pods 1 0 0.
			Name:    "deleted pod still holding the source",
			Cluster: threePods().Pods("n1").Remove(3),
			Src:     plugintest.Source(0, p(0, 1), p(3, 2)),
			Plugin:  mustNew(t, 1),
			Ordinal: 3,
			Want:    reject("pod with ordinal 3 holds 2 of the source's vreplicas; one more would make the skew across pods 3, above MaxSkew 1"),
		},
	}
	plugintest.ExpectFilters(t, cases)
}

func TestScore(t *testing.T) {
	p := frameworktest.P
	cases := []plugintest.Scoring{
		{
			// 0 0 0: every pod holds the fewest -> 100
			Name:    "nothing placed",
			Cluster: threePods(),
			Src:     plugintest.Source(0),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 100, 2: 100},
		},
		{
			// 1 0 0: pod 0 would make skew 2 > 1, not allowed: 9*(2-1)/2 = 4;
			// pods 1, 2 hold the fewest -> 100
			Name:    "one placed",
			Cluster: threePods(),
			Src:     plugintest.Source(0, p(0, 1)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 4, 1: 100, 2: 100},
		},
		{
			// 2 1 1, MaxSkew 2: pod 0 makes skew 3-1 = 2, allowed:
			// 100 - 50*(2-1)/2 = 75; pods 1, 2 hold the fewest -> 100
			Name:    "fuller pods score lower",
			Cluster: threePods(),
			Src:     plugintest.Source(0, p(0, 2), p(1, 1), p(2, 1)),
			Plugin:  mustNew(t, 2),
			Want:    map[int32]int64{0: 75, 1: 100, 2: 100},
		},
		{
			// 3 1 0, MaxSkew 3: pod 0 would make skew 4 > 3: 9*(4-3)/4 = 2;
			// pod 1 allowed: 100 - 50*(1-0)/3 = 84; pod 2 holds the fewest -> 100
			Name:    "over MaxSkew scores 0",
			Cluster: threePods(),
			Src:     plugintest.Source(0, p(0, 3), p(1, 1)),
			Plugin:  mustNew(t, 3),
			Want:    map[int32]int64{0: 2, 1: 84, 2: 100},
		},
		{
			// cap 2 reached, only 1 1 counts: both hold the fewest -> 100;
			// pod 2 (c=0, below every holder) -> 100, but NoMaxResourceCount
			// rejects it
			Name:     "pod cap reached",
			Cluster:  threePods(),
			Src:      plugintest.Source(0, p(0, 1), p(1, 1)),
			Plugin:   mustNew(t, 1),
			PodLimit: 2,
			Want:     map[int32]int64{0: 100, 1: 100, 2: 100},
		},
		{
			// 6 0 0: pod 0 would make skew 7: 9*(7-6)/7 = 1; pods 1 and 2 hold
			// the fewest -> 100
			Name:    "already skewed",
			Cluster: threePods(),
			Src:     plugintest.Source(0, p(0, 6)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 1, 1: 100, 2: 100},
		},
	}
	plugintest.ExpectScores(t, cases)
}

func TestArgs(t *testing.T) {
	plugintest.ExpectRegistration(t, Spec.Registration(), plugintest.Registered{
		Name: Name, Kinds: framework.KindFilter | framework.KindScore, Modes: framework.ForPlace, TakesArgs: true,
	})
	plugintest.ExpectMaxSkewArgs(t, Spec, New, field.NewPath("predicates").Index(2).Child("Args"),
		func(p *Plugin) int32 { return p.maxSkew })
}

func TestNew(t *testing.T) {
	if p := plugintest.Build(t, New, nil); p.Name() != Name || !p.EquivalentWithinClass() {
		t.Errorf("New(nil) = %+v (name %q, equivalent %v)", p, p.Name(), p.EquivalentWithinClass())
	}
}

func TestProfile(t *testing.T) {
	p := frameworktest.P
	pl := mustNew(t, 1)
	prof := plugintest.GroupedProfile(t,
		[]framework.FilterPlugin{podfitsresources.New(), pl},
		[]framework.WeightedScore{{Plugin: pl, Weight: 1}})
	cases := []plugintest.Placing{
		{
			// 0 0 0 -> 1 0 0 -> 1 1 0 -> 1 1 1 -> 2 1 1 -> 2 2 1
			Name:       "round robin from nothing",
			Cluster:    func() *frameworktest.Cluster { return threePods() },
			Src:        plugintest.Source(0),
			N:          5,
			WantResult: framework.Result{Changed: 5},
			Want: []vsched.Placement{
				plugintest.At(0, 2, "n0", ""),
				plugintest.At(1, 2, "n0", ""),
				plugintest.At(2, 1, "n1", ""),
			},
		},
		{
			// The source grew to 4 while the StatefulSet had one pod:
			// 4 0 0 -> 4 1 0 -> 4 1 1 -> 4 2 1 -> 4 2 2 -> 4 3 2.
			Name:       "evens out a source that is already skewed",
			Cluster:    func() *frameworktest.Cluster { return threePods() },
			Src:        plugintest.Source(0, p(0, 4)),
			N:          5,
			WantResult: framework.Result{Changed: 5},
			Want: []vsched.Placement{
				plugintest.At(0, 4, "n0", ""),
				plugintest.At(1, 3, "n0", ""),
				plugintest.At(2, 2, "n1", ""),
			},
		},
		{
			// Pod 0 is full, holding 1: 1 0 0 -> 1 1 0 -> 1 1 1 -> 1 2 1
			// -> 1 2 2; then pods 1 and 2 would make skew 2 and pod 0 is
			// full.
			Name:    "a full pod holding the source caps the others",
			Cluster: func() *frameworktest.Cluster { return threePods().Use(0, 9) },
			Src:     plugintest.Source(0, p(0, 1)),
			N:       5,
			WantResult: framework.Result{Changed: 4, Reason: `bound by EvenPodSpread, which rejected 2 pod(s) that have room; 3 candidate pod(s): ` +
				`PodFitsResources rejected 1 pod(s) (e.g. "pod adapter-0 is full (10/10 vreplicas)"); ` +
				`EvenPodSpread rejected 2 pod(s) (e.g. "pod adapter-1 holds 2 of the source's vreplicas; ` +
				`one more would make the skew across pods 2, above MaxSkew 1")`},
			Want: []vsched.Placement{
				plugintest.At(0, 1, "n0", ""),
				plugintest.At(1, 2, "n0", ""),
				plugintest.At(2, 2, "n1", ""),
			},
		},
	}
	plugintest.ExpectPlacing(t, prof, cases)
}
