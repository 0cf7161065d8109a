package removewithhighestordinalpriority

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

// replicas is a cluster of r pods of capacity 10 on one node.
func replicas(r int) *frameworktest.Cluster {
	c := frameworktest.NewCluster(10).Node("n0", "zone-a")
	for i := 0; i < r; i++ {
		c.Pods("n0")
	}
	return c
}

func TestRegistration(t *testing.T) {
	reg := Spec.Registration()
	if reg.TakesArgs || reg.Modes != framework.ForRemove || reg.Kinds != framework.KindScore {
		t.Errorf("registration = %+v, want a descheduler score plugin without args", reg)
	}
	for _, raw := range []string{"", "{}", "null"} {
		if _, errs := reg.DecodeArgs([]byte(raw), field.NewPath("Args")); len(errs) > 0 {
			t.Errorf("DecodeArgs(%q): %v", raw, errs)
		}
	}
	if _, errs := reg.DecodeArgs([]byte(`{"MaxSkew": 1}`), field.NewPath("Args")); len(errs) != 1 || !strings.Contains(errs[0].Error(), `unknown field "MaxSkew"`) {
		t.Errorf("DecodeArgs with a field = %v, want one unknown-field error", errs)
	}
	r, err := framework.NewRegistry(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{Name, "HighestOrdinalPriority"} {
		got, ok := r.Lookup(name)
		if !ok || got.Name != Name {
			t.Errorf("Lookup(%q) = %q, %v; want %q", name, got.Name, ok, Name)
		}
	}
	pl, err := reg.New(context.Background(), &framework.NoArgs{})
	if err != nil || pl.Name() != Name {
		t.Errorf("New = %v, %v", pl, err)
	}
}

func TestScore(t *testing.T) {
	tests := []struct {
		name       string
		replicas   int
		placements []vsched.Placement
		want       map[int32]int64 // ordinal -> score
	}{
		{
			// R = 6: 100*o/5 = 20*o; ordinal 5 = R-1 is MaxScore.
			name:     "six replicas",
			replicas: 6,
			want:     map[int32]int64{0: 0, 1: 20, 2: 40, 3: 60, 4: 80, 5: 100},
		},
		{
			// R = 4: 100*1/3 = 33 and 100*2/3 = 66, rounded down.
			name:     "rounded down",
			replicas: 4,
			want:     map[int32]int64{0: 0, 1: 33, 2: 66, 3: 100},
		},
		{
			// R = 3: pods 3 and 7 are beyond the replicas (the
			// StatefulSet shrank from outside): clamped to MaxScore.
			name:       "beyond the replicas",
			replicas:   3,
			placements: []vsched.Placement{p(3, 1), p(7, 1)},
			want:       map[int32]int64{1: 50, 2: 100, 3: 100, 7: 100},
		},
		{
			// R = 1: nothing to prefer, MaxScore.
			name:     "one replica",
			replicas: 1,
			want:     map[int32]int64{0: 100},
		},
		{
			// R = 0: the StatefulSet is gone; what is left goes.
			name:       "no replicas",
			replicas:   0,
			placements: []vsched.Placement{p(0, 1), p(2, 1)},
			want:       map[int32]int64{0: 100, 2: 100},
		},
		{
			// R = 300: 100*1/299 = 0, 100*3/299 = 1, 100*298/299 = 99:
			// neighbours may share a score, never out of order.
			name:     "many replicas",
			replicas: 300,
			want:     map[int32]int64{0: 0, 1: 0, 2: 0, 3: 1, 150: 50, 298: 99, 299: 100},
		},
		{
			// A negative ordinal never comes from a pod name; 0.
			name:     "negative ordinal",
			replicas: 3,
			want:     map[int32]int64{-1: 0},
		},
	}
	pl := New()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := decide(t, replicas(tc.replicas), tc.placements...)
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

func TestScoreNeverDecreases(t *testing.T) {
	pl := New()
	for _, r := range []int{2, 3, 7, 101, 102, 500} {
		d := decide(t, replicas(r))
		prev := int64(-1)
		for ord := int32(0); ord < int32(r)+2; ord++ {
			sc, _ := pl.Score(context.Background(), d, ord)
			if sc < prev || sc < framework.MinScore || sc > framework.MaxScore {
				t.Fatalf("R=%d: Score(%d) = %d after %d", r, ord, sc, prev)
			}
			prev = sc
		}
	}
}

func TestRemove(t *testing.T) {
	// R = 5. Pod 6 is beyond the replicas: it scores 100 like pod 4, and
	// the tie goes to the higher ordinal, 6. Then pod 4 (100), pod 4
	// again, then pod 2 (100*2/4 = 50) before pod 0 (0).
	pl := New()
	profile, err := framework.NewProfile(framework.Remove, nil, []framework.WeightedScore{{Plugin: pl, Weight: 1}})
	if err != nil {
		t.Fatal(err)
	}
	d := decide(t, replicas(5), p(0, 2), p(2, 1), p(4, 2), p(6, 1))
	ex := &framework.Explanation{}
	res, err := profile.Run(context.Background(), d, 4, ex)
	if err != nil || res.Changed != 4 {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	want := []vsched.Placement{{PodName: "adapter-0", NodeName: "n0", ZoneName: "zone-a", VReplicas: 2}}
	if diff := cmp.Diff(want, d.Placements()); diff != "" {
		t.Errorf("placements (-want +got):\n%s", diff)
	}
	var order []int32
	for _, s := range ex.Steps {
		order = append(order, s.Winner)
	}
	if diff := cmp.Diff([]int32{6, 4, 4, 2}, order); diff != "" {
		t.Errorf("removal order (-want +got):\n%s", diff)
	}
}
