package state

import (
	"fmt"
	"sort"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/internal/lib/bounded"
)

// Normalize turns placements into the canonical form the state counts: one
// entry per pod of this StatefulSet, positive counts only, sorted by
// ordinal, and at most vsched.MaxVReplicas in all. Problems (a pod listed
// twice, a negative count, a name that is not "<statefulset>-<ordinal>", a
// total above the bound) are returned as messages naming the entry, at most
// bounded.Problems of them and then how many more; the duplicates are
// summed, what passes the bound is cut (highest ordinals first) and the rest
// dropped, so the caller can re-place what was dropped instead of panicking,
// wrapping a count or losing track of it.
func (s *State) Normalize(ps []vsched.Placement) ([]vsched.Placement, []string) {
	var problems bounded.List
	byOrd := make(map[int32]int, min(len(ps), vsched.MaxReplicas))
	list := make([]summed, 0, min(len(ps), vsched.MaxReplicas))
	for i, p := range ps {
		name := bounded.Cut(p.PodName, bounded.ValueLen)
		if p.VReplicas < 0 {
			problems.Add(fmt.Sprintf("placements[%d] (pod %q): negative vreplicas %d dropped", i, name, p.VReplicas))
			continue
		}
		if p.VReplicas == 0 {
			continue
		}
		ord, ok := s.OrdinalOf(p.PodName)
		if !ok {
			problems.Add(fmt.Sprintf("placements[%d]: pod %q is not a pod of StatefulSet %q; its %d vreplica(s) will be placed again", i, name, s.opts.StatefulSetName, p.VReplicas))
			continue
		}
		if j, dup := byOrd[ord]; dup {
			problems.Add(fmt.Sprintf("placements[%d]: pod %q listed twice; counts summed", i, name))
			list[j].n += int64(p.VReplicas)
			continue
		}
		byOrd[ord] = len(list)
		list = append(list, summed{p: p, ord: ord, n: int64(p.VReplicas)})
	}
	sort.Slice(list, func(a, b int) bool { return list[a].ord < list[b].ord })
	out, total, cut := capTotal(list)
	if cut > 0 {
		problems.Add(fmt.Sprintf("placements: %d vreplica(s) in all, more than the most a source may hold (%d); the %d beyond it, on the highest ordinals, are not counted",
			total+cut, vsched.MaxVReplicas, cut))
	}
	return out, problems.Items()
}

// summed is one pod's placement while Normalize sums it. The sum is an
// int64: a status is input, and two counts near MaxInt32 on one pod must
// not wrap to a negative.
type summed struct {
	p   vsched.Placement
	ord int32
	n   int64
}

// capTotal returns the placements of list, in its order, holding at most
// vsched.MaxVReplicas in all, with the total kept and how many were cut.
func capTotal(list []summed) (out []vsched.Placement, total, cut int64) {
	out = make([]vsched.Placement, 0, len(list))
	for _, e := range list {
		n := min(e.n, vsched.MaxVReplicas-total)
		cut += e.n - n
		if n <= 0 {
			continue
		}
		total += n
		p := e.p
		p.VReplicas = int32(n)
		out = append(out, p)
	}
	return out, total, cut
}
