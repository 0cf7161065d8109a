package statefulset

import (
	"fmt"
	"hash/fnv"
	"math/rand"
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
)

// TestWeightedWorkloadDigest places the weighted workloads W1 and W2 with
// costs twice, each on a cluster of its own, then rescales every third
// source to a new count: the placements must be the same both times
// (deterministic), and it logs a digest of them. Two commits that log the
// same digests placed alike; a change meant to be faster only (issue 23's
// work on the cost classes) must not change them. It places 11,000
// sources four times (seconds): set VSCHED_DIGEST=1 to run.
func TestWeightedWorkloadDigest(t *testing.T) {
	if testing.Short() || raceEnabled || os.Getenv("VSCHED_DIGEST") == "" {
		t.Skip("places 11,000 sources four times: set VSCHED_DIGEST=1 to run")
	}
	for _, w := range []workload{w1, w2} {
		placed, rescaled := weightedDigests(t, w)
		again, rescaledAgain := weightedDigests(t, w)
		if placed != again || rescaled != rescaledAgain {
			t.Errorf("%s weighted: placed %016x then %016x, rescaled %016x then %016x: not deterministic",
				w.name, placed, again, rescaled, rescaledAgain)
		}
		t.Logf("%s weighted: placed %016x, rescaled %016x", w.name, placed, rescaled)
	}
}

// weightedDigests places the workload's costed sources, digests every
// placement, rescales every third source (1 to 20 vreplicas, a fixed seed)
// and digests again.
func weightedDigests(t *testing.T, w workload) (placed, rescaled uint64) {
	cluster := benchCluster(t, w)
	defer cluster.Shutdown()
	vpods := makeCostSources(w, true)
	s := startWeighted(t, cluster, w, benchProfiles(t, nil), vpods, true)
	defer s.Close()
	scheduleWeighted(t, s, w, vpods)
	placed = digestPlacements(vpods)
	rng := rand.New(rand.NewSource(2))
	var again []*costVPod
	for i := 0; i < len(vpods); i += 3 {
		vpods[i].vreplicas = int32(1 + rng.Intn(20))
		again = append(again, vpods[i])
	}
	scheduleWeighted(t, s, w, again)
	return placed, digestPlacements(vpods)
}

// digestPlacements hashes every source's key and placements, in order.
func digestPlacements[V interface {
	GetKey() types.NamespacedName
	GetPlacements() []vsched.Placement
}](vpods []V) uint64 {
	h := fnv.New64a()
	for _, v := range vpods {
		fmt.Fprintf(h, "%s:", v.GetKey())
		for _, p := range v.GetPlacements() {
			fmt.Fprintf(h, "%s=%d,", p.PodName, p.VReplicas)
		}
		fmt.Fprintln(h)
	}
	return h.Sum64()
}
