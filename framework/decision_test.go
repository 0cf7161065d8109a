package framework_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

func TestNewDecisionErrors(t *testing.T) {
	c := ft.NewCluster(4).Node("n0", "a").Pods("n0", "n0")
	vp := ft.NewVPod("ns", "src", 3)
	tests := []struct {
		name    string
		base    []vsched.Placement
		wantErr string
	}{
		{name: "empty", base: nil},
		{
			name: "zero entries are ignored, even malformed or repeated",
			base: []vsched.Placement{ft.P(0, 1), {PodName: "garbage"}, ft.P(0, 0)},
		},
		{
			name:    "negative",
			base:    []vsched.Placement{ft.P(0, 1), ft.P(1, -1)},
			wantErr: `ns/src: placements[1] (pod "adapter-1"): vreplicas is negative (-1)`,
		},
		{
			name:    "duplicate",
			base:    []vsched.Placement{ft.P(1, 1), ft.P(1, 2)},
			wantErr: `ns/src: placements[1]: pod "adapter-1" is listed twice`,
		},
		{
			name:    "same ordinal under another name",
			base:    []vsched.Placement{ft.P(1, 1), {PodName: "other-1", VReplicas: 1}},
			wantErr: `ns/src: placements[1]: pod "other-1" is listed twice`,
		},
		{
			name:    "malformed name",
			base:    []vsched.Placement{{PodName: "adapter-01", VReplicas: 1}},
			wantErr: `ns/src: placements[0]: pod name "adapter-01" has a malformed ordinal "01"`,
		},
		{
			name:    "no ordinal",
			base:    []vsched.Placement{{PodName: "adapter", VReplicas: 1}},
			wantErr: `ns/src: placements[0]: pod name "adapter" has no ordinal suffix`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := framework.NewDecision(framework.Place, c, vp, tt.base)
			got := ""
			if err != nil {
				got = err.Error()
				if d != nil {
					t.Errorf("NewDecision returned a decision with its error")
				}
			}
			if got != tt.wantErr {
				t.Errorf("NewDecision error = %q, want %q", got, tt.wantErr)
			}
		})
	}
}

// exampleCluster is the cluster the hand-computed tests below use:
//
//	capacity 4
//	node n0 zone a: pod 0 (used 4, source 2), pod 1 (used 2, source 1)
//	node n1 zone a: pod 2 (used 1), pod 8 (missing)
//	node n2 zone b: pod 3 (used 0), pod 4 (used 3, source 3),
//	                pod 7 (draining, used 2, source 2)
//	node n3 zone c, cordoned: pod 5 (used 1)
//	node n4 zone d: no pod
//	pod 6 unbound; the source also lists pod 12, beyond the replicas.
//
// Candidates are pods 0-4; the schedulable nodes n0, n1, n2 (indexes 0-2)
// and zones a, b (indexes 0, 1).
func exampleCluster() (*ft.Cluster, []vsched.Placement) {
	c := ft.NewCluster(4).
		Node("n0", "a").Node("n1", "a").Node("n2", "b").Node("n3", "c").Node("n4", "d").
		Pods("n0", "n0", "n1", "n2", "n2", "n3", "", "n2", "n1").
		Use(0, 4).Use(1, 2).Use(2, 1).Use(4, 3).Use(5, 1).Use(7, 2).
		Cordon("n3").Drain(7).Remove(8)
	base := []vsched.Placement{
		ft.P(4, 3), ft.P(0, 2), ft.P(7, 2), ft.P(1, 1),
		{PodName: "adapter-12", NodeName: "gone-node", ZoneName: "gone-zone", VReplicas: 1},
	}
	return c, base
}

// decisionView is everything a plugin can read from a Decision.
type decisionView struct {
	Total, Changed       int32
	PodsHeld, NonHolder  int
	Holders              []int32
	OnPod, Free          map[int32]int32
	OnNode, OnZone       []int32
	Pod, Node, Zone      framework.DomainStats
	PlacementsAfterwards []vsched.Placement
}

