package removewithavailabilitynodepriority

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
)

var p = frameworktest.P

func skew(v int32) *int32 { return &v }

// decide records the placements as used on c, as a committed source's are,
// and starts a Remove decision from them.
func decide(t testing.TB, c *frameworktest.Cluster, ps ...vsched.Placement) *framework.Decision {
	t.Helper()
	src := frameworktest.NewVPod("ns", "src", vsched.TotalVReplicas(ps), ps...)
	c.UsePlacements(ps)
	d, err := framework.NewDecision(framework.Remove, c, src, ps)
	if err != nil {
		t.Fatalf("NewDecision: %v", err)
	}
	return d
}

// at is the placement a decision reports for n vreplicas on the pod.
func at(ordinal, n int32, node, zone string) vsched.Placement {
	return vsched.Placement{PodName: vsched.PodName(frameworktest.StatefulSetName, ordinal), NodeName: node, ZoneName: zone, VReplicas: n}
}

// fourNodes has nodes n0 and n1 in zone-a, n2 in zone-b and n3 in zone-c,
// with pods 0 and 4 on n0, 1 on n1, 2 on n2 and 3 on n3.
func fourNodes() *frameworktest.Cluster {
	return frameworktest.NewCluster(10).
		Node("n0", "zone-a").Node("n1", "zone-a").Node("n2", "zone-b").Node("n3", "zone-c").
		Pods("n0", "n1", "n2", "n3", "n0")
}

