package removewithevenpodspreadpriority

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins/internal/plugintest"
)

var p = frameworktest.P

func mustNew(t *testing.T, maxSkew int32) *Plugin {
	return plugintest.Build(t, New, &Args{MaxSkew: &maxSkew})
}

// oneNode is a cluster of pods pods of capacity 10 on one node.
func oneNode(pods int) *frameworktest.Cluster { return plugintest.OnOneNode(pods, "zone-a") }

func TestArgs(t *testing.T) {
	plugintest.ExpectRegistration(t, Spec.Registration(), plugintest.Registered{
		Name: Name, Kinds: framework.KindScore, Modes: framework.ForRemove, TakesArgs: true,
	})
	plugintest.ExpectMaxSkewArgs(t, Spec, New, field.NewPath("Args"),
		func(p *Plugin) int32 { return p.maxSkew })
}

func TestNew(t *testing.T) {
	if pl := plugintest.Build(t, New, nil); pl.Name() != Name {
		t.Errorf("New(nil) = %+v named %q", pl, pl.Name())
	}
	args := &Args{}
	if _, err := New(context.Background(), args); err != nil || args.MaxSkew != nil {
		t.Errorf("New modified its args (%+v) or failed: %v", args, err)
	}
}

func TestScore(t *testing.T) {
	tests := []plugintest.Scoring{
		{
			// Holders {3,2,2}, Max 3. From pod 0: {2,2,2} skew 0 <= 1,
			// ceil(100*3/3) = 100. From pod 1 or 2: {3,1,2} skew 2 > 1
			// while pod 0 keeps 0: forbidden, 0.
			Name:    "fullest pod first, others forbidden by MaxSkew 1",
			Cluster: oneNode(3),
			Src:     plugintest.Source(0, p(0, 3), p(1, 2), p(2, 2)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 0, 2: 0},
		},
		{
			// As above with MaxSkew 2: {3,1,2} skew 2 <= 2 is allowed,
			// 100 - 50*(3-2)/2 = 75.
			Name:    "proportional within MaxSkew 2",
			Cluster: oneNode(3),
			Src:     plugintest.Source(0, p(0, 3), p(1, 2), p(2, 2)),
			Plugin:  mustNew(t, 2),
			Want:    map[int32]int64{0: 100, 1: 75, 2: 75},
		},
		{
			// Emptying pod 1 counts it as 0: {3,0} skew 3 > 2, while
			// pod 0 gives {2,1} skew 1: forbidden.
			Name:    "emptying a pod counts it as 0",
			Cluster: oneNode(2),
			Src:     plugintest.Source(0, p(0, 3), p(1, 1)),
			Plugin:  mustNew(t, 2),
			Want:    map[int32]int64{0: 100, 1: 0},
		},
		{
			// Emptying pod 1: {2,0} skew 2 <= 2: 100 - 50*(2-1)/2 = 75.
			Name:    "emptying a pod within MaxSkew",
			Cluster: oneNode(2),
			Src:     plugintest.Source(0, p(0, 2), p(1, 1)),
			Plugin:  mustNew(t, 2),
			Want:    map[int32]int64{0: 100, 1: 75},
		},
		{
			// Pods 2 and 3 are empty candidates with free capacity but
			// are not counted. Holders {3,2}: from pod 1 {3,1} skew 2
			// > 1 while pod 0 gives {2,2}: forbidden. (Counting the
			// empty pods as 0 would pin the minimum at 0, make every
			// removal leave skew >= 2 and forbid nothing.)
			Name:    "empty candidates do not pin the minimum",
			Cluster: oneNode(4),
			Src:     plugintest.Source(0, p(0, 3), p(1, 2)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 0},
		},
		{
			// Holders {5,1}: every removal leaves skew >= 3 > 1, so
			// nothing is forbidden: pod 0 (fullest) 100, pod 1
			// max(1, 9*ceil(100/5)/100) = max(1, 1) = 1.
			Name:    "already uneven: proportional only",
			Cluster: oneNode(2),
			Src:     plugintest.Source(0, p(0, 5), p(1, 1)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 1},
		},
		{
			// Pod 2 drains: MaxScore, and not counted. Available
			// holders {2,1}: pod 0 -> {1,1} skew 0, 100; pod 1 -> {2,0}
			// skew 2 > 1, forbidden. (Counting pod 2's 5 would give
			// pod 0 only ceil(200/5) = 40.)
			Name:    "draining holder first and not counted",
			Cluster: oneNode(3).Drain(2),
			Src:     plugintest.Source(0, p(0, 2), p(1, 1), p(2, 5)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 0, 2: 100},
		},
		{
			// Pod 1 is on cordoned n1, pod 2 is unbound, pod 7 is beyond
			// the 3 replicas: all MaxScore. Pod 0 is the only available
			// holder: {1} -> {0}, skew 0, 100.
			Name: "unavailable holders score MaxScore",
			Cluster: frameworktest.NewCluster(10).Node("n0", "zone-a").Node("n1", "zone-a").
				Pods("n0", "n1", "").Cordon("n1"),
			Src:    plugintest.Source(0, p(0, 1), p(1, 4), p(2, 2), p(7, 3)),
			Plugin: mustNew(t, 1),
			Want:   map[int32]int64{0: 100, 1: 100, 2: 100, 7: 100},
		},
		{
			// Holders {1000,1}, MaxSkew 1000: from pod 1 {1000,0} skew
			// 1000 is allowed: 100 - 50*(1000-1)/1000 = 51.
			Name:    "a tiny share still scores above a forbidden removal",
			Cluster: frameworktest.NewCluster(2000).Node("n0", "").Pods("n0", "n0"),
			Src:     plugintest.Source(0, p(0, 1000), p(1, 1)),
			Plugin:  mustNew(t, 1000),
			Want:    map[int32]int64{0: 100, 1: 51},
		},
		{
			// Pod 1 holds none of the source: nothing to remove, 0.
			Name:    "non-holder scores 0",
			Cluster: oneNode(2),
			Src:     plugintest.Source(0, p(0, 1)),
			Plugin:  mustNew(t, 1),
			Want:    map[int32]int64{0: 100, 1: 0},
		},
	}
	plugintest.ExpectRemovalScores(t, tests)
}