func viewDecision(d *framework.Decision) decisionView {
	v := decisionView{
		Total: d.Total(), Changed: d.Changed(), PodsHeld: d.PodsHeld(), NonHolder: d.NonHolderFreeCandidates(),
		Holders: append([]int32(nil), d.Holders()...), OnPod: map[int32]int32{}, Free: map[int32]int32{},
		Pod: d.PodStats(), Node: d.NodeStats(), Zone: d.ZoneStats(), PlacementsAfterwards: d.Placements(),
	}
	for ord := int32(-1); ord <= 13; ord++ {
		if n := d.OnPod(ord); n != 0 {
			v.OnPod[ord] = n
		}
		v.Free[ord] = d.Free(ord)
	}
	for i := int32(-1); i <= int32(d.Cluster().NumNodes()); i++ {
		v.OnNode = append(v.OnNode, d.OnNode(i))
	}
	for i := int32(-1); i <= int32(d.Cluster().NumZones()); i++ {
		v.OnZone = append(v.OnZone, d.OnZone(i))
	}
	return v
}

func TestDecisionExample(t *testing.T) {
	c, base := exampleCluster()
	vp := ft.NewVPod("ns", "src", 9)
	vp.Resources = 6
	d, err := framework.NewDecision(framework.Place, c, vp, base)
	if err != nil {
		t.Fatal(err)
	}
	want := decisionView{
		Total: 2 + 1 + 3 + 2 + 1, PodsHeld: 5,
		// Candidates with free capacity are pods 1-4; 1 and 4 hold the
		// source, leaving 2 and 3.
		NonHolder: 2,
		Holders:   []int32{0, 1, 4, 7, 12},
		OnPod:     map[int32]int32{0: 2, 1: 1, 4: 3, 7: 2, 12: 1},
		// Unknown pods (-1, 8 missing, 9-13 beyond replicas) have 0 free.
		Free: map[int32]int32{-1: 0, 0: 0, 1: 2, 2: 3, 3: 4, 4: 1, 5: 3, 6: 4, 7: 2, 8: 0, 9: 0, 10: 0, 11: 0, 12: 0, 13: 0},
		// Index -1 and NumNodes are out of range and count 0.
		// n0 = pods 0+1 = 3; n2 = pods 4+7 = 5 (draining still counts).
		OnNode: []int32{0, 3, 0, 5, 0, 0, 0},
		OnZone: []int32{0, 3, 5, 0, 0, 0},
		// Eligible pods: non-holders 2 and 3 count 0, candidate holders
		// 0, 1, 4 count 2, 1, 3; draining 7 and unknown 12 are left out.
		// Values {0, 0, 1, 2, 3}.
		Pod: framework.DomainStats{Domains: 5, Min: 0, AtMin: 2, NextMin: 1, Max: 3, AtMax: 1, NextMax: 2},
		// Schedulable nodes n0, n1, n2 hold {3, 0, 5}.
		Node: framework.DomainStats{Domains: 3, Min: 0, AtMin: 1, NextMin: 3, Max: 5, AtMax: 1, NextMax: 3},
		// Schedulable zones a, b hold {3, 5}; c (cordoned) and d (no pod)
		// are not domains.
		Zone: framework.DomainStats{Domains: 2, Min: 3, AtMin: 1, NextMin: 5, Max: 5, AtMax: 1, NextMax: 3},
		PlacementsAfterwards: []vsched.Placement{
			{PodName: "adapter-0", NodeName: "n0", ZoneName: "a", VReplicas: 2},
			{PodName: "adapter-1", NodeName: "n0", ZoneName: "a", VReplicas: 1},
			{PodName: "adapter-4", NodeName: "n2", ZoneName: "b", VReplicas: 3},
			{PodName: "adapter-7", NodeName: "n2", ZoneName: "b", VReplicas: 2},
			// Unknown to the cluster: kept as the status recorded it.
			{PodName: "adapter-12", NodeName: "gone-node", ZoneName: "gone-zone", VReplicas: 1},
		},
	}
	if diff := cmp.Diff(want, viewDecision(d)); diff != "" {
		t.Errorf("decision (-want +got):\n%s", diff)
	}
	if d.Mode() != framework.Place || d.Cluster() != c || d.VPod() != vp {
		t.Errorf("Mode/Cluster/VPod not as given")
	}
	if d.Key() != (types.NamespacedName{Namespace: "ns", Name: "src"}) {
		t.Errorf("Key = %v", d.Key())
	}
	if d.ResourceCount() != 6 {
		t.Errorf("ResourceCount = %d, want 6", d.ResourceCount())
	}
}

