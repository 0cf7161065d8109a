package removewithhighestordinalpriority

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins/internal/plugintest"
)

var p = frameworktest.P

// replicas is a cluster of r pods of capacity 10 on one node.
func replicas(r int) *frameworktest.Cluster { return plugintest.OnOneNode(r, "zone-a") }

func TestRegistration(t *testing.T) {
	reg := Spec.Registration()
	plugintest.ExpectRegistration(t, reg, plugintest.Registered{Name: Name, Kinds: framework.KindScore, Modes: framework.ForRemove})
	plugintest.ExpectNoArgs(t, Spec, field.NewPath("Args"), `{"MaxSkew": 1}`,
		`Args: Invalid value: "{\"MaxSkew\": 1}": json: unknown field "MaxSkew"`,
		func(t *testing.T, pl framework.Plugin) {
			if pl.Name() != Name {
				t.Errorf("New built %q", pl.Name())
			}
		})
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
}

func TestScore(t *testing.T) {
	pl := New()
	tests := []plugintest.Scoring{
		{
			// R = 6: 100*o/5 = 20*o; ordinal 5 = R-1 is MaxScore.
			Name:    "six replicas",
			Cluster: replicas(6),
			Plugin:  pl,
			Src:     plugintest.Source(0),
			Want:    map[int32]int64{0: 0, 1: 20, 2: 40, 3: 60, 4: 80, 5: 100},
		},
		{
			// R = 4: 100*1/3 = 33 and 100*2/3 = 66, rounded down.
			Name:    "rounded down",
			Cluster: replicas(4),
			Plugin:  pl,
			Src:     plugintest.Source(0),
			Want:    map[int32]int64{0: 0, 1: 33, 2: 66, 3: 100},
		},
		{
			// R = 3: pods 3 and 7 are beyond the replicas (the
			// StatefulSet shrank from outside): clamped to MaxScore.
			Name:    "beyond the replicas",
			Cluster: replicas(3),
			Plugin:  pl,
			Src:     plugintest.Source(0, p(3, 1), p(7, 1)),
			Want:    map[int32]int64{1: 50, 2: 100, 3: 100, 7: 100},
		},
		{
			// R = 1: nothing to prefer, MaxScore.
			Name:    "one replica",
			Cluster: replicas(1),
			Plugin:  pl,
			Src:     plugintest.Source(0),
			Want:    map[int32]int64{0: 100},
		},
		{
			// R = 0: the StatefulSet is gone; what is left goes.
			Name:    "no replicas",
			Cluster: replicas(0),
			Plugin:  pl,
			Src:     plugintest.Source(0, p(0, 1), p(2, 1)),
			Want:    map[int32]int64{0: 100, 2: 100},
		},
		{
			// R = 300: 100*1/299 = 0, 100*3/299 = 1, 100*298/299 = 99:
			// neighbours may share a score, never out of order.
			Name:    "many replicas",
			Cluster: replicas(300),
			Plugin:  pl,
			Src:     plugintest.Source(0),
			Want:    map[int32]int64{0: 0, 1: 0, 2: 0, 3: 1, 150: 50, 298: 99, 299: 100},
		},
		{
			// A negative ordinal never comes from a pod name; 0.
			Name:    "negative ordinal",
			Cluster: replicas(3),
			Plugin:  pl,
			Src:     plugintest.Source(0),
			Want:    map[int32]int64{-1: 0},
		},
	}
	plugintest.ExpectRemovalScores(t, tests)
}

func TestScoreNeverDecreases(t *testing.T) {
	pl := New()
	for _, r := range []int{2, 3, 7, 101, 102, 500} {
		d := plugintest.DecideRemove(t, replicas(r), plugintest.Source(0))
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
	plugintest.ExpectRemoving(t, []plugintest.Removing{{
		Name:        "highest ordinals first",
		Cluster:     func() *frameworktest.Cluster { return replicas(5) },
		Src:         plugintest.Source(0, p(0, 2), p(2, 1), p(4, 2), p(6, 1)),
		Plugin:      New(),
		N:           4,
		WantChanged: 4,
		Want:        []vsched.Placement{{PodName: "adapter-0", NodeName: "n0", ZoneName: "zone-a", VReplicas: 2}},
		WantOrder:   []int32{6, 4, 4, 2},
	}})
}
