package balancedcostpriority

import (
	"context"
	"math"
	"math/bits"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
)

// Plugin is the BalancedCostPriority score plugin. It is stateless and
// safe for concurrent decisions.
type Plugin struct{}

var _ framework.ScorePlugin = &Plugin{}

// New returns the plugin.
func New() *Plugin { return &Plugin{} }

// Name implements framework.Plugin.
func (*Plugin) Name() string { return Name }

// Score implements framework.ScorePlugin.
func (*Plugin) Score(_ context.Context, d *framework.Decision, ordinal int32) (int64, *framework.Status) {
	cost := d.Cost()
	if cost == nil {
		return framework.MaxScore, nil
	}
	capacity := int64(d.Cluster().Capacity())
	slots := permille(capacity-int64(d.Free(ordinal))+1, capacity)
	lo, hi := slots, slots
	res := d.Resources()
	for dim, c := range cost {
		if c <= 0 {
			continue
		}
		limit := res.ResourceCapacity(dim)
		used := vsched.CostSum(vsched.CostSum(limit, -d.ResourceFree(ordinal, dim)), c)
		u := permille(used, limit)
		lo, hi = min(lo, u), max(hi, u)
	}
	return framework.MaxScore - (hi-lo)/10, nil
}

var _ framework.ScoreInputs = &Plugin{}

// ScoreReads implements framework.ScoreInputs: the score reads the pod's
// free slots and what it has left of each resource, which change only
// when the decision places on the pod or takes from it.
func (*Plugin) ScoreReads() (scope, reach framework.Scope) {
	return framework.ScopePod, framework.ScopePod
}

// ScoreSummary implements framework.ScoreInputs: the score reads of the
// decision as a whole only the source's cost, the same at every step.
func (*Plugin) ScoreSummary(*framework.Decision) framework.ScoreSummary {
	return framework.ScoreSummary{}
}

// permille is used/limit in thousandths, within [0, 1000], computed in 128
// bits so that no value of the int64 range overflows.
func permille(used, limit int64) int64 {
	if limit <= 0 || used >= limit {
		return 1000
	}
	if used <= 0 {
		return 0
	}
	if used <= math.MaxInt64/1000 {
		return used * 1000 / limit // the same quotient, without 128 bits
	}
	hi, lo := bits.Mul64(uint64(used), 1000)
	q, _ := bits.Div64(hi, lo, uint64(limit))
	return int64(q)
}
