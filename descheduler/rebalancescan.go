package descheduler

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/state"
)

// RebalanceScan is RebalanceMoves kept from one cycle to the next, so that a
// cycle looks again only at the sources whose answer may have changed, and
// finds exactly what RebalanceMoves over every source would find.
//
// A Rebalancer judges a source by its placements against the cluster's
// shape: the zones counted (SchedulableZones, GrowthZones), the size and the
// node and zone of each pod (framework.Rebalancer). Whether a move it asks
// for finds a pod depends on room as well. So a source found even stays
// even until its own placements change, or the shape does; a source found
// uneven but without room may move once some pod gains room. A cycle looks
// at:
//
//   - every source, on the first scan, when the profile or the shape
//     changed, or when the state's log of changed sources no longer reaches
//     back to the last scan (state.ChangedSince);
//   - otherwise the sources changed since the last scan, those found
//     uneven (requeued, or past the budget), skipped or growing then, and,
//     when room appeared since (state.RoomMark), those found without room.
//
// The zero value is ready: its first call looks at every source. Reset
// starts again from a full scan (a new leadership term).
type RebalanceScan struct {
	valid   bool
	profile *framework.Profile
	shape   uint64
	room    uint64
	mark    state.ChangeMark
	// waiting are the sources to look at again although they did not
	// change, and when (waitFor); stuck, those to look at once room
	// appears.
	waiting map[types.NamespacedName]waitFor
	stuck   map[types.NamespacedName]bool

	// Checked is how many sources the last call looked at, and Full
	// whether it looked at every one.
	Checked int
	Full    bool
}

// waitFor says when a source that did not change is looked at again:
// always (requeued, past the budget, failed), once it is no longer skipped,
// or, for a source growing or shrinking, once the lister's vreplicas for it
// differ from vreplicas.
type waitFor struct {
	always, skipped bool
	vreplicas       int32
}

// due reports whether what the source waits for has come.
func (w waitFor) due(key types.NamespacedName, base state.Reader, listed map[types.NamespacedName]vsched.VPod, skip map[types.NamespacedName]bool) bool {
	switch {
	case w.always:
		return true
	case w.skipped:
		return !skip[key]
	}
	if v, ok := listed[key]; ok {
		return v.GetVReplicas() != w.vreplicas
	}
	return base.VReplicasOf(key) != w.vreplicas
}

// Reset makes the next call look at every source.
func (r *RebalanceScan) Reset() { r.valid = false }

// Moves is RebalanceMoves (same arguments, same answer) that looks only at
// the sources whose answer may have changed since the last call. base must
// be a copy of the same scheduler's state each time.
func (r *RebalanceScan) Moves(ctx context.Context, place *framework.Profile, base state.Reader, listed map[types.NamespacedName]vsched.VPod,
	skip map[types.NamespacedName]bool, budget, perSource int32) []evictor.Move {
	shape := Shape(base)
	keys, waiting, full := r.keys(place, base, shape, listed, skip)
	var cands []rebalanceCandidate
	if full {
		cands = allCandidates(base)
	} else {
		cands = make([]rebalanceCandidate, 0, len(keys))
		for _, k := range keys {
			sum, _ := base.Summary(k)
			cands = append(cands, rebalanceCandidate{key: k, vreplicas: sum.VReplicas, ps: sum.Placements})
		}
	}
	r.Checked, r.Full = len(cands), full
	r.valid, r.profile, r.shape, r.room, r.mark, r.waiting = true, place, shape, base.RoomMark(), base.ChangeMark(), waiting
	if full || r.stuck == nil {
		r.stuck = map[types.NamespacedName]bool{}
	}
	var out []evictor.Move
	outcome := make([]rebalanceOutcome, len(cands))
	if budget > 0 {
		out, outcome = scanRebalance(ctx, place, base, listed, skip, budget, perSource, cands)
	} else {
		for i := range outcome {
			outcome[i] = rebalanceAgain
		}
	}
	for i, c := range cands {
		delete(r.stuck, c.key)
		switch outcome[i] {
		case rebalanceAgain:
			r.waiting[c.key] = waitFor{always: true}
		case rebalanceSkipped:
			r.waiting[c.key] = waitFor{skipped: true}
		case rebalanceResized:
			r.waiting[c.key] = waitFor{vreplicas: c.vpod.GetVReplicas()}
		case rebalanceStuck:
			r.stuck[c.key] = true
		}
	}
	return out
}

// keys lists the sources to look at, or says that they are all of them
// (full, with no list), and the sources still waiting that it leaves out.
func (r *RebalanceScan) keys(place *framework.Profile, base state.Reader, shape uint64, listed map[types.NamespacedName]vsched.VPod,
	skip map[types.NamespacedName]bool) ([]types.NamespacedName, map[types.NamespacedName]waitFor, bool) {
	waiting := map[types.NamespacedName]waitFor{}
	changed, ok := base.ChangedSince(r.mark)
	if !r.valid || !ok || place != r.profile || shape != r.shape {
		return nil, waiting, true
	}
	for k, w := range r.waiting {
		if w.due(k, base, listed, skip) {
			changed = append(changed, k)
		} else {
			waiting[k] = w
		}
	}
	if base.RoomMark() != r.room {
		for k := range r.stuck {
			changed = append(changed, k)
		}
	}
	state.SortKeys(changed)
	changed = slices.Compact(changed)
	for _, k := range changed {
		// Looked at now: what it waited for is decided again.
		delete(waiting, k)
	}
	return changed, waiting, false
}

// Shape renders what a Rebalancer's rule can depend on besides the source's
// own placements: the zones counted, the StatefulSet's size, and the node
// and zone of every pod. A source found even stays so while it and its
// placements are unchanged.
func Shape(st state.Reader) uint64 {
	h := fnvOffset
	put := func(v int32) {
		for i := 0; i < 4; i++ {
			h = (h ^ uint64(byte(v>>(8*i)))) * fnvPrime
		}
	}
	for _, list := range [][]int32{st.SchedulableZones(), {-1}, st.GrowthZones(), {-1, st.Replicas(), -1}} {
		for _, v := range list {
			put(v)
		}
	}
	for ord := int32(0); ord < st.NumPods(); ord++ {
		if info, ok := st.Pod(ord); ok {
			put(info.NodeIndex)
			put(info.ZoneIndex)
		} else {
			put(-2)
		}
	}
	return h
}

// FNV-1a, 64 bits.
const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)
