package statefulset

import (
	"fmt"
	"math/rand"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
)

// TestBigSourceDigest places, grows, shrinks and removes one large source
// on BenchmarkScheduleAtBounds's cluster (3 zones, 12 nodes, 6,000 pods),
// among 300 small sources placed first so that pods, nodes and zones
// start uneven, with every profile that benchmark and the quality
// benchmark measure. Each run is done twice and must place alike
// (deterministic); the test logs a digest of every placement after each
// call. A change meant to make large sources faster only (issue 21) must
// log the same digests as its parent:
//
//	go test ./statefulset -run TestBigSourceDigest -count=1 -v
func TestBigSourceDigest(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("places 10,000 vreplicas on 6,000 pods, per profile, twice")
	}
	for _, prof := range []struct {
		name string
		data map[string]string
	}{{"default", nil}, {"kafkaHA", haSchedulerAtBounds}, {"zoneHard", zoneHardScheduler}, {"example", exampleSchedulerAtBounds}} {
		t.Run(prof.name, func(t *testing.T) {
			first := bigSourceDigests(t, prof.data)
			again := bigSourceDigests(t, prof.data)
			if first != again {
				t.Fatalf("placed %s, then %s: not deterministic", first, again)
			}
			t.Logf("digests %s", first)
		})
	}
}

// exampleSchedulerAtBounds is exampleScheduler for a topic of
// MaxVReplicas partitions, as haSchedulerAtBounds is haScheduler's.
var exampleSchedulerAtBounds = map[string]string{
	"predicates": fmt.Sprintf(`[{"Name":"PodFitsResources"},{"Name":"NoMaxResourceCount","Args":"{\"NumPartitions\": %d}"},{"Name":"EvenPodSpread","Args":"{\"MaxSkew\": 2}"}]`, vsched.MaxVReplicas),
	"priorities": exampleScheduler["priorities"],
}

// bigSourceSizes are the sizes the big source goes through, in order.
var bigSourceSizes = []int32{1_000, vsched.MaxVReplicas, 4_000, 128, 1}

// bigSourceDigests returns, per size in bigSourceSizes, the digest of
// every source's placements after the big source was scheduled to it.
func bigSourceDigests(t *testing.T, data map[string]string) string {
	w := workload{"bounds", 3, 12, 6000, 300}
	c := benchCluster(t, w)
	defer c.Shutdown()
	var vpods []*benchVPod
	s := startBenchScheduler(t, c, w, benchProfiles(t, data), &vpods)
	defer s.Close()
	ctx := benchCtx()
	rng := rand.New(rand.NewSource(21))
	for i := range 300 {
		v := &benchVPod{key: types.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("small-%d", i)}, vreplicas: int32(1 + rng.Intn(40)), rv: 1}
		vpods = append(vpods, v)
	}
	placeAll(t, ctx, s, vpods)
	big := &benchVPod{key: types.NamespacedName{Namespace: "ns", Name: "big"}, rv: 1}
	vpods = append(vpods, big)
	out := ""
	for _, n := range bigSourceSizes {
		big.vreplicas = n
		big.rv++
		ps, err := s.Schedule(ctx, big)
		if err != nil && vsched.PendingCount(err) == 0 {
			t.Fatalf("%d vreplicas: %v", n, err)
		}
		commit(s, big, ps)
		out += fmt.Sprintf(" %d:%08x", n, digestPlacements(vpods)&0xffffffff)
	}
	return out
}
