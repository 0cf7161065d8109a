package evenzonespread

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins/core/lowestordinalpriority"
	"github.com/vsched/vsched/plugins/core/podfitsresources"
	"github.com/vsched/vsched/plugins/internal/plugintest"
)

func mustNew(t *testing.T, maxSkew int32) *Plugin {
	return plugintest.Build(t, New, &Args{MaxSkew: &maxSkew})
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
	cases := []plugintest.Filtering{
		{
			Name:    "first vreplica",
			Cluster: threeZones(),
			Src:     plugintest.Source(0),
			Plugin:  mustNew(t, 1),
			Want:    plugintest.Pass,
		},
		{
			// 1 0 0 -> 2 0 0: skew 2
			Name:    "second vreplica in the same zone",
			Cluster: threeZones(),
			Src:     plugintest.Source(0, p(0, 1)),
			Plugin:  mustNew(t, 1),
			Want:    reject("zone zone-a holds 1 of the source's vreplicas; one more would make the skew across zones 2, above MaxSkew 1 (fewest: 0, in zone-b, zone-c)"),
		},
		{
			// 1 0 0 -> 1 1 0: skew 1
			Name:    "second vreplica in another zone",
			Cluster: threeZones(),
			Src:     plugintest.Source(0, p(0, 1)),
			Plugin:  mustNew(t, 1),
			Ordinal: 1,
			Want:    plugintest.Pass,
		},
		{
			// 1 0 0 -> 2 0 0: skew 2, within MaxSkew 2
			Name:    "larger MaxSkew",
			Cluster: threeZones(),
			Src:     plugintest.Source(0, p(0, 1)),
			Plugin:  mustNew(t, 2),
			Want:    plugintest.Pass,
		},
		{
			// Pods 0 and 1 are bound, pod 2 is not yet: zone-c has a
			// schedulable node and counts with 0. 1 1 (0) -> 2 1 (0).
			Name:    "a scale-up in flight counts the zone still to get pods",
			Cluster: zones().Pods("na", "nb", ""),
			Src:     plugintest.Source(0, p(0, 1), p(1, 1)),
			Plugin:  mustNew(t, 1),
			Want:    reject("zone zone-a holds 1 of the source's vreplicas; one more would make the skew across zones 2, above MaxSkew 1 (fewest: 0, in zone-c (no pod yet, a scale-up is in flight))"),
		},
		{
			// Pod 2 was deleted and is being recreated: the same.
			Name:    "a pod being recreated counts its possible zones",
			Cluster: zones().Pods("na", "nb", "nb").Remove(2),
			Src:     plugintest.Source(0, p(0, 1), p(1, 1)),
			Plugin:  mustNew(t, 1),
			Want:    reject("zone zone-a holds 1 of the source's vreplicas; one more would make the skew across zones 2, above MaxSkew 1 (fewest: 0, in zone-c (no pod yet, a scale-up is in flight))"),
		},
		{
			// Every pod is bound: zone-c has a node but no pod, so it
			// does not count. 1 1 -> 2 1.
			Name:    "a zone without pods does not count once every pod is bound",
			Cluster: zones().Pods("na", "nb"),
			Src:     plugintest.Source(0, p(0, 1), p(1, 1)),
			Plugin:  mustNew(t, 1),
			Want:    plugintest.Pass,
		},
		{
			// A scale-up is in flight, but zone-c's only node is
			// cordoned (or NotReady): its pods cannot go there.
			Name:    "a zone without a schedulable node never counts",
			Cluster: zones().Pods("na", "nb", "").Cordon("nc"),
			Src:     plugintest.Source(0, p(0, 1), p(1, 1)),
			Plugin:  mustNew(t, 1),
			Want:    plugintest.Pass,
		},
		{
			// zone-c's node is cordoned and its pod not a candidate:
			// 1 1 (1) -> 2 1, the failed zone is left out.
			Name:    "a failed zone is left out",
			Cluster: threeZones().Cordon("nc"),
			Src:     plugintest.Source(0, p(0, 1), p(1, 1), p(2, 1)),
			Plugin:  mustNew(t, 1),
			Want:    plugintest.Pass,
		},
		{
			// 5 0 0 -> 5 1 0: zone-b holds the fewest; the skew does not
			// widen, so the source can even out.
			Name:    "already skewed, least loaded zone",
			Cluster: threeZones(),
			Src:     plugintest.Source(0, p(0, 5)),
			Plugin:  mustNew(t, 1),
			Ordinal: 1,
			Want:    plugintest.Pass,
		},
		{
			// 5 2 0 -> 5 3 0: zone-b is not the least loaded.
			Name:    "already skewed, zone in between",
			Cluster: threeZones(),
			Src:     plugintest.Source(0, p(0, 5), p(1, 2)),
			Plugin:  mustNew(t, 1),
			Ordinal: 1,
			Want:    reject("zone zone-b holds 2 of the source's vreplicas; one more would make the skew across zones 5, above MaxSkew 1 (fewest: 0, in zone-c)"),
		},
		{
			Name:    "pod on a node without a zone label",
			Cluster: threeZones().Node("nx", "").Pods("nx"),
			Src:     plugintest.Source(0),
			Plugin:  mustNew(t, 1),
			Ordinal: 3,
			Want:    reject(`pod adapter-3 is on node "nx", which has no zone label; the source is spread over 3 zones`),
		},
		{
			Name:    "no zones at all",
			Cluster: frameworktest.NewCluster(10).Node("n0", "").Pods("n0", "n0"),
			Src:     plugintest.Source(0, p(0, 5)),
			Plugin:  mustNew(t, 1),
			Want:    plugintest.Pass,
		},
		{
			Name:    "unknown pod",
			Cluster: threeZones(),
			Src:     plugintest.Source(0),
			Plugin:  mustNew(t, 1),
			Ordinal: 9,
			Want:    reject("pod with ordinal 9 does not exist"),
		},
	}
	plugintest.ExpectFilters(t, cases)
}

