package removewithevenpodspreadpriority

import (
	"context"
	"fmt"
	"strings"
	"sync"
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

// oneNode is a cluster of pods pods of capacity 10 on one node.
func oneNode(pods int) *frameworktest.Cluster {
	c := frameworktest.NewCluster(10).Node("n0", "zone-a")
	for i := 0; i < pods; i++ {
		c.Pods("n0")
	}
	return c
}

func TestDecodeArgs(t *testing.T) {
	reg := Spec.Registration()
	tests := []struct {
		name    string
		raw     string
		want    *Args
		wantErr []string
	}{
		{name: "empty defaults MaxSkew to 1", raw: "", want: &Args{MaxSkew: skew(1)}},
		{name: "empty object defaults MaxSkew to 1", raw: "{}", want: &Args{MaxSkew: skew(1)}},
		{name: "seed example", raw: `{"MaxSkew": 2}`, want: &Args{MaxSkew: skew(2)}},
		{name: "field names match case-sensitively", raw: `{"maxSkew": 3}`, wantErr: []string{`unknown field "maxSkew" (did you mean "MaxSkew"?)`}},
		{name: "MaxSkew 0 is rejected, not defaulted", raw: `{"MaxSkew": 0}`,
			wantErr: []string{"Args.MaxSkew: Invalid value: 0: must be at least 1"}},
		{name: "negative MaxSkew", raw: `{"MaxSkew": -2}`,
			wantErr: []string{"Args.MaxSkew: Invalid value: -2: must be at least 1"}},
		{name: "unknown field", raw: `{"MaxSkw": 2}`, wantErr: []string{`unknown field "MaxSkw"`}},
		{name: "wrong type", raw: `{"MaxSkew": "2"}`, wantErr: []string{"MaxSkew"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, errs := reg.DecodeArgs([]byte(tc.raw), field.NewPath("Args"))
			if len(tc.wantErr) > 0 {
				if len(errs) != len(tc.wantErr) {
					t.Fatalf("errors = %v, want %d containing %q", errs, len(tc.wantErr), tc.wantErr)
				}
				for i, e := range errs {
					if !strings.Contains(e.Error(), tc.wantErr[i]) {
						t.Errorf("error %d = %q, want it to contain %q", i, e.Error(), tc.wantErr[i])
					}
					if e.Field != "Args" && !strings.HasPrefix(e.Field, "Args.") {
						t.Errorf("error %d is under %q, want Args or below", i, e.Field)
					}
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
	args := &Args{}
	if _, err := New(context.Background(), args); err != nil || args.MaxSkew != nil {
		t.Errorf("New modified its args (%+v) or failed: %v", args, err)
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
			// Holders {3,2,2}, Max 3. From pod 0: {2,2,2} skew 0 <= 1,
			// ceil(100*3/3) = 100. From pod 1 or 2: {3,1,2} skew 2 > 1
			// while pod 0 keeps 0: forbidden, 0.
			name:       "fullest pod first, others forbidden by MaxSkew 1",
			cluster:    func() *frameworktest.Cluster { return oneNode(3) },
			placements: []vsched.Placement{p(0, 3), p(1, 2), p(2, 2)},
			maxSkew:    1,
			want:       map[int32]int64{0: 100, 1: 0, 2: 0},
		},
		{
			// As above with MaxSkew 2: {3,1,2} skew 2 <= 2 is allowed,
			// 100 - 50*(3-2)/2 = 75.
			name:       "proportional within MaxSkew 2",
			cluster:    func() *frameworktest.Cluster { return oneNode(3) },
			placements: []vsched.Placement{p(0, 3), p(1, 2), p(2, 2)},
			maxSkew:    2,
			want:       map[int32]int64{0: 100, 1: 75, 2: 75},
		},
		{
			// Emptying pod 1 counts it as 0: {3,0} skew 3 > 2, while
			// pod 0 gives {2,1} skew 1: forbidden.
			name:       "emptying a pod counts it as 0",
			cluster:    func() *frameworktest.Cluster { return oneNode(2) },
			placements: []vsched.Placement{p(0, 3), p(1, 1)},
			maxSkew:    2,
			want:       map[int32]int64{0: 100, 1: 0},
		},
		{
			// Emptying pod 1: {2,0} skew 2 <= 2: 100 - 50*(2-1)/2 = 75.
			name:       "emptying a pod within MaxSkew",
			cluster:    func() *frameworktest.Cluster { return oneNode(2) },
			placements: []vsched.Placement{p(0, 2), p(1, 1)},
			maxSkew:    2,
			want:       map[int32]int64{0: 100, 1: 75},
		},
		{
			// Pods 2 and 3 are empty candidates with free capacity but
			// are not counted. Holders {3,2}: from pod 1 {3,1} skew 2
			// > 1 while pod 0 gives {2,2}: forbidden. (Counting the
			// empty pods as 0 would pin the minimum at 0, make every
			// removal leave skew >= 2 and forbid nothing.)
			name:       "empty candidates do not pin the minimum",
			cluster:    func() *frameworktest.Cluster { return oneNode(4) },
			placements: []vsched.Placement{p(0, 3), p(1, 2)},
			maxSkew:    1,
			want:       map[int32]int64{0: 100, 1: 0},
		},
		{
			// Holders {5,1}: every removal leaves skew >= 3 > 1, so
			// nothing is forbidden: pod 0 (fullest) 100, pod 1
			// max(1, 9*ceil(100/5)/100) = max(1, 1) = 1.
			name:       "already uneven: proportional only",
			cluster:    func() *frameworktest.Cluster { return oneNode(2) },
			placements: []vsched.Placement{p(0, 5), p(1, 1)},
			maxSkew:    1,
			want:       map[int32]int64{0: 100, 1: 1},
		},
		{
			// Pod 2 drains: MaxScore, and not counted. Available
			// holders {2,1}: pod 0 -> {1,1} skew 0, 100; pod 1 -> {2,0}
			// skew 2 > 1, forbidden. (Counting pod 2's 5 would give
			// pod 0 only ceil(200/5) = 40.)
			name:       "draining holder first and not counted",
			cluster:    func() *frameworktest.Cluster { return oneNode(3).Drain(2) },
			placements: []vsched.Placement{p(0, 2), p(1, 1), p(2, 5)},
			maxSkew:    1,
			want:       map[int32]int64{0: 100, 1: 0, 2: 100},
		},
		{
			// Pod 1 is on cordoned n1, pod 2 is unbound, pod 7 is beyond
			// the 3 replicas: all MaxScore. Pod 0 is the only available
			// holder: {1} -> {0}, skew 0, 100.
			name: "unavailable holders score MaxScore",
			cluster: func() *frameworktest.Cluster {
				return frameworktest.NewCluster(10).Node("n0", "zone-a").Node("n1", "zone-a").
					Pods("n0", "n1", "").Cordon("n1")
			},
			placements: []vsched.Placement{p(0, 1), p(1, 4), p(2, 2), p(7, 3)},
			maxSkew:    1,
			want:       map[int32]int64{0: 100, 1: 100, 2: 100, 7: 100},
		},
		{
			// Holders {1000,1}, MaxSkew 1000: from pod 1 {1000,0} skew
			// 1000 is allowed: 100 - 50*(1000-1)/1000 = 51.
			name:       "a tiny share still scores above a forbidden removal",
			cluster:    func() *frameworktest.Cluster { return frameworktest.NewCluster(2000).Node("n0", "").Pods("n0", "n0") },
			placements: []vsched.Placement{p(0, 1000), p(1, 1)},
			maxSkew:    1000,
			want:       map[int32]int64{0: 100, 1: 51},
		},
		{
			// Pod 1 holds none of the source: nothing to remove, 0.
			name:       "non-holder scores 0",
			cluster:    func() *frameworktest.Cluster { return oneNode(2) },
			placements: []vsched.Placement{p(0, 1)},
			maxSkew:    1,
			want:       map[int32]int64{0: 100, 1: 0},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := New(context.Background(), &Args{MaxSkew: &tc.maxSkew})
			if err != nil {
				t.Fatal(err)
			}
			for _, prepared := range []bool{false, true} {
				d := decide(t, tc.cluster(), tc.placements...)
				if prepared {
					if st := pl.Prepare(context.Background(), d); !st.IsSuccess() {
						t.Fatalf("Prepare: %v", st)
					}
				}
				got := map[int32]int64{}
				for ord := range tc.want {
					sc, st := pl.Score(context.Background(), d, ord)
					if !st.IsSuccess() {
						t.Fatalf("Score(%d): %v", ord, st)
					}
					got[ord] = sc
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("scores, prepared %v (-want +got):\n%s", prepared, diff)
				}
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
		changed    int32
	}{
		{
			// {1,3,2,2}: only pod 1 keeps skew <= 1 -> {1,2,2,2}.
			// Pods 1-3 tie at 100 (skew 1), pod 1 is forbidden
			// (2-0 > 1): highest ordinal, pod 3 -> {1,2,2,1}, then
			// pod 2 -> {1,2,1,1}, pod 1 -> {1,1,1,1}. All equal: pods
			// 3 then 2 go.
			name:       "evens out, ties to the highest ordinal",
			cluster:    func() *frameworktest.Cluster { return oneNode(4) },
			placements: []vsched.Placement{p(0, 1), p(1, 3), p(2, 2), p(3, 2)},
			maxSkew:    1,
			n:          6,
			want:       []vsched.Placement{at(0, 1, "n0", "zone-a"), at(1, 1, "n0", "zone-a")},
			wantOrder:  []int32{1, 3, 2, 1, 3, 2},
			changed:    6,
		},
		{
			// Draining pod 2 scores MaxScore while it holds anything:
			// it empties first, then pod 0 (3 vs 1) goes.
			name:       "draining pod empties first",
			cluster:    func() *frameworktest.Cluster { return oneNode(3).Drain(2) },
			placements: []vsched.Placement{p(0, 3), p(1, 1), p(2, 2)},
			maxSkew:    1,
			n:          3,
			want:       []vsched.Placement{at(0, 2, "n0", "zone-a"), at(1, 1, "n0", "zone-a")},
			wantOrder:  []int32{2, 2, 0},
			changed:    3,
		},
		{
			// Asking for more than the source holds stops when it holds
			// nothing.
			name:       "more than held",
			cluster:    func() *frameworktest.Cluster { return oneNode(2) },
			placements: []vsched.Placement{p(0, 1), p(1, 1)},
			maxSkew:    1,
			n:          5,
			want:       []vsched.Placement{},
			wantOrder:  []int32{1, 0, -1},
			changed:    2,
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
			for _, explain := range []bool{false, true} {
				d := decide(t, tc.cluster(), tc.placements...)
				var ex *framework.Explanation
				if explain {
					ex = &framework.Explanation{}
				}
				res, err := profile.Run(context.Background(), d, tc.n, ex)
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				if res.Changed != tc.changed {
					t.Errorf("removed %d, want %d (%s)", res.Changed, tc.changed, res.Reason)
				}
				if diff := cmp.Diff(tc.want, d.Placements()); diff != "" {
					t.Errorf("placements, explain %v (-want +got):\n%s", explain, diff)
				}
				if ex != nil {
					var order []int32
					for _, s := range ex.Steps {
						order = append(order, s.Winner)
					}
					if diff := cmp.Diff(tc.wantOrder, order); diff != "" {
						t.Errorf("removal order (-want +got):\n%s", diff)
					}
				}
			}
		})
	}
}

// TestChangedWithoutPrepare covers a decision the plugin never prepared: the
// observer has nothing to update and Score counts afresh.
func TestChangedWithoutPrepare(t *testing.T) {
	pl, _ := New(context.Background(), nil)
	d := decide(t, oneNode(2), p(0, 2), p(1, 1))
	pl.Changed(d, 0, -1)
	if sc, _ := pl.Score(context.Background(), d, 0); sc != 100 {
		t.Errorf("Score(0) = %d, want 100", sc)
	}
}

// TestConcurrentDecisions runs one profile over many decisions at once; the
// race detector checks that the plugin keeps no per-decision state.
func TestConcurrentDecisions(t *testing.T) {
	pl, _ := New(context.Background(), &Args{MaxSkew: skew(1)})
	profile, err := framework.NewProfile(framework.Remove, nil, []framework.WeightedScore{{Plugin: pl, Weight: 1}})
	if err != nil {
		t.Fatal(err)
	}
	want := []vsched.Placement{at(0, 1, "n0", "zone-a"), at(1, 1, "n0", "zone-a"), at(2, 1, "n0", "zone-a")}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		d := decide(t, oneNode(4), p(0, 4), p(1, 1), p(2, 3), p(3, 1))
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := profile.Run(context.Background(), d, 6, nil); err != nil {
				errs <- err
				return
			}
			if diff := cmp.Diff(want, d.Placements()); diff != "" {
				errs <- fmt.Errorf("placements (-want +got):\n%s", diff)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
