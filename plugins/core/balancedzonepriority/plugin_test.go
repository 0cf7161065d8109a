package balancedzonepriority

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
	"github.com/vsched/vsched/plugins/core/availabilityzonepriority"
	"github.com/vsched/vsched/plugins/core/evenzonespread"
	"github.com/vsched/vsched/plugins/core/lowestordinalpriority"
	"github.com/vsched/vsched/plugins/core/podfitsresources"
	"github.com/vsched/vsched/plugins/internal/plugintest"
)

// threeZones has pods 0, 3 in zone-a, 1, 4 in zone-b, 2, 5 in zone-c.
func threeZones() *frameworktest.Cluster {
	return frameworktest.NewCluster(10).Node("na", "zone-a").Node("nb", "zone-b").Node("nc", "zone-c").
		Pods("na", "nb", "nc", "na", "nb", "nc")
}

func TestScore(t *testing.T) {
	cases := []plugintest.Scoring{
		{
			Name:    "empty zones tie",
			Cluster: threeZones(),
			Src:     plugintest.Source(0),
			Plugin:  New(),
			Want:    map[int32]int64{0: 100, 1: 100, 2: 100, 3: 100, 4: 100, 5: 100},
		},
		{
			// free: a 20-12 = 8, b 20-4 = 16, c 20: 40, 80, 100
			Name:    "fuller zones score lower",
			Cluster: threeZones().Use(0, 10).Use(3, 2).Use(1, 4),
			Src:     plugintest.Source(0),
			Plugin:  New(),
			Want:    map[int32]int64{0: 40, 1: 80, 2: 100, 3: 40, 4: 80, 5: 100},
		},
		{
			// zone-a full: 0; the others 100
			Name:    "a full zone scores 0",
			Cluster: threeZones().Use(0, 10).Use(3, 10),
			Src:     plugintest.Source(0),
			Plugin:  New(),
			Want:    map[int32]int64{1: 100, 2: 100, 4: 100, 5: 100, 0: 0, 3: 0},
		},
		{
			// zone-c's node cordoned: its pods are no candidates and not
			// scored; free a 20, b 10.
			Name:    "only candidate pods count",
			Cluster: threeZones().Use(1, 10).Cordon("nc"),
			Src:     plugintest.Source(0),
			Plugin:  New(),
			Want:    map[int32]int64{0: 100, 1: 50, 3: 100, 4: 50},
		},
		{
			Name:    "every pod full",
			Cluster: threeZones().Use(0, 10).Use(1, 10).Use(2, 10).Use(3, 10).Use(4, 10).Use(5, 10),
			Src:     plugintest.Source(0),
			Plugin:  New(),
			Want:    map[int32]int64{0: 100, 1: 100, 2: 100, 3: 100, 4: 100, 5: 100},
		},
		{
			Name:    "no zones",
			Cluster: frameworktest.NewCluster(10).Node("n0", "").Pods("n0", "n0").Use(0, 5),
			Src:     plugintest.Source(0),
			Plugin:  New(),
			Want:    map[int32]int64{0: 100, 1: 100},
		},
		{
			// free: zone-a 10, the unzoned pod scores 0
			Name:    "a pod without a zone while zones exist",
			Cluster: frameworktest.NewCluster(10).Node("na", "zone-a").Node("nx", "").Pods("na", "nx"),
			Src:     plugintest.Source(0),
			Plugin:  New(),
			Want:    map[int32]int64{0: 100, 1: 0},
		},
	}
	plugintest.ExpectScores(t, cases)
}

func TestChangedTracksTheDecision(t *testing.T) {
	d := plugintest.Decide(t, threeZones().Use(1, 10), plugintest.Source(0))
	p := New()
	if st := p.Prepare(context.Background(), d); !st.IsSuccess() {
		t.Fatal(st)
	}
	// free a 20, b 10, c 20. Placing 15 on zone-a's pods leaves it 5.
	for i := 0; i < 15; i++ {
		p.Changed(d, int32(3*(i%2)), 1)
	}
	got := plugintest.Scores(t, p, d)
	// a 5, b 10, c 20: 25, 50, 100
	want := map[int32]int64{0: 25, 1: 50, 2: 100, 3: 25, 4: 50, 5: 100}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scores after changes (-want +got):\n%s", diff)
	}
	if s, _ := New().Score(context.Background(), plugintest.Decide(t, threeZones(), plugintest.Source(0)), 0); s != framework.MaxScore {
		t.Errorf("Score without Prepare = %d, want MaxScore", s)
	}
}

// Sources of 4 vreplicas under a hard zone spread: each has one vreplica
// more than the zones. With lowest ordinals alone every remainder goes to
// zone-a, which fills first; BalancedZonePriority sends each to the zone
// with the most room.
func TestProfileSpreadsRemainders(t *testing.T) {
	zone := plugintest.Build(t, availabilityzonepriority.New, nil)
	spread := plugintest.Build(t, evenzonespread.New, nil)
	build := func(t *testing.T, balanced bool) *framework.Profile {
		scores := []framework.WeightedScore{{Plugin: zone, Weight: 10}, {Plugin: lowestordinalpriority.New(), Weight: 2}}
		if balanced {
			scores = append(scores, framework.WeightedScore{Plugin: New(), Weight: 4})
		}
		return plugintest.GroupedProfile(t, []framework.FilterPlugin{podfitsresources.New(), spread}, scores)
	}
	cases := []struct {
		name     string
		balanced bool
		// the most minus the fewest vreplicas in a zone after 6 sources
		minGap, maxGap int32
	}{
		// Remainders pile into zone-a until its first pod is full.
		{name: "lowest ordinal alone", balanced: false, minGap: 4, maxGap: 6},
		{name: "balanced zones", balanced: true, minGap: 0, maxGap: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prof := build(t, tc.balanced)
			c := threeZones()
			got := map[string]int32{}
			for i := 0; i < 6; i++ {
				src := frameworktest.NewVPod("ns", string(rune('a'+i)), 4)
				res, placed := plugintest.Run(t, func() *frameworktest.Cluster {
					cl := threeZones()
					for ord := int32(0); ord < 6; ord++ {
						free := c.Free(ord)
						cl.Use(ord, 10-free)
					}
					return cl
				}, src, prof, 4)
				if res.Changed != 4 {
					t.Fatalf("source %d: placed %d of 4 (%s)", i, res.Changed, res.Reason)
				}
				c.UsePlacements(placed)
				for _, p := range placed {
					got[p.ZoneName] += p.VReplicas
				}
			}
			lo, hi := got["zone-a"], got["zone-a"]
			for _, v := range got {
				lo, hi = min(lo, v), max(hi, v)
			}
			if len(got) != 3 || hi-lo < tc.minGap || hi-lo > tc.maxGap {
				t.Errorf("vreplicas per zone %v: gap %d, want between %d and %d", got, hi-lo, tc.minGap, tc.maxGap)
			}
		})
	}
}