// packProfile is PodFitsResources and EvenZoneSpread (MaxSkew 1) with
// LowestOrdinalPriority: the spread is the only thing keeping vreplicas off
// the lowest ordinals.
func packProfile(t *testing.T) *framework.Profile {
	return plugintest.Profile(t, framework.Place,
		[]framework.FilterPlugin{podfitsresources.New(), mustNew(t, 1)},
		[]framework.WeightedScore{{Plugin: lowestordinalpriority.New(), Weight: 1}})
}

func TestProfile(t *testing.T) {
	prof := packProfile(t)
	if !prof.Grouped() {
		t.Error("profile is not evaluated by class")
	}
	if !prof.SpreadsOverZones() {
		t.Error("profile with EvenZoneSpread does not report SpreadsOverZones")
	}
	cases := []plugintest.Placing{
		{
			// Lowest ordinal first, but never two zones apart:
			// pods 0,3 in a; 1,4 in b; 2 in c.
			Name:       "lowest ordinals within the spread",
			Cluster:    func() *frameworktest.Cluster { return threeZones().Pods("na", "nb") },
			Src:        plugintest.Source(0),
			N:          5,
			WantResult: framework.Result{Changed: 5},
			Want: []vsched.Placement{
				plugintest.At(0, 2, "na", "zone-a"),
				plugintest.At(1, 2, "nb", "zone-b"),
				plugintest.At(2, 1, "nc", "zone-c"),
			},
		},
		{
			// The StatefulSet grows from 0 to 3 and only pod 0 is bound:
			// one vreplica, the rest waits for pods in zone-b and zone-c.
			Name:    "scale-up in flight: waits for the other zones",
			Cluster: func() *frameworktest.Cluster { return zones().Pods("na", "", "") },
			Src:     plugintest.Source(0),
			N:       4,
			WantResult: framework.Result{Changed: 1, Reason: `bound by EvenZoneSpread, which rejected 1 pod(s) that have room; 1 candidate pod(s): ` +
				`EvenZoneSpread rejected 1 pod(s) (e.g. "zone zone-a holds 1 of the source's vreplicas; ` +
				`one more would make the skew across zones 2, above MaxSkew 1 ` +
				`(fewest: 0, in zone-b (no pod yet, a scale-up is in flight), zone-c (no pod yet, a scale-up is in flight))")`},
			Want: []vsched.Placement{plugintest.At(0, 1, "na", "zone-a")},
		},
		{
			// zone-a's pod is full: 0 0 0 -> 0 1 1, then zone-b and
			// zone-c would be 2 ahead of zone-a.
			Name:    "a full zone caps the others",
			Cluster: func() *frameworktest.Cluster { return threeZones().Use(0, 10) },
			Src:     plugintest.Source(0),
			N:       4,
			WantResult: framework.Result{Changed: 2, Reason: `bound by EvenZoneSpread, which rejected 2 pod(s) that have room; 3 candidate pod(s): ` +
				`PodFitsResources rejected 1 pod(s) (e.g. "pod adapter-0 is full (10/10 vreplicas)"); ` +
				`EvenZoneSpread rejected 2 pod(s) (e.g. "zone zone-b holds 1 of the source's vreplicas; ` +
				`one more would make the skew across zones 2, above MaxSkew 1 (fewest: 0, in zone-a (full: it bounds the source))")`},
			Want: []vsched.Placement{
				plugintest.At(1, 1, "nb", "zone-b"),
				plugintest.At(2, 1, "nc", "zone-c"),
			},
		},
	}
	plugintest.ExpectPlacing(t, prof, cases)
}

func TestArgs(t *testing.T) {
	plugintest.ExpectRegistration(t, Spec.Registration(), plugintest.Registered{
		Name: Name, Kinds: framework.KindFilter, Modes: framework.ForPlace, TakesArgs: true,
	})
	plugintest.ExpectMaxSkewArgs(t, Spec, New, field.NewPath("predicates").Index(1).Child("Args"),
		func(p *Plugin) int32 { return p.maxSkew },
		frameworktest.ArgsCase[Args]{
			Name: "unknown field", Raw: `{"Skew": 2}`,
			WantErrs: []string{`predicates[1].Args: Invalid value: "{\"Skew\": 2}": json: unknown field "Skew"`},
		})
}

func TestNew(t *testing.T) {
	if p := plugintest.Build(t, New, nil); p.Name() != Name || !p.EquivalentWithinClass() || !p.SpreadsOverZones() {
		t.Errorf("New(nil) = %+v, want equivalent within class, spreading over zones", p)
	}
}
