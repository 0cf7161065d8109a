package statefulset

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched"
)

// keepUnmoved returns the placements sorted by ordinal, with the vreplicas
// a draining pod kept added, and returns sorted placements with nothing to
// add as they are.
func TestKeepUnmoved(t *testing.T) {
	pl := func(pod string, n int32) vsched.Placement { return vsched.Placement{PodName: pod, VReplicas: n} }
	for _, tc := range []struct {
		name                string
		placements, drained []vsched.Placement
		desired             int32
		want                []vsched.Placement
	}{{
		name:       "nothing to add",
		placements: []vsched.Placement{pl("ss-2", 1), pl("ss-10", 2)},
		desired:    3,
		want:       []vsched.Placement{pl("ss-2", 1), pl("ss-10", 2)},
	}, {
		name:       "short, nothing drained",
		placements: []vsched.Placement{pl("ss-2", 1), pl("ss-10", 2)},
		desired:    5,
		want:       []vsched.Placement{pl("ss-2", 1), pl("ss-10", 2)},
	}, {
		name:       "drained pod kept, sorted in",
		placements: []vsched.Placement{pl("ss-2", 1), pl("ss-10", 2)},
		drained:    []vsched.Placement{pl("ss-3", 4)},
		desired:    5,
		want:       []vsched.Placement{pl("ss-2", 1), pl("ss-3", 2), pl("ss-10", 2)},
	}, {
		name:       "drained pod already listed",
		placements: []vsched.Placement{pl("ss-2", 1), pl("ss-10", 2)},
		drained:    []vsched.Placement{pl("ss-10", 4), pl("ss-1", 1)},
		desired:    5,
		want:       []vsched.Placement{pl("ss-2", 1), pl("ss-10", 4)},
	}, {
		name:       "not short, drained ignored",
		placements: []vsched.Placement{pl("ss-2", 3)},
		drained:    []vsched.Placement{pl("ss-1", 4)},
		desired:    3,
		want:       []vsched.Placement{pl("ss-2", 3)},
	}} {
		got := keepUnmoved(tc.placements, tc.drained, tc.desired)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", tc.name, diff)
		}
	}
}