func TestRemove(t *testing.T) {
	tests := []plugintest.Removing{
		{
			// {1,3,2,2}: only pod 1 keeps skew <= 1 -> {1,2,2,2}.
			// Pods 1-3 tie at 100 (skew 1), pod 1 is forbidden
			// (2-0 > 1): highest ordinal, pod 3 -> {1,2,2,1}, then
			// pod 2 -> {1,2,1,1}, pod 1 -> {1,1,1,1}. All equal: pods
			// 3 then 2 go.
			Name:        "evens out, ties to the highest ordinal",
			Cluster:     func() *frameworktest.Cluster { return oneNode(4) },
			Src:         plugintest.Source(0, p(0, 1), p(1, 3), p(2, 2), p(3, 2)),
			Plugin:      mustNew(t, 1),
			N:           6,
			Want:        []vsched.Placement{plugintest.At(0, 1, "n0", "zone-a"), plugintest.At(1, 1, "n0", "zone-a")},
			WantOrder:   []int32{1, 3, 2, 1, 3, 2},
			WantChanged: 6,
		},
		{
			// Draining pod 2 scores MaxScore while it holds anything:
			// it empties first, then pod 0 (3 vs 1) goes.
			Name:        "draining pod empties first",
			Cluster:     func() *frameworktest.Cluster { return oneNode(3).Drain(2) },
			Src:         plugintest.Source(0, p(0, 3), p(1, 1), p(2, 2)),
			Plugin:      mustNew(t, 1),
			N:           3,
			Want:        []vsched.Placement{plugintest.At(0, 2, "n0", "zone-a"), plugintest.At(1, 1, "n0", "zone-a")},
			WantOrder:   []int32{2, 2, 0},
			WantChanged: 3,
		},
		{
			// Asking for more than the source holds stops when it holds
			// nothing.
			Name:        "more than held",
			Cluster:     func() *frameworktest.Cluster { return oneNode(2) },
			Src:         plugintest.Source(0, p(0, 1), p(1, 1)),
			Plugin:      mustNew(t, 1),
			N:           5,
			Want:        []vsched.Placement{},
			WantOrder:   []int32{1, 0, -1},
			WantChanged: 2,
		},
	}
	plugintest.ExpectRemoving(t, tests)
}

// TestChangedWithoutPrepare covers a decision the plugin never prepared: the
// observer has nothing to update and Score counts afresh.
func TestChangedWithoutPrepare(t *testing.T) {
	pl := plugintest.Build(t, New, nil)
	d := plugintest.DecideRemove(t, oneNode(2), plugintest.Source(0, p(0, 2), p(1, 1)))
	pl.Changed(d, 0, -1)
	if sc, _ := pl.Score(context.Background(), d, 0); sc != 100 {
		t.Errorf("Score(0) = %d, want 100", sc)
	}
}

// TestConcurrentDecisions runs one profile over many decisions at once; the
// race detector checks that the plugin keeps no per-decision state.
func TestConcurrentDecisions(t *testing.T) {
	profile := plugintest.Profile(t, framework.Remove, nil, []framework.WeightedScore{{Plugin: mustNew(t, 1), Weight: 1}})
	want := []vsched.Placement{plugintest.At(0, 1, "n0", "zone-a"), plugintest.At(1, 1, "n0", "zone-a"), plugintest.At(2, 1, "n0", "zone-a")}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		d := plugintest.DecideRemove(t, oneNode(4), plugintest.Source(0, p(0, 4), p(1, 1), p(2, 3), p(3, 1)))
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
