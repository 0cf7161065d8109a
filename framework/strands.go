package framework

// CheapestCoster is implemented by a ResourceCluster that knows the lowest
// cost per vreplica of any source it counts, per dimension. With it a
// decision can tell a placement that leaves a pod's free slots unusable
// (Decision.Strands).
type CheapestCoster interface {
	// CheapestCost is the lowest cost per vreplica, in
	// ResourceNames()[dim], of every source the cluster counts: 0 when
	// any source costs nothing there (a source that declares no cost
	// costs nothing in every resource).
	CheapestCost(dim int) int64
}

// Strands reports whether one more vreplica of the source on the pod
// strands slots: leaves more of the pod's free slots than before where
// not even the cheapest source's vreplica would fit (in some dimension,
// what the pod has left over the cheapest cost is fewer vreplicas than
// its free slots). A memory-heavy vreplica on a pod whose memory is
// nearly gone, among light sources that could fill its slots, strands
// them; the cheapest source's vreplica never does, nor anything on an
// empty pod that one vreplica of the source does not already strand. It
// is false for a source without a cost, on a cluster that is no
// CheapestCoster, and in a Run of a grouped profile without a costed
// variant (Profile.WithCosts), whose classes ignore the pods' use.
func (d *Decision) Strands(ordinal int32) bool {
	if d.cheap == nil {
		return false
	}
	free := int64(d.Free(ordinal))
	if free <= 0 {
		return false
	}
	for dim, c := range d.cost {
		if c <= 0 {
			continue
		}
		cheap := d.cheapestCost(dim)
		if cheap <= 0 {
			continue
		}
		left := d.ResourceFree(ordinal, dim)
		if stranded(free-1, left-c, cheap) > stranded(free, left, cheap) {
			return true
		}
	}
	return false
}

// stranded is how many of free slots the cheapest vreplicas, at cheap
// each, cannot use with left of the resource.
func stranded(free, left, cheap int64) int64 {
	if left < 0 {
		return free
	}
	return max(0, free-left/cheap)
}
