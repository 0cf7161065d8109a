package framework_test

import (
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// TestQueueTailsMatchExplained: a node's queue that starts with a few of the
// empty pods past the highest used ordinal and collects the next ones as
// the run takes them (queuetail.go) decides exactly what evaluating every
// pod does, whether it starts with one, two or the default.
func TestQueueTailsMatchExplained(t *testing.T) {
	const seeds = 600
	for seed := int64(1); seed <= seeds; seed++ {
		rng := rand.New(rand.NewSource(seed))
		sc := ft.RandomScenario(rng)
		grouped, _, rec, desc := randomProfile(t, rng, framework.Place)
		// Many vreplicas, so that runs take more than the first chunk.
		sc.N = 1 + rng.Int31n(3*int32(len(sc.Cluster.Candidates()))+1)
		explained := runOnce(t, grouped, sc.Cluster, sc, framework.Place, &framework.Explanation{}, rec)
		for _, chunk := range []int32{1, 2, 16} {
			undo := framework.SetTailChunk(chunk)
			got := runOnce(t, grouped, sc.Cluster.Indexed(), sc, framework.Place, nil, rec)
			undo()
			if diff := cmp.Diff(explained, got); diff != "" {
				t.Fatalf("seed %d, profile %s, n=%d, chunk %d: run differs from explained (-explained +chunked):\n%s", seed, desc, sc.N, chunk, diff)
			}
		}
	}
}