func TestDecisionWithoutVPod(t *testing.T) {
	d, err := framework.NewDecision(framework.Remove, ft.NewCluster(1), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.VPod() != nil || d.Key() != (types.NamespacedName{}) || d.ResourceCount() != 0 {
		t.Errorf("a decision without vpod reports one")
	}
	// No pods, nodes or zones: every summary is all zero.
	for name, s := range map[string]framework.DomainStats{"pod": d.PodStats(), "node": d.NodeStats(), "zone": d.ZoneStats()} {
		if s != (framework.DomainStats{}) {
			t.Errorf("%s stats of an empty cluster = %+v", name, s)
		}
	}
	if got := d.Placements(); len(got) != 0 {
		t.Errorf("Placements = %v", got)
	}
}

// onlyPod is a profile that places (or removes) only on/from one pod.
func onlyPod(t *testing.T, mode framework.Mode, ord int32) *framework.Profile {
	t.Helper()
	var filters []framework.FilterPlugin
	if mode == framework.Place {
		filters = append(filters, ft.CapacityFilter{})
	}
	p, err := framework.NewProfile(mode, filters, []framework.WeightedScore{
		{Plugin: &ft.ScriptedScorer{Scores: map[int32]int64{ord: 100}}, Weight: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDecisionBookkeeping walks one pod from empty to full, then back, and
// checks every derived count after each step against the hand count.
func TestDecisionBookkeeping(t *testing.T) {
	c, base := exampleCluster()
	ctx := context.Background()
	d, err := framework.NewDecision(framework.Place, c, nil, base)
	if err != nil {
		t.Fatal(err)
	}
	place := onlyPod(t, framework.Place, 3)
	// Pod 3 (n2, zone b) has 4 free and holds nothing.
	steps := []struct {
		onPod, free int32
		nonHolder   int
		pod         framework.DomainStats
	}{
		// First vreplica: pod 3 joins the holders, non-holders {2}.
		// Values {0 (pod 2), 2, 1, 3, 1}.
		{1, 3, 1, framework.DomainStats{Domains: 5, Min: 0, AtMin: 1, NextMin: 1, Max: 3, AtMax: 1, NextMax: 2}},
		// Values {0, 2, 1, 3, 2}.
		{2, 2, 1, framework.DomainStats{Domains: 5, Min: 0, AtMin: 1, NextMin: 1, Max: 3, AtMax: 1, NextMax: 2}},
		// Values {0, 2, 1, 3, 3}.
		{3, 1, 1, framework.DomainStats{Domains: 5, Min: 0, AtMin: 1, NextMin: 1, Max: 3, AtMax: 2, NextMax: 2}},
		// Full: still eligible, as a holder. Values {0, 2, 1, 3, 4}.
		{4, 0, 1, framework.DomainStats{Domains: 5, Min: 0, AtMin: 1, NextMin: 1, Max: 4, AtMax: 1, NextMax: 3}},
	}
	for i, want := range steps {
		res, err := place.Run(ctx, d, 1, nil)
		if err != nil || res.Changed != 1 {
			t.Fatalf("step %d: Run = %+v, %v", i, res, err)
		}
		if d.OnPod(3) != want.onPod || d.Free(3) != want.free || d.NonHolderFreeCandidates() != want.nonHolder {
			t.Errorf("step %d: OnPod %d Free %d NonHolder %d, want %d %d %d", i,
				d.OnPod(3), d.Free(3), d.NonHolderFreeCandidates(), want.onPod, want.free, want.nonHolder)
		}
		if diff := cmp.Diff(want.pod, d.PodStats()); diff != "" {
			t.Errorf("step %d: PodStats (-want +got):\n%s", i, diff)
		}
		if d.Changed() != int32(i+1) || d.Total() != 9+int32(i+1) {
			t.Errorf("step %d: Changed %d Total %d", i, d.Changed(), d.Total())
		}
	}
	// Zone b now holds 3 + 2 + 4, node n2 likewise.
	if d.OnZone(1) != 9 || d.OnNode(2) != 9 {
		t.Errorf("OnZone(b) = %d, OnNode(n2) = %d, want 9", d.OnZone(1), d.OnNode(2))
	}
	// The pod is full: the capacity filter stops a fifth vreplica there,
	// and every other pod scores 0, so it goes to the fullest pod with
	// room (best fit): pod 4, 1 free (pod 1 has 2, pod 2 has 3).
	if _, err := place.Run(ctx, d, 1, nil); err != nil {
		t.Fatal(err)
	}
	if d.OnPod(3) != 4 || d.OnPod(4) != 4 || d.OnPod(1) != 1 {
		t.Errorf("fifth vreplica: OnPod(3) = %d, OnPod(4) = %d, OnPod(1) = %d", d.OnPod(3), d.OnPod(4), d.OnPod(1))
	}
	if got := vsched.PlacementForPod(d.Placements(), "adapter-3"); got == nil || *got != (vsched.Placement{PodName: "adapter-3", NodeName: "n2", ZoneName: "b", VReplicas: 4}) {
		t.Errorf("placement on the new holder = %+v", got)
	}

	// Removing from pod 1 (2 held) down to none makes it a non-holder with
	// free capacity again.
	r, err := framework.NewDecision(framework.Remove, c, nil, base)
	if err != nil {
		t.Fatal(err)
	}
	remove := onlyPod(t, framework.Remove, 1)
	if _, err := remove.Run(ctx, r, 1, nil); err != nil {
		t.Fatal(err)
	}
	// Pod 1 held 1; now it holds none and has 3 free: non-holders {1, 2, 3}.
	if r.OnPod(1) != 0 || r.Free(1) != 3 || r.NonHolderFreeCandidates() != 3 || r.PodsHeld() != 4 {
		t.Errorf("after removing: OnPod %d Free %d NonHolder %d PodsHeld %d", r.OnPod(1), r.Free(1), r.NonHolderFreeCandidates(), r.PodsHeld())
	}
	if diff := cmp.Diff([]int32{0, 4, 7, 12}, r.Holders()); diff != "" {
		t.Errorf("Holders (-want +got):\n%s", diff)
	}
	// Removing from full pod 0 (2 held): the first leaves it a holder, the
	// second a non-holder with 2 free.
	remove0 := onlyPod(t, framework.Remove, 0)
	for i, want := range []int{3, 4} {
		if _, err := remove0.Run(ctx, r, 1, nil); err != nil {
			t.Fatal(err)
		}
		if got := r.NonHolderFreeCandidates(); got != want {
			t.Errorf("removal %d from pod 0: NonHolder = %d, want %d", i+1, got, want)
		}
	}
	// Removing from a non-candidate (draining pod 7) changes no count of
	// candidates.
	remove7 := onlyPod(t, framework.Remove, 7)
	if _, err := remove7.Run(ctx, r, 2, nil); err != nil {
		t.Fatal(err)
	}
	if r.NonHolderFreeCandidates() != 4 || r.OnZone(1) != 3 {
		t.Errorf("after draining pod 7: NonHolder %d, OnZone(b) %d", r.NonHolderFreeCandidates(), r.OnZone(1))
	}
}

func TestDecisionStore(t *testing.T) {
	d, err := framework.NewDecision(framework.Place, ft.NewCluster(1), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := d.Load("k"); ok || v != nil {
		t.Errorf("Load before Store = %v, %v", v, ok)
	}
	d.Store("k", 1)
	d.Store("j", "x")
	d.Store("k", 2)
	if v, ok := d.Load("k"); !ok || v != 2 {
		t.Errorf("Load(k) = %v, %v, want 2", v, ok)
	}
	if v, ok := d.Load("j"); !ok || v != "x" {
		t.Errorf("Load(j) = %v, %v", v, ok)
	}
	// A stored nil is still stored.
	d.Store("n", nil)
	if _, ok := d.Load("n"); !ok {
		t.Errorf("Load(n) after Store(n, nil) not found")
	}
}

func TestSkewAfter(t *testing.T) {
	tests := []struct {
		name     string
		stats    framework.DomainStats
		current  int32
		add, rmv int32
	}{
		// No domains: nothing to be uneven.
		{name: "zero domains", stats: framework.DomainStats{}, current: 0, add: 0, rmv: 0},
		// One domain moves alone: never uneven.
		{name: "single domain", stats: framework.DomainStats{Domains: 1, Min: 3, Max: 3, AtMin: 1, AtMax: 1, NextMin: 3, NextMax: 3}, current: 3, add: 0, rmv: 0},
		// {2, 2}: add to one -> {3, 2} skew 1; remove -> {1, 2} skew 1.
		{name: "two equal", stats: framework.DomainStats{Domains: 2, Min: 2, Max: 2, AtMin: 2, AtMax: 2, NextMin: 2, NextMax: 2}, current: 2, add: 1, rmv: 1},
		// {0, 3, 5}: add to 0 -> {1, 3, 5} skew 4; remove from 0 is not
		// asked of an empty domain, but the arithmetic gives {-1, 3, 5}.
		{name: "lone min", stats: framework.DomainStats{Domains: 3, Min: 0, AtMin: 1, NextMin: 3, Max: 5, AtMax: 1, NextMax: 3}, current: 0, add: 4, rmv: 6},
		// {0, 3, 5} from 5: add -> {0, 3, 6} skew 6; remove -> {0, 3, 4} 4.
		{name: "lone max", stats: framework.DomainStats{Domains: 3, Min: 0, AtMin: 1, NextMin: 3, Max: 5, AtMax: 1, NextMax: 3}, current: 5, add: 6, rmv: 4},
		// {0, 3, 5} from 3: add -> {0, 4, 5} skew 5; remove -> {0, 2, 5} 5.
		{name: "middle", stats: framework.DomainStats{Domains: 3, Min: 0, AtMin: 1, NextMin: 3, Max: 5, AtMax: 1, NextMax: 3}, current: 3, add: 5, rmv: 5},
		// {1, 2}: add to 1 -> {2, 2} skew 0 (NextMin 2 is the new min);
		// remove from 2 -> {1, 1} skew 0 (NextMax 1 is the new max).
		// Removing from the 1 instead -> {0, 2} skew 2.
		{name: "closing the gap up", stats: framework.DomainStats{Domains: 2, Min: 1, AtMin: 1, NextMin: 2, Max: 2, AtMax: 1, NextMax: 1}, current: 1, add: 0, rmv: 2},
		{name: "closing the gap down", stats: framework.DomainStats{Domains: 2, Min: 1, AtMin: 1, NextMin: 2, Max: 2, AtMax: 1, NextMax: 1}, current: 2, add: 2, rmv: 0},
		// {1, 1, 4}: add to a 1 -> {2, 1, 4}: min stays 1 (AtMin 2), skew 3.
		{name: "shared min", stats: framework.DomainStats{Domains: 3, Min: 1, AtMin: 2, NextMin: 4, Max: 4, AtMax: 1, NextMax: 1}, current: 1, add: 3, rmv: 4},
		// {1, 4, 4}: remove from a 4 -> {1, 3, 4}: max stays 4, skew 3.
		{name: "shared max", stats: framework.DomainStats{Domains: 3, Min: 1, AtMin: 1, NextMin: 4, Max: 4, AtMax: 2, NextMax: 1}, current: 4, add: 4, rmv: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.stats.SkewAfterAdd(tt.current); got != tt.add {
				t.Errorf("SkewAfterAdd(%d) = %d, want %d", tt.current, got, tt.add)
			}
			if got := tt.stats.SkewAfterRemove(tt.current); got != tt.rmv {
				t.Errorf("SkewAfterRemove(%d) = %d, want %d", tt.current, got, tt.rmv)
			}
			if got, want := tt.stats.Skew(), tt.stats.Max-tt.stats.Min; got != want {
				t.Errorf("Skew = %d, want %d", got, want)
			}
		})
	}
}
