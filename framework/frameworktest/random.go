package frameworktest

import (
	"fmt"
	"math/rand"

	"github.com/vsched/vsched"
)

// Scenario is a cluster with one source already placed on it.
type Scenario struct {
	Cluster *Cluster
	// Base is the source's placements; Cluster's usage already counts
	// them. It may name pods that are missing, not candidates, or beyond
	// the StatefulSet's replicas, as stale status does.
	Base []vsched.Placement
	// N is a number of vreplicas to place or remove: often a few,
	// sometimes more than fit, so that runs also stop early.
	N int32
}

// RandomScenario builds a small random cluster from rng: up to 4 zones
// (sometimes none, leaving nodes unlabelled), up to 8 nodes (some cordoned),
// up to 40 pods (some unbound, draining or missing), random usage by other
// sources (sometimes over capacity) and random placements of the source.
// The same rng state always gives the same scenario.
func RandomScenario(rng *rand.Rand) Scenario {
	c := NewCluster(1 + rng.Int31n(8))
	zones := rng.Intn(5)
	nodes := 1 + rng.Intn(8)
	nodeNames := make([]string, nodes)
	for i := range nodeNames {
		nodeNames[i] = fmt.Sprintf("node-%d", i)
		zone := ""
		if zones > 0 {
			zone = fmt.Sprintf("zone-%d", rng.Intn(zones))
		}
		c.Node(nodeNames[i], zone)
	}
	for _, n := range nodeNames {
		if rng.Intn(8) == 0 {
			c.Cordon(n)
		}
	}
	pods := rng.Intn(41)
	for range pods {
		n := nodeNames[rng.Intn(nodes)]
		if rng.Intn(15) == 0 {
			n = ""
		}
		c.Pods(n)
	}
	capacity := c.Capacity()
	// The source is spread thin or wide, so that nodes often mix pods it
	// holds with pods it does not: the fast path treats them differently.
	holderOdds := []int{2, 3, 6}[rng.Intn(3)]
	var base []vsched.Placement
	// Often the highest ordinals are empty, as after a scale-up: the
	// fast path stops early there (framework.UsedPrefix).
	emptyFrom := int32(pods)
	if rng.Intn(3) == 0 {
		emptyFrom = rng.Int31n(int32(pods) + 1)
	}
	for ord := range int32(pods) {
		switch rng.Intn(20) {
		case 0:
			c.Drain(ord)
		case 1:
			c.Remove(ord)
		}
		used := rng.Int31n(capacity + 1)
		if rng.Intn(20) == 0 {
			used = capacity + 1 + rng.Int31n(3) // over capacity
		}
		if ord >= emptyFrom {
			used = 0
		}
		c.Use(ord, used)
		if used > 0 && rng.Intn(holderOdds) == 0 {
			base = append(base, P(ord, 1+rng.Int31n(used)))
		}
	}
	if rng.Intn(6) == 0 {
		// Status naming a pod the StatefulSet no longer has.
		base = append(base, P(int32(pods)+rng.Int31n(3), 1+rng.Int31n(3)))
	}
	rng.Shuffle(len(base), func(i, j int) { base[i], base[j] = base[j], base[i] })
	// Small n matters most to the fast path, which keeps only n
	// representatives per node; large n runs out of room.
	n := 1 + rng.Int31n(4)
	if rng.Intn(2) == 0 {
		n = 1 + rng.Int31n(capacity*int32(pods)/2+4)
	}
	return Scenario{Cluster: c, Base: base, N: n}
}
