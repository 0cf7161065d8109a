package autoscaler

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/config"
)

func TestWithHeadroom(t *testing.T) {
	cfgWith := func(slots int32, share, down float64) *config.AutoscalerConfig {
		c := config.DefaultAutoscalerConfig()
		c.HeadroomSlots, c.HeadroomShare = slots, share
		if down > 0 {
			c.HeadroomDownThreshold = down
		}
		return c
	}
	fit := func(n int32) Recommendation { return Recommendation{Replicas: n, Reason: "fit"} }
	cases := []struct {
		name            string
		cfg             *config.AutoscalerConfig
		current, demand int32
		rec             Recommendation
		want            Recommendation
	}{
		{name: "no headroom", cfg: cfgWith(0, 0, 0), current: 4, demand: 45, rec: fit(5), want: fit(5)},
		// ceil((45 + 10) / 10) = 6 pods.
		{name: "slots grow", cfg: cfgWith(10, 0, 0), current: 4, demand: 45, rec: fit(5),
			want: Recommendation{Replicas: 6, Reason: "fit; 6 pod(s) keep the headroom free"}},
		// ceil(45 / 0.8 / 10) = ceil(5.625) = 6.
		{name: "share grows", cfg: cfgWith(0, 0.2, 0), current: 5, demand: 45, rec: fit(5),
			want: Recommendation{Replicas: 6, Reason: "fit; 6 pod(s) keep the headroom free"}},
		// 40 / 0.8 = 50 slots: 5 pods, what the fit says already.
		{name: "share met", cfg: cfgWith(0, 0.2, 0), current: 5, demand: 40, rec: fit(5), want: fit(5)},
		// The larger of the two: slots 3 give ceil(43/10) = 5, the share
		// 0.2 gives 5; slots 20 give 6.
		{name: "larger of both", cfg: cfgWith(20, 0.2, 0), current: 5, demand: 40, rec: fit(5),
			want: Recommendation{Replicas: 6, Reason: "fit; 6 pod(s) keep the headroom free"}},
		// Headroom 6 below the current 8: 15 free slots wanted of 35,
		// at most 0.99 of them: shrink to 6.
		{name: "shrink past the down threshold", cfg: cfgWith(10, 0, 0), current: 8, demand: 45, rec: fit(5),
			want: Recommendation{Replicas: 6, Reason: "fit; 6 pod(s) keep the headroom free"}},
		// With a threshold of 0.4, 15 is more than 0.4 x 35 = 14: keep 8.
		{name: "hysteresis holds", cfg: cfgWith(10, 0, 0.4), current: 8, demand: 45, rec: fit(5),
			want: Recommendation{Replicas: 8, Reason: "fit; headroom keeps 8 pod(s): 15 free slot(s) wanted of 35 is above the down threshold 0.4"}},
		// The policy asks more than the headroom: its answer stands.
		{name: "policy above", cfg: cfgWith(10, 0, 0), current: 4, demand: 45, rec: fit(9), want: fit(9)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obs := Observation{Current: tc.current, Capacity: 10, Held: int64(tc.demand), Config: tc.cfg}
			if diff := cmp.Diff(tc.want, withHeadroom(tc.cfg, obs, tc.rec)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
