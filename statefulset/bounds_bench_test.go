package statefulset

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
)

// BenchmarkScheduleAtBounds measures the longest a single Schedule call
// holds the state lock within the documented bounds: one source at
// vsched.MaxVReplicas placed from nothing, then shrunk to one, on W2's
// 6,000 pods. The whole call runs under the lock, so ns/op is the figure
// to read against docs/embedding.md's "a few milliseconds". A call's cost grows
// about as the square of the vreplicas it places on a cluster this large
// (measured with the default profile: 2.7 ms for 128, 10 ms for 256,
// 540 ms for 1,000), which is what MaxVReplicas is chosen against. Run
// with:
//
//	go test ./statefulset -run '^$' -bench ScheduleAtBounds -benchtime 5x
func BenchmarkScheduleAtBounds(b *testing.B) {
	ctx := benchCtx()
	w := workload{"bounds", 3, 12, 6000, 1}
	c := benchCluster(b, w)
	b.Cleanup(c.Shutdown)
	for _, prof := range []struct {
		name string
		data map[string]string
	}{{"default", nil}, {"kafkaHA", haScheduler}, {"zoneHard", zoneHardScheduler}} {
		var vpods []*benchVPod
		s := startBenchScheduler(b, c, w, benchProfiles(b, prof.data), &vpods)
		b.Cleanup(s.Close)
		v := &benchVPod{key: types.NamespacedName{Namespace: "ns", Name: "big"}, rv: 1}
		vpods = append(vpods, v)
		run := func(b *testing.B, from, to int32) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				v.vreplicas = from
				v.rv++
				ps, err := s.Schedule(ctx, v)
				if err != nil {
					b.Fatal(err)
				}
				commit(s, v, ps)
				v.vreplicas = to
				v.rv++
				b.StartTimer()
				ps, err = s.Schedule(ctx, v)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if got := vsched.TotalVReplicas(ps); got != to {
					b.Fatalf("placed %d, want %d", got, to)
				}
				commit(s, v, ps)
				b.StartTimer()
			}
		}
		b.Run(prof.name+"/place", func(b *testing.B) { run(b, 0, vsched.MaxVReplicas) })
		b.Run(prof.name+"/remove", func(b *testing.B) { run(b, vsched.MaxVReplicas, 1) })
	}
}
