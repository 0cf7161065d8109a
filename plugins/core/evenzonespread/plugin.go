package evenzonespread

import (
	"context"
	"fmt"
	"strings"

	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/plugins/internal/spread"
)

// Spec registers EvenZoneSpread.
var Spec = framework.Spec[Args]{
	Name:     Name,
	Kinds:    framework.KindFilter,
	Modes:    framework.ForPlace,
	Defaults: SetDefaults,
	Validate: Validate,
	New:      framework.NewFunc(New),
}

// Plugin is EvenZoneSpread.
type Plugin struct {
	maxSkew int32
}

var (
	_ framework.FilterPlugin         = &Plugin{}
	_ framework.EquivalenceAware     = &Plugin{}
	_ framework.ZoneEquivalenceAware = &Plugin{}
	_ framework.ZoneSpreader         = &Plugin{}
	_ framework.ZoneRebalancer       = &Plugin{}
)

// New builds the plugin; nil args mean the defaults.
func New(_ context.Context, args *Args) (*Plugin, error) {
	a, err := framework.DefaultedArgs(Name, args, SetDefaults, Validate)
	if err != nil {
		return nil, err
	}
	return &Plugin{maxSkew: *a.MaxSkew}, nil
}

// Name implements framework.Plugin.
func (*Plugin) Name() string { return Name }

// EquivalentWithinClass implements framework.EquivalenceAware: the verdict
// depends only on the pod's zone.
func (*Plugin) EquivalentWithinClass() bool { return true }

// EquivalentWithinZone implements framework.ZoneEquivalenceAware: on the
// nodes the source does not use, what the plugin reads of a pod is its zone's
// and the source's counts, and of the pod itself what EquivalentWithinClass
// already orders.
func (*Plugin) EquivalentWithinZone() bool { return true }

// SpreadsOverZones implements framework.ZoneSpreader.
func (*Plugin) SpreadsOverZones() bool { return true }

// skewed is the rejection when its reasons will not be read.
var skewed = framework.NewStatus(framework.Unschedulable)

// Filter implements framework.FilterPlugin.
func (pl *Plugin) Filter(_ context.Context, d *framework.Decision, ordinal int32) *framework.Status {
	stats := d.ZoneSpreadStats()
	if stats.Domains == 0 {
		return nil
	}
	// PodDomains, not Cluster.Pod: the verdict needs the zone alone, and a
	// large source's step filters tens of candidates (issue 21).
	if _, zone, ok := d.PodDomains(ordinal); ok && zone >= 0 && spread.Allowed(stats, d.OnZone(zone), pl.maxSkew) {
		return nil
	}
	if !d.ReasonsWanted() {
		return skewed
	}
	c := d.Cluster()
	info, ok := c.Pod(ordinal)
	if !ok {
		return framework.NewStatus(framework.Unschedulable, fmt.Sprintf("pod with ordinal %d does not exist", ordinal))
	}
	if info.ZoneIndex < 0 {
		return framework.NewStatus(framework.Unschedulable, fmt.Sprintf(
			"pod %s is on node %q, which has no zone label; the source is spread over %d zones", info.Name, info.Node, stats.Domains))
	}
	on := d.OnZone(info.ZoneIndex)
	return framework.NewStatus(framework.Unschedulable, fmt.Sprintf(
		"zone %s holds %d of the source's vreplicas; one more would make the skew across zones %d, above MaxSkew %d (%s)",
		info.Zone, on, stats.SkewAfterAdd(on), pl.maxSkew, leastLoaded(d, stats)))
}

