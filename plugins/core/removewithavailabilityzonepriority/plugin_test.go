package removewithavailabilityzonepriority

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

// threeZones has one node per zone and two pods per node: pods 0 and 3 in
// zone-a, 1 and 4 in zone-b, 2 and 5 in zone-c.
func threeZones() *frameworktest.Cluster {
	return frameworktest.NewCluster(10).
		Node("n0", "zone-a").Node("n1", "zone-b").Node("n2", "zone-c").
		Pods("n0", "n1", "n2", "n0", "n1", "n2")
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
		{name: "unknown field", raw: `{"MaxSkew": 1, "Zones": 3}`, wantErr: `unknown field "Zones"`},
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
			// Zones a=3+1=4, b=2+1=3, c=2. From a: {3,3,2} skew 1 <= 1,
			// ceil(100*4/4) = 100. From b: {4,2,2} skew 2 > 1, from c:
			// {4,3,1} skew 3 > 1, while a keeps 1: both forbidden.
			name:       "fullest zone first, others forbidden by MaxSkew 1",
			cluster:    threeZones,
			placements: []vsched.Placement{p(0, 3), p(1, 2), p(2, 2), p(3, 1), p(4, 1)},
			maxSkew:    1,
			want:       map[int32]int64{0: 100, 1: 0, 2: 0, 3: 100, 4: 0},
		},
		{
			// As above with MaxSkew 2: b -> skew 2 allowed,
			// ceil(100*3/4) = (300+3)/4 = 75; c -> skew 3 forbidden.
			name:       "proportional within MaxSkew 2",
			cluster:    threeZones,
			placements: []vsched.Placement{p(0, 3), p(1, 2), p(2, 2), p(3, 1), p(4, 1)},
			maxSkew:    2,
			want:       map[int32]int64{0: 100, 1: 75, 2: 0, 3: 100, 4: 75},
		},
		{
			// Zones a=2, b=1, c=0 (counted: it hosts candidates). From
			// a: {1,1,0} skew 1; from b: {2,0,0} skew 2 > 1: forbidden.
			name:       "a zone holding none counts as 0",
			cluster:    threeZones,
			placements: []vsched.Placement{p(0, 2), p(1, 1)},
			maxSkew:    1,
			want:       map[int32]int64{0: 100, 1: 0},
		},
		{
			// Zones a=4, b=1, c=0: from a {3,1,0} skew 3 > 1, so
			// nothing keeps MaxSkew and nothing is forbidden:
			// a (fullest) 100, b max(1, 9*ceil(100*1/4)/100) = 9*25/100 = 2.
			name:       "already uneven: proportional only",
			cluster:    threeZones,
			placements: []vsched.Placement{p(0, 4), p(1, 1)},
			maxSkew:    1,
			want:       map[int32]int64{0: 100, 1: 2},
		},
		{
			// n2 is cordoned: zone-c hosts no candidate and is not
			// counted; pod 2 there scores MaxScore. Counted a=2, b=1:
			// from a {1,1} skew 0, 100; from b {2,0} skew 2 > 1,
			// forbidden. (Counting c's 5 would give a only 40.)
			name:       "pod in a cordoned zone first, zone not counted",
			cluster:    func() *frameworktest.Cluster { return threeZones().Cordon("n2") },
			placements: []vsched.Placement{p(0, 2), p(1, 1), p(2, 5)},
			maxSkew:    1,
			want:       map[int32]int64{0: 100, 1: 0, 2: 100},
		},
		{
			// Pod 0 drains: MaxScore. Its zone still hosts pod 3, and
			// zone a counts every vreplica there: a=1+2=3, b=1, c=0.
			// From a {2,1,0} skew 2 > 1 is the best there is, so
			// nothing is forbidden: pod 3 100, pod 1 9*ceil(100/3)/100 = 9*34/100 = 3.
			name:       "draining pod first in a counted zone",
			cluster:    func() *frameworktest.Cluster { return threeZones().Drain(0) },
			placements: []vsched.Placement{p(0, 1), p(1, 1), p(3, 2)},
			maxSkew:    1,
			want:       map[int32]int64{0: 100, 1: 3, 3: 100},
		},
		{
			// Pod 6 is on n3, which has no zone label while others
			// have: outside every counted zone, MaxScore. Pod 7 is
			// beyond the 7 replicas: MaxScore. Counted a=1, b=1, c=0:
			// any removal leaves skew 1, so a and b both score 100.
			name: "unzoned and unknown pods score MaxScore",
			cluster: func() *frameworktest.Cluster {
				return threeZones().Node("n3", "").Pods("n3")
			},
			placements: []vsched.Placement{p(0, 1), p(1, 1), p(6, 3), p(7, 2)},
			maxSkew:    1,
			want:       map[int32]int64{0: 100, 1: 100, 6: 100, 7: 100},
		},
		{
			// No node has a zone label: nothing to spread over, every
			// holder scores MaxScore.
			name: "no zones at all",
			cluster: func() *frameworktest.Cluster {
				return frameworktest.NewCluster(10).Node("n0", "").Node("n1", "").Pods("n0", "n1")
			},
			placements: []vsched.Placement{p(0, 5), p(1, 1)},
			maxSkew:    1,
			want:       map[int32]int64{0: 100, 1: 100},
		},
		{
			// Pod 4 holds none of the source: nothing to remove, 0.
			name:       "non-holder scores 0",
			cluster:    threeZones,
			placements: []vsched.Placement{p(1, 1)},
			maxSkew:    1,
			want:       map[int32]int64{1: 100, 4: 0},
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
			// a=2+2=4, b=1, c=1. Step 1: a scores 100 (nothing keeps
			// MaxSkew 1), b and c 25: pods 0 and 3 tie, pod 3 goes
			// (highest ordinal). Step 2: a=3, {2,1,1} keeps skew 1,
			// b and c forbidden: pod 3 again. Step 3: a=2, pod 0.
			name:       "heaviest zone first",
			cluster:    threeZones,
			placements: []vsched.Placement{p(0, 2), p(1, 1), p(2, 1), p(3, 2)},
			maxSkew:    1,
			n:          3,
			want: []vsched.Placement{
				at(0, 1, "n0", "zone-a"), at(1, 1, "n1", "zone-b"), at(2, 1, "n2", "zone-c"),
			},
			wantOrder: []int32{3, 3, 0},
		},
		{
			// zone-c is cordoned: pods 2 and 5 score MaxScore and empty
			// first (highest ordinal first), then the counted a=2, b=1
			// lose from a.
			name:       "cordoned zone empties first",
			cluster:    func() *frameworktest.Cluster { return threeZones().Cordon("n2") },
			placements: []vsched.Placement{p(0, 2), p(1, 1), p(2, 1), p(5, 1)},
			maxSkew:    1,
			n:          3,
			want: []vsched.Placement{
				at(0, 1, "n0", "zone-a"), at(1, 1, "n1", "zone-b"),
			},
			wantOrder: []int32{5, 2, 0},
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
