package state

import (
	"testing"

	"github.com/vsched/vsched"
)

// BenchmarkStrayPod measures what a pod event costs (the candidates are
// recomputed over every pod the state holds) on six pods, without and with
// a stray pod adapter-65535. Run with:
//
//	go test ./state -run '^$' -bench StrayPod
func BenchmarkStrayPod(b *testing.B) {
	for _, stray := range []bool{false, true} {
		name := "without"
		if stray {
			name = "with"
		}
		b.Run(name, func(b *testing.B) {
			s, err := New(Options{StatefulSetName: sts, Capacity: 10})
			if err != nil {
				b.Fatal(err)
			}
			cluster(s, [][2]string{{"n0", "z"}}, []string{"n0", "n0", "n0", "n0", "n0", "n0"})
			if stray {
				s.UpsertPod(mkPod(vsched.MaxReplicas-1, "n0"))
			}
			pod := mkPod(0, "n0")
			b.ResetTimer()
			for range b.N {
				s.UpsertPod(pod)
				if len(s.Candidates()) != 6 {
					b.Fatal("candidates changed")
				}
			}
		})
	}
}
