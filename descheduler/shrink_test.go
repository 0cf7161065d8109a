package descheduler

import (
	"context"
	"testing"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins"
)

// sixPods has two pods per zone, each on a node of its own: 0,3 in
// zone-a; 1,4 in zone-b; 2,5 in zone-c.
func sixPods() *frameworktest.Cluster {
	nodes := []string{"a1", "b1", "c1", "a2", "b2", "c2"}
	c := frameworktest.NewCluster(10)
	for _, n := range nodes {
		c.Node(n, "zone-"+n[:1])
	}
	return c.Pods(nodes...)
}

// profiles builds the in-tree profiles from a config-scheduler's data; nil
// is the default policy.
func profiles(t *testing.T, sched map[string]string) *config.Profiles {
	t.Helper()
	reg, err := plugins.NewInTreeRegistry()
	var sc *config.PlaceConfig
	if err == nil {
		sc, err = config.ParsePlaceConfigMapFromData(sched, reg)
	}
	var ps *config.Profiles
	if err == nil {
		ps, err = config.BuildProfiles(context.Background(), reg, sc, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// The default descheduler profile takes from the fullest zone, node and
// pod first, then from the highest ordinal.
func TestShrink(t *testing.T) {
	p := frameworktest.P
	remove := profiles(t, nil).Remove
	tests := []struct {
		name string
		kept []vsched.Placement
		n    int32
		want string
	}{
		{name: "nothing to remove", kept: []vsched.Placement{p(0, 1), p(1, 1), p(2, 1)}, n: 0, want: "0:1 1:1 2:1"},
		{name: "even: the highest ordinal goes", kept: []vsched.Placement{p(0, 1), p(1, 1), p(2, 1)}, n: 1, want: "0:1 1:1"},
		{name: "even: down to one pod", kept: []vsched.Placement{p(0, 1), p(1, 1), p(2, 1)}, n: 2, want: "0:1"},
		{name: "to nothing", kept: []vsched.Placement{p(0, 1), p(1, 1), p(2, 1)}, n: 3, want: ""},
		// zone-a holds 3 (pods 0 and 3), zone-b and zone-c 1 each: the
		// fullest pod of the fullest zone goes first, although pod 5
		// has the highest ordinal.
		{name: "the fullest zone first", kept: []vsched.Placement{p(0, 2), p(3, 1), p(4, 1), p(5, 1)}, n: 1, want: "0:1 3:1 4:1 5:1"},
		{name: "then back to even zones", kept: []vsched.Placement{p(0, 2), p(3, 1), p(4, 1), p(5, 1)}, n: 2, want: "0:1 4:1 5:1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := sixPods().UsePlacements(tc.kept)
			vpod := frameworktest.NewVPod("ns", "src", vsched.TotalVReplicas(tc.kept)-tc.n, tc.kept...)
			before := short(tc.kept)
			got, reason, err := Shrink(context.Background(), remove, c, vpod, tc.kept, tc.n, nil)
			if err != nil {
				t.Fatal(err)
			}
			if short(got) != tc.want || reason != "" {
				t.Errorf("Shrink = [%s] %q, want [%s] and no reason", short(got), reason, tc.want)
			}
			if short(tc.kept) != before {
				t.Errorf("kept modified: [%s], was [%s]", short(tc.kept), before)
			}
		})
	}
}

// Shrink explains each removal into the Explanation given.
func TestShrinkExplains(t *testing.T) {
	p := frameworktest.P
	kept := []vsched.Placement{p(0, 1), p(1, 1), p(2, 1)}
	var ex framework.Explanation
	_, _, err := Shrink(context.Background(), profiles(t, nil).Remove, sixPods().UsePlacements(kept), frameworktest.NewVPod("ns", "src", 1, kept...), kept, 2, &ex)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Mode != framework.Remove || len(ex.Steps) != 2 || ex.Steps[0].Winner != 2 || ex.Steps[1].Winner != 1 {
		t.Errorf("explanation: mode %s, steps %+v; want remove, winners 2 then 1", ex.Mode, ex.Steps)
	}
}

// Shrink and Rebalance refuse what no decision can start from, and
// Shrink a removal outside what is kept.
func TestRefuses(t *testing.T) {
	p := frameworktest.P
	ps, zoned := profiles(t, nil), profiles(t, zoneHard)
	kept := []vsched.Placement{p(0, 1), p(1, 2)}
	c := sixPods().UsePlacements(kept)
	vpod := frameworktest.NewVPod("ns", "src", 1, kept...)
	shrink := func(remove *framework.Profile, c framework.Cluster, vpod vsched.VPod, kept []vsched.Placement, n int32) func() error {
		return func() error {
			got, _, err := Shrink(context.Background(), remove, c, vpod, kept, n, nil)
			if got != nil {
				t.Errorf("placements %v with the error", got)
			}
			return err
		}
	}
	rebalance := func(place *framework.Profile, c framework.Cluster, vpod vsched.VPod) func() error {
		return func() error {
			got, err := Rebalance(context.Background(), place, c, vpod, kept, 1)
			if got.Placements != nil {
				t.Errorf("placements %v with the error", got.Placements)
			}
			return err
		}
	}
	tests := []struct {
		name    string
		call    func() error
		wantErr string
	}{
		{"shrink: negative n", shrink(ps.Remove, c, vpod, kept, -1), "descheduler: cannot remove -1 vreplica(s) from 3 kept"},
		{"shrink: more than kept", shrink(ps.Remove, c, vpod, kept, 4), "descheduler: cannot remove 4 vreplica(s) from 3 kept"},
		{"shrink: no profile", shrink(nil, c, vpod, kept, 1), "descheduler: no remove profile"},
		{"shrink: a scheduler profile", shrink(ps.Place, c, vpod, kept, 1), "descheduler: a place profile given where a remove profile is needed"},
		{"shrink: no cluster", shrink(ps.Remove, nil, vpod, kept, 1), "descheduler: no cluster"},
		{"shrink: no source", shrink(ps.Remove, c, nil, kept, 1), "descheduler: nil source"},
		{"shrink: a pod twice", shrink(ps.Remove, c, vpod, append(kept, p(0, 1)), 1), `ns/src: placements[2]: pod "adapter-0" is listed twice`},
		{"rebalance: no profile", rebalance(nil, c, vpod), "descheduler: no place profile"},
		{"rebalance: a descheduler profile", rebalance(zoned.Remove, c, vpod), "descheduler: a remove profile given where a place profile is needed"},
		{"rebalance: no cluster", rebalance(zoned.Place, nil, vpod), "descheduler: no cluster"},
		{"rebalance: no source", rebalance(zoned.Place, c, nil), "descheduler: nil source"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); err == nil || err.Error() != tc.wantErr {
				t.Errorf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}
