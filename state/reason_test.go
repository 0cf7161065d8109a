package state

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/evictor"
)

// TestPodReasonMatchesJudge drives State with random pod, node, replica and
// drain changes and checks after each one that Pod reports, for every pod,
// the candidacy and the reason judge gives now: the refusal ensure stores
// is the one judge would give.
func TestPodReasonMatchesJudge(t *testing.T) {
	const maxOrd = 10
	nodes := []string{"n0", "n1", "n2"}
	for seed := int64(1); seed <= 5; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := rand.New(rand.NewSource(seed))
			s := newState(t, 4)
			now := t0
			for step := range 1500 {
				var op string
				switch r.Intn(6) {
				case 0:
					ord, node := int32(r.Intn(maxOrd+2)), nodes[r.Intn(len(nodes))]
					if r.Intn(5) == 0 {
						node = ""
					}
					pod := mkPod(ord, node)
					if r.Intn(4) == 0 {
						annotated(evictor.DefaultAnnotation, "true")(pod)
					}
					if r.Intn(6) == 0 {
						terminating(pod)
					}
					op = fmt.Sprintf("UpsertPod(%d on %q)", ord, node)
					s.UpsertPod(pod)
				case 1:
					ord := int32(r.Intn(maxOrd + 2))
					op = fmt.Sprintf("DeletePod(%d)", ord)
					s.DeletePod(vsched.PodName(sts, ord))
				case 2:
					n := nodes[r.Intn(len(nodes))]
					var opts []nodeOpt
					if r.Intn(2) == 0 {
						opts = append(opts, [](nodeOpt){cordoned, readyStatus(corev1.ConditionFalse), tainted(TaintNodeUnreachable, corev1.TaintEffectNoExecute)}[r.Intn(3)])
					}
					now = now.Add(time.Second)
					op = fmt.Sprintf("UpsertNode(%s)", n)
					s.UpsertNode(mkNode(n, fmt.Sprint("z", r.Intn(2)), opts...), now)
				case 3:
					n := nodes[r.Intn(len(nodes))]
					op = fmt.Sprintf("DeleteNode(%s)", n)
					s.DeleteNode(n)
				case 4:
					n := int32(r.Intn(maxOrd + 1))
					op = fmt.Sprintf("SetReplicas(%d)", n)
					s.SetReplicas(n)
				case 5:
					ord, on := int32(r.Intn(maxOrd+2)), r.Intn(2) == 0
					op = fmt.Sprintf("SetDraining(%d, %v)", ord, on)
					s.SetDraining(ord, on)
				}
				for ord := int32(0); ord < s.NumPods(); ord++ {
					info, ok := s.Pod(ord)
					if !ok {
						continue
					}
					j := s.judge(ord)
					if info.Candidate != (j == mayReceive) || info.Reason != s.reason(ord, j) {
						t.Fatalf("step %d (%s): Pod(%d) = candidate %v, reason %q; judge: candidate %v, reason %q",
							step, op, ord, info.Candidate, info.Reason, j == mayReceive, s.reason(ord, j))
					}
				}
			}
		})
	}
}
