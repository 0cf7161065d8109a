package costestimate

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// system is one resource's least-squares system over every round seen,
// older rounds weighing less: with x the cost per vreplica of each source
// and, per pod and round, n its vreplicas and u the pod's usage,
// gram[j][k] = Σ n_j n_k and rhs[j] = Σ n_j u. Only the pairs of sources
// that shared a pod are kept, so it grows with what runs together, not
// with the square of the sources.
type system struct {
	gram map[[2]int32]float64
	rhs  map[int32]float64
	x    map[int32]float64
}

func newSystem() *system {
	return &system{gram: map[[2]int32]float64{}, rhs: map[int32]float64{}, x: map[int32]float64{}}
}

// decay weighs every earlier round by keep.
func (s *system) decay(keep float64) {
	for k := range s.gram {
		s.gram[k] *= keep
	}
	for k := range s.rhs {
		s.rhs[k] *= keep
	}
}

// add counts one pod of one round.
func (s *system) add(ids []int32, n []float64, usage float64) {
	for a, j := range ids {
		s.rhs[j] += n[a] * usage
		for b, k := range ids {
			s.gram[[2]int32{j, k}] += n[a] * n[b]
		}
	}
}

// solve runs sweeps of coordinate descent for the non-negative least
// squares solution, from the last one, in the order of ids.
func (s *system) solve(ids []int32, neighbours map[int32][]int32, sweeps int) {
	for range sweeps {
		for _, j := range ids {
			d := s.gram[[2]int32{j, j}]
			if d <= 0 {
				continue
			}
			r := s.rhs[j]
			for _, k := range neighbours[j] {
				if k != j {
					r -= s.gram[[2]int32{j, k}] * s.x[k]
				}
			}
			s.x[j] = max(r/d, 0)
		}
	}
}

// index numbers sources densely, in the order first seen.
type index struct {
	ids  map[types.NamespacedName]int32
	keys []types.NamespacedName
	// neighbours lists, per source, the sources it shared a pod with
	// (itself included), in the order first seen.
	neighbours map[int32][]int32
	seen       map[[2]int32]bool
	// free are the ids of forgotten sources, for the next new ones: the
	// ids stay as many as the sources known at once.
	free []int32
}

func newIndex() *index {
	return &index{ids: map[types.NamespacedName]int32{}, neighbours: map[int32][]int32{}, seen: map[[2]int32]bool{}}
}

// id numbers the source, and reports whether it is new.
func (x *index) id(key types.NamespacedName) (int32, bool) {
	if i, ok := x.ids[key]; ok {
		return i, false
	}
	if n := len(x.free); n > 0 {
		i := x.free[n-1]
		x.free = x.free[:n-1]
		x.ids[key], x.keys[i] = i, key
		return i, true
	}
	i := int32(len(x.keys))
	x.ids[key] = i
	x.keys = append(x.keys, key)
	return i, true
}

// pair records that two sources shared a pod.
func (x *index) pair(j, k int32) {
	if !x.seen[[2]int32{j, k}] {
		x.seen[[2]int32{j, k}] = true
		x.neighbours[j] = append(x.neighbours[j], k)
	}
}

// systems are the per-resource systems.
type systems map[corev1.ResourceName]*system