func TestDecodeArgs(t *testing.T) {
	reg := Spec.Registration()
	tests := []struct {
		name    string
		raw     string
		want    *Args
		wantErr string
	}{
		{name: "empty defaults MaxSkew to 1", raw: "", want: &Args{MaxSkew: skew(1)}},
		{name: "null defaults MaxSkew to 1", raw: "null", want: &Args{MaxSkew: skew(1)}},
		{name: "seed example", raw: `{"MaxSkew": 2}`, want: &Args{MaxSkew: skew(2)}},
		{name: "MaxSkew 0 is rejected, not defaulted", raw: `{"MaxSkew": 0}`,
			wantErr: "Args.MaxSkew: Invalid value: 0: must be at least 1"},
		{name: "unknown field", raw: `{"MaxSkew": 1, "Nodes": 3}`, wantErr: `unknown field "Nodes"`},
		{name: "not an object", raw: `[1]`, wantErr: "must be a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, errs := reg.DecodeArgs([]byte(tc.raw), field.NewPath("Args"))
			if tc.wantErr != "" {
				if len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.wantErr) || !strings.HasPrefix(errs[0].Field, "Args") {
					t.Fatalf("errors = %v, want one under Args containing %q", errs, tc.wantErr)
				}
				return
			}
			if len(errs) > 0 {
				t.Fatalf("DecodeArgs: %v", errs)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNew(t *testing.T) {
	pl, err := New(context.Background(), nil)
	if err != nil || pl.maxSkew != 1 {
		t.Fatalf("New(nil) = %+v, %v; want MaxSkew 1", pl, err)
	}
	if _, err := New(context.Background(), &Args{MaxSkew: skew(0)}); err == nil || !strings.Contains(err.Error(), "MaxSkew") {
		t.Errorf("New(MaxSkew 0) error = %v, want one naming MaxSkew", err)
	}
	if _, err := Spec.New(context.Background(), &Args{MaxSkew: skew(-1)}); err == nil {
		t.Errorf("Spec.New(MaxSkew -1) succeeded")
	}
	built, err := Spec.Registration().New(context.Background(), &Args{MaxSkew: skew(2)})
	if err != nil || built.Name() != Name {
		t.Errorf("Registration.New = %v, %v", built, err)
	}
	if reg := Spec.Registration(); reg.Modes != framework.ForRemove || reg.Kinds != framework.KindScore || !reg.TakesArgs {
		t.Errorf("registration = %+v, want a descheduler score plugin taking args", reg)
	}
}

func TestScore(t *testing.T) {
	tests := []struct {
		name       string
		cluster    func() *frameworktest.Cluster
		placements []vsched.Placement
		maxSkew    int32
		want       map[int32]int64 // ordinal -> score
	}{
		{
			// Nodes n0=2+1=3, n1=2, n2=2, n3=2. From n0: {2,2,2,2}
			// skew 0, ceil(100*3/3) = 100. From n1..n3: {3,1,2,2}
			// skew 2 > 1 while n0 keeps 0: forbidden.
			name:       "fullest node first, others forbidden by MaxSkew 1",
			cluster:    fourNodes,
			placements: []vsched.Placement{p(0, 2), p(1, 2), p(2, 2), p(3, 2), p(4, 1)},
			maxSkew:    1,
			want:       map[int32]int64{0: 100, 1: 0, 2: 0, 3: 0, 4: 100},
		},
		{
			// As above with MaxSkew 2: {3,1,2,2} skew 2 allowed,
			// 100 - 50*(3-2)/2 = 75.
			name:       "proportional within MaxSkew 2",
			cluster:    fourNodes,
			placements: []vsched.Placement{p(0, 2), p(1, 2), p(2, 2), p(3, 2), p(4, 1)},
			maxSkew:    2,
			want:       map[int32]int64{0: 100, 1: 75, 2: 75, 3: 75, 4: 100},
		},
		{
			// Nodes n0=2, n1=1, n2=0, n3=0 (counted: they host
			// candidates). From n0 {1,1,0,0} skew 1; from n1 {2,0,0,0}
			// skew 2 > 1: forbidden. Pods 0 and 1 share zone-a: only
			// nodes matter here.
			name:       "a node holding none counts as 0",
			cluster:    fourNodes,
			placements: []vsched.Placement{p(0, 2), p(1, 1)},
			maxSkew:    1,
			want:       map[int32]int64{0: 100, 1: 0},
		},
		{
			// n0=6, n1=2, n2=0, n3=0: from n0 {5,2,0,0} skew 5 > 1,
			// nothing keeps MaxSkew: n0 (fullest) 100, n1
			// max(1, 9*ceil(200/6)/100) = 9*34/100 = 3.
			name:       "already uneven: proportional only",
			cluster:    fourNodes,
			placements: []vsched.Placement{p(0, 6), p(1, 2)},
			maxSkew:    1,
			want:       map[int32]int64{0: 100, 1: 3},
		},
		{
			// n3 is cordoned: not counted, pod 3 scores MaxScore.
			// Counted n0=2, n1=1, n2=1: from n0 {1,1,1} skew 0; from
			// n1 {2,0,1} skew 2 > 1: forbidden. (Counting n3's 6 would
			// give n0 only 34.)
			name:       "pod on a cordoned node first, node not counted",
			cluster:    func() *frameworktest.Cluster { return fourNodes().Cordon("n3") },
			placements: []vsched.Placement{p(0, 2), p(1, 1), p(2, 1), p(3, 6)},
			maxSkew:    1,
			want:       map[int32]int64{0: 100, 1: 0, 2: 0, 3: 100},
		},
		{
			// Pod 4 drains: MaxScore. n0 still hosts pod 0 and counts
			// both: n0=1+3=4, n1=1, n2=0, n3=0. From n0 {3,1,0,0}
			// skew 3 > 1 is the best there is: pod 0 (fullest) 100, pod 1
			// max(1, 9*ceil(100/4)/100) = 9*25/100 = 2.
			name:       "draining pod first on a counted node",
			cluster:    func() *frameworktest.Cluster { return fourNodes().Drain(4) },
			placements: []vsched.Placement{p(0, 1), p(1, 1), p(4, 3)},
			maxSkew:    1,
			want:       map[int32]int64{0: 100, 1: 2, 4: 100},
		},
		{
			// Pod 5 is unbound and pod 9 beyond the 6 replicas: both
			// MaxScore. Counted n0=1, n1=1, n2=n3=0: skew 1 either way.
			name: "unbound and unknown pods score MaxScore",
			cluster: func() *frameworktest.Cluster {
				return fourNodes().Pods("")
			},
			placements: []vsched.Placement{p(0, 1), p(1, 1), p(5, 2), p(9, 1)},
			maxSkew:    1,
			want:       map[int32]int64{0: 100, 1: 100, 5: 100, 9: 100},
		},
		{
			// Every node is cordoned: no counted node, every holder is
			// unavailable and scores MaxScore.
			name: "no counted nodes",
			cluster: func() *frameworktest.Cluster {
				return fourNodes().Cordon("n0").Cordon("n1").Cordon("n2").Cordon("n3")
			},
			placements: []vsched.Placement{p(0, 5), p(1, 1)},
			maxSkew:    1,
			want:       map[int32]int64{0: 100, 1: 100},
		},
		{
			// Pod 2 holds none of the source: nothing to remove, 0.
			name:       "non-holder scores 0",
			cluster:    fourNodes,
			placements: []vsched.Placement{p(1, 1)},
			maxSkew:    1,
			want:       map[int32]int64{1: 100, 2: 0},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := New(context.Background(), &Args{MaxSkew: &tc.maxSkew})
			if err != nil {
				t.Fatal(err)
			}
			d := decide(t, tc.cluster(), tc.placements...)
			got := map[int32]int64{}
			for ord := range tc.want {
				sc, st := pl.Score(context.Background(), d, ord)
				if !st.IsSuccess() {
					t.Fatalf("Score(%d): %v", ord, st)
				}
				got[ord] = sc
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRemove(t *testing.T) {
	tests := []struct {
		name       string
		cluster    func() *frameworktest.Cluster
		placements []vsched.Placement
		maxSkew    int32
		n          int32
		want       []vsched.Placement
		wantOrder  []int32 // the pod each removal came from
	}{
		{
			// n0 = pod 0 (1) + pod 4 (3) = 4, n1=1, n2=1, n3=1.
			// Step 1: n0 100 (nothing keeps MaxSkew 1), others 25; pods
			// 0 and 4 tie, pod 4 goes. Step 2: n0=3, {2,1,1,1} keeps
			// skew 1, the rest forbidden: pod 4 again. Step 3: n0=2,
			// {1,1,1,1}: pod 4 empties. Pod 0 keeps its one.
			name:       "heaviest node first",
			cluster:    fourNodes,
			placements: []vsched.Placement{p(0, 1), p(1, 1), p(2, 1), p(3, 1), p(4, 3)},
			maxSkew:    1,
			n:          3,
			want: []vsched.Placement{
				at(0, 1, "n0", "zone-a"), at(1, 1, "n1", "zone-a"), at(2, 1, "n2", "zone-b"), at(3, 1, "n3", "zone-c"),
			},
			wantOrder: []int32{4, 4, 4},
		},
		{
			// n1 is cordoned: pod 1 scores MaxScore and empties first,
			// then n0 (2 vs 1, 1) gives one.
			name:       "cordoned node empties first",
			cluster:    func() *frameworktest.Cluster { return fourNodes().Cordon("n1") },
			placements: []vsched.Placement{p(0, 2), p(1, 2), p(2, 1), p(3, 1)},
			maxSkew:    1,
			n:          3,
			want: []vsched.Placement{
				at(0, 1, "n0", "zone-a"), at(2, 1, "n2", "zone-b"), at(3, 1, "n3", "zone-c"),
			},
			wantOrder: []int32{1, 1, 0},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := New(context.Background(), &Args{MaxSkew: &tc.maxSkew})
			if err != nil {
				t.Fatal(err)
			}
			profile, err := framework.NewProfile(framework.Remove, nil, []framework.WeightedScore{{Plugin: pl, Weight: 1}})
			if err != nil {
				t.Fatal(err)
			}
			d := decide(t, tc.cluster(), tc.placements...)
			ex := &framework.Explanation{}
			res, err := profile.Run(context.Background(), d, tc.n, ex)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Changed != tc.n {
				t.Errorf("removed %d, want %d (%s)", res.Changed, tc.n, res.Reason)
			}
			if diff := cmp.Diff(tc.want, d.Placements()); diff != "" {
				t.Errorf("placements (-want +got):\n%s", diff)
			}
			var order []int32
			for _, s := range ex.Steps {
				order = append(order, s.Winner)
			}
			if diff := cmp.Diff(tc.wantOrder, order); diff != "" {
				t.Errorf("removal order (-want +got):\n%s", diff)
			}
		})
	}
}
