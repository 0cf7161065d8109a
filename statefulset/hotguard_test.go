package statefulset

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/vsched/vsched/descheduler"
)

// What sheds moved onto a measured pod counts on top of its samples until
// a sample taken after the move comes; a pod whose sample is older than
// MaxAge is not measured, and a guard past its Until is none.
func TestHotGuardCountsMovesUntilNewerSamples(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	limits := []descheduler.HotLimit{{Resource: corev1.ResourceMemory, Milli: 900}}
	guard := func(at time.Time, used int64) *descheduler.HotGuard {
		return &descheduler.HotGuard{Limits: limits, Until: at.Add(2 * time.Minute), MaxAge: 2 * time.Minute,
			Pods: map[int32]descheduler.MeasuredPod{1: {At: at, Used: []int64{used}}, 2: {At: t0, Used: []int64{100}}}}
	}
	s := &Scheduler{}
	s.SetHotGuard(guard(t0, 500))
	// A shed put 300 on pod 1 at t0+10s (noteShed's bookkeeping).
	s.guard.moved = map[int32]movedUse{1: {at: t0.Add(10 * time.Second), use: []int64{300}}}
	used := func(now time.Time) map[int32]int64 {
		g := s.guard.current(now)
		if g == nil {
			return nil
		}
		out := map[int32]int64{}
		for ord, p := range g.Pods {
			out[ord] = p.Used[0]
		}
		return out
	}
	steps := []struct {
		name string
		set  *descheduler.HotGuard
		now  time.Time
		want map[int32]int64
	}{
		{"the move counts", nil, t0.Add(20 * time.Second), map[int32]int64{1: 800, 2: 100}},
		{"a sample older than the move: it still counts", guard(t0.Add(5*time.Second), 500), t0.Add(30 * time.Second), map[int32]int64{1: 800, 2: 100}},
		{"a sample after the move shows it", guard(t0.Add(15*time.Second), 790), t0.Add(40 * time.Second), map[int32]int64{1: 790, 2: 100}},
		{"pod 2's sample, of t0, stale", nil, t0.Add(2*time.Minute + time.Second), map[int32]int64{1: 790}},
		{"past Until: no guard", nil, t0.Add(15*time.Second + 2*time.Minute + time.Nanosecond), nil},
	}
	for _, st := range steps {
		if st.set != nil {
			s.SetHotGuard(st.set)
		}
		if diff := cmp.Diff(st.want, used(st.now)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", st.name, diff)
		}
	}
}