// Misplaced implements framework.Rebalancer. While the source's skew over
// the counted zones exceeds MaxSkew (a zone came back after its vreplicas
// went to the others), it names the highest ordinal holding the source in a
// most-loaded counted zone: taking from the top helps compaction, and Filter
// then admits only the least-loaded zones, so each move narrows the skew.
func (pl *Plugin) Misplaced(_ context.Context, d *framework.Decision) (int32, bool) {
	stats := d.ZoneSpreadStats()
	if stats.Domains < 2 || stats.Skew() <= pl.maxSkew {
		return -1, false
	}
	c := d.Cluster()
	counted := make([]bool, c.NumZones())
	for _, zones := range [][]int32{c.SchedulableZones(), c.GrowthZones()} {
		for _, z := range zones {
			if z >= 0 && int(z) < len(counted) {
				counted[z] = true
			}
		}
	}
	from := int32(-1)
	for _, ord := range d.Holders() {
		info, ok := c.Pod(ord)
		if !ok || info.ZoneIndex < 0 || int(info.ZoneIndex) >= len(counted) || !counted[info.ZoneIndex] {
			continue
		}
		if d.OnZone(info.ZoneIndex) == stats.Max {
			from = ord
		}
	}
	return from, from >= 0
}

// ZoneBalanced implements framework.ZoneRebalancer: Misplaced names a pod
// only while the skew over the counted zones, which it reads from the
// source's counts per zone alone, exceeds MaxSkew.
func (pl *Plugin) ZoneBalanced(c framework.Cluster, onZone []int32) bool {
	stats := framework.CountedZoneStats(c, onZone)
	return stats.Domains < 2 || stats.Skew() <= pl.maxSkew
}

// leastLoaded names the counted zones holding the fewest vreplicas, marking
// those still waiting for a scale-up's pods: what an operator needs to know
// when vreplicas stay pending.
func leastLoaded(d *framework.Decision, stats framework.DomainStats) string {
	c := d.Cluster()
	var names []string
	for _, z := range c.SchedulableZones() {
		switch {
		case d.OnZone(z) != stats.Min:
		case !d.ZoneHasRoom(z):
			// The rule is bound by this zone: the source cannot grow
			// until its pods have room.
			names = append(names, c.ZoneName(z)+" (full: it bounds the source)")
		default:
			names = append(names, c.ZoneName(z))
		}
	}
	for _, z := range c.GrowthZones() {
		if d.OnZone(z) == stats.Min {
			names = append(names, c.ZoneName(z)+" (no pod yet, a scale-up is in flight)")
		}
	}
	return fmt.Sprintf("fewest: %d, in %s", stats.Min, strings.Join(names, ", "))
}

// EquivalentHolders implements framework.HolderEquivalenceAware: the verdict reads the source's count
// in the pod's zone and the zones' summary, which one holder class shares.
func (*Plugin) EquivalentHolders() bool { return true }

var _ framework.FilterInputs = &Plugin{}

// FilterReads implements framework.FilterInputs: the verdict reads the
// source's count in the pod's zone.
func (*Plugin) FilterReads() framework.Scope { return framework.ScopeZone }

// FilterSummary implements framework.FilterInputs: whether any zone is
// counted and the highest count they allow in a zone (spread.Bound), all
// the verdict reads of them. With MaxSkew 1 the bound is the zones' Min,
// which moves once per round of the zones where their Min and Max
// together moved at two steps of three (issue 21).
func (pl *Plugin) FilterSummary(d *framework.Decision) framework.ScoreSummary {
	stats := d.ZoneSpreadStats()
	return framework.ScoreSummary{int64(min(stats.Domains, 1)), spread.Bound(stats, pl.maxSkew)}
}

var _ framework.SummaryFilter = &Plugin{}

// FilterSummarized implements framework.SummaryFilter: the verdict from
// the step's summary (whether a zone is counted, and the bound), without
// reading ZoneSpreadStats again.
func (pl *Plugin) FilterSummarized(ctx context.Context, d *framework.Decision, ordinal int32, sum framework.ScoreSummary) *framework.Status {
	if sum[0] == 0 {
		return nil
	}
	if _, zone, ok := d.PodDomains(ordinal); ok && zone >= 0 && int64(d.OnZone(zone)) <= sum[1] {
		return nil
	}
	if d.ReasonsWanted() {
		return pl.Filter(ctx, d, ordinal)
	}
	return skewed
}
