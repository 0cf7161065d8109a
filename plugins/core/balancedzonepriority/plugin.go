package balancedzonepriority

import (
	"context"

	"github.com/vsched/vsched/framework"
)

// Spec registers BalancedZonePriority. It takes no args.
var Spec = framework.Spec[framework.NoArgs]{
	Name:  Name,
	Kinds: framework.KindScore,
	Modes: framework.ForPlace,
	New:   framework.NoArgsNewFunc(New),
}

// Plugin is BalancedZonePriority.
type Plugin struct{}

var (
	_ framework.ScorePlugin          = &Plugin{}
	_ framework.PreparePlugin        = &Plugin{}
	_ framework.ChangeObserver       = &Plugin{}
	_ framework.EquivalenceAware     = &Plugin{}
	_ framework.ZoneEquivalenceAware = &Plugin{}
)

// New returns the plugin.
func New() *Plugin { return &Plugin{} }

// Name implements framework.Plugin.
func (*Plugin) Name() string { return Name }

// EquivalentWithinClass implements framework.EquivalenceAware: the score
// depends only on the pod's zone.
func (*Plugin) EquivalentWithinClass() bool { return true }

// EquivalentWithinZone implements framework.ZoneEquivalenceAware: on the
// nodes the source does not use, what the plugin reads of a pod is its zone's
// and the source's counts, and of the pod itself what EquivalentWithinClass
// already orders.
func (*Plugin) EquivalentWithinZone() bool { return true }

const stateKey framework.StateKey = Name + "/zone-free"

// zoneFree is the free capacity of each zone's candidate pods, kept current
// through the decision's changes.
type zoneFree struct {
	free []int64
}

// Prepare implements framework.PreparePlugin: one pass over the candidates
// per decision, so that scoring a pod costs a lookup.
func (*Plugin) Prepare(_ context.Context, d *framework.Decision) *framework.Status {
	c := d.Cluster()
	zf := &zoneFree{free: make([]int64, c.NumZones())}
	if _, ok := d.ZoneFree(0); ok || len(zf.free) == 0 {
		// The cluster keeps the sums: no pass over the candidates.
		for z := range zf.free {
			zf.free[z], _ = d.ZoneFree(int32(z))
		}
		d.Store(stateKey, zf)
		return nil
	}
	for _, ord := range c.Candidates() {
		info, ok := c.Pod(ord)
		if !ok || info.ZoneIndex < 0 || int(info.ZoneIndex) >= len(zf.free) {
			continue
		}
		zf.free[info.ZoneIndex] += int64(max(0, d.Free(ord)))
	}
	d.Store(stateKey, zf)
	return nil
}

// Changed implements framework.ChangeObserver.
func (*Plugin) Changed(d *framework.Decision, ordinal int32, delta int32) {
	zf := load(d)
	if zf == nil {
		return
	}
	info, ok := d.Cluster().Pod(ordinal)
	if !ok || !info.Candidate || info.ZoneIndex < 0 || int(info.ZoneIndex) >= len(zf.free) {
		return
	}
	zf.free[info.ZoneIndex] -= int64(delta)
}

// Score implements framework.ScorePlugin.
func (*Plugin) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	zf := load(d)
	if zf == nil {
		return framework.MaxScore, nil
	}
	var most int64
	for _, f := range zf.free {
		most = max(most, f)
	}
	if most <= 0 {
		return framework.MaxScore, nil
	}
	// PodDomains, not Cluster.Pod: the score needs the zone alone.
	_, zone, ok := d.PodDomains(ordinal)
	if !ok || zone < 0 || int(zone) >= len(zf.free) {
		return framework.MinScore, nil
	}
	return max(0, zf.free[zone]) * framework.MaxScore / most, nil
}

func load(d *framework.Decision) *zoneFree {
	v, ok := d.Load(stateKey)
	if !ok {
		return nil
	}
	zf, _ := v.(*zoneFree)
	return zf
}

// EquivalentHolders implements framework.HolderEquivalenceAware: the score reads the pod's zone, which
// one holder class shares.
func (*Plugin) EquivalentHolders() bool { return true }

var _ framework.ScoreInputs = &Plugin{}

// ScoreReads implements framework.ScoreInputs: the score reads of a pod
// only its zone, and of the decision that zone's free capacity, which
// Changed keeps per zone, and the most free of any zone (ScoreSummary).
func (*Plugin) ScoreReads() (scope, reach framework.Scope) {
	return framework.ScopeZone, framework.ScopeZone
}

// ScoreSummary implements framework.ScoreInputs: whether the decision
// keeps the zones' free capacity, and the most free of any zone.
func (*Plugin) ScoreSummary(d *framework.Decision) framework.ScoreSummary {
	zf := load(d)
	if zf == nil {
		return framework.ScoreSummary{}
	}
	var most int64
	for _, f := range zf.free {
		most = max(most, f)
	}
	return framework.ScoreSummary{1, most}
}
