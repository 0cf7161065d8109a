package decision

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDescribe(t *testing.T) {
	p := DefaultPolicy()
	pinned := DefaultPolicy()
	pinned.Paused, pinned.PausedReplicas = true, 3
	tests := []struct {
		name string
		d    Decision
		p    *Policy
		want []string
	}{
		{"paused and pinned", Decision{Current: 5, Desired: 3, Mode: Paused}, &pinned,
			[]string{"vreplicas: 5 -> 3, mode paused", "paused by annotation, pinned to 3"}},
		{"missing", Decision{Current: 4, Desired: 4, Mode: Fallback, Missing: 2}, &p,
			[]string{"vreplicas: 4 -> 4, mode fallback", "signal: missing for 2 cycle(s); the count is kept, or after 3 cycle(s) set to the fallback of 0 (0: kept)"}},
		{"capped and held", Decision{Current: 4, Desired: 4, Mode: Capped, Known: true, Signal: 900, StableAverage: 900, PanicAverage: 900, StableDesired: 9, PanicDesired: 9, Cap: 4, Held: HeldByDelay}, &p,
			[]string{
				"vreplicas: 4 -> 4, mode capped",
				"signal: 900, target 100 per vreplica (activation above 0)",
				"stable window 1m0s: average 900, ceil(900 / 100) = 9",
				"panic window 6s: average 900, ceil(900 / 100) = 9; panic from 2 x 400 = 800",
				"rate limits: from 4, at most 4000 (x1000 up), at least 2 (/2 down); scale-down delay 0s",
				"bounds: min 0, max 50; capped at 4 partition(s)",
				"held: a lower count by the scale-down delay",
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.d.Describe(tc.p)); diff != "" {
				t.Errorf("Describe (-want +got):\n%s", diff)
			}
		})
	}
}
