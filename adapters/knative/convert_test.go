package knative_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	duckv1alpha1 "knative.dev/eventing/pkg/apis/duck/v1alpha1"
	"knative.dev/eventing/pkg/scheduler"

	"github.com/vsched/vsched"
	knative "github.com/vsched/vsched/adapters/knative"
)

func TestPlacementConversions(t *testing.T) {
	for _, tc := range []struct {
		name string
		kn   []duckv1alpha1.Placement
		vs   []vsched.Placement
	}{
		{name: "nil"},
		{name: "empty", kn: []duckv1alpha1.Placement{}, vs: []vsched.Placement{}},
		{name: "two pods", kn: []duckv1alpha1.Placement{pl("adapter-0", 2), pl("adapter-3", 1)},
			vs: []vsched.Placement{{PodName: "adapter-0", VReplicas: 2}, {PodName: "adapter-3", VReplicas: 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.vs, knative.FromKnative(tc.kn)); diff != "" {
				t.Errorf("FromKnative (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.kn, knative.ToKnative(tc.vs)); diff != "" {
				t.Errorf("ToKnative (-want +got):\n%s", diff)
			}
		})
	}
	// Zone and node have no field in Knative's type.
	got := knative.ToKnative([]vsched.Placement{{PodName: "adapter-1", ZoneName: "a", NodeName: "n", VReplicas: 3}})
	if diff := cmp.Diff([]duckv1alpha1.Placement{pl("adapter-1", 3)}, got); diff != "" {
		t.Errorf("ToKnative with zone and node (-want +got):\n%s", diff)
	}
}

// partitioned is a Knative VPod that reports its partition count.
type partitioned struct {
	source
	partitions int32
}

func (p *partitioned) GetResourceCount() int32 { return p.partitions }

func TestVPod(t *testing.T) {
	src := &source{key: key("s"), vreplicas: 3, rv: "7", placements: []duckv1alpha1.Placement{pl("adapter-0", 3)}}
	v := knative.VPod(src)
	if v.GetKey() != key("s") || v.GetVReplicas() != 3 || v.GetResourceVersion() != "7" ||
		!vsched.SamePlacements(v.GetPlacements(), []vsched.Placement{{PodName: "adapter-0", VReplicas: 3}}) {
		t.Errorf("VPod = %v %d %q %v", v.GetKey(), v.GetVReplicas(), v.GetResourceVersion(), v.GetPlacements())
	}
	if _, ok := v.(vsched.ResourceCounter); ok {
		t.Errorf("a VPod without a resource count claims one")
	}
	if n := vsched.ResourceCount(knative.VPod(&partitioned{source: *src, partitions: 12})); n != 12 {
		t.Errorf("ResourceCount = %d, want 12", n)
	}
	if knative.VPod(nil) != nil {
		t.Errorf("VPod(nil) is not nil")
	}
}

func TestLister(t *testing.T) {
	srcs := newSources()
	srcs.write(key("b"), func(s *source) { s.vreplicas = 1 })
	srcs.write(key("a"), func(s *source) { s.vreplicas = 2 })
	list, err := knative.Lister(srcs.list)()
	if err != nil || len(list) != 2 || list[0].GetKey() != key("a") || list[1].GetVReplicas() != 1 {
		t.Errorf("Lister() = %v, %v", list, err)
	}
	boom := errors.New("boom")
	if _, err := knative.Lister(func() ([]scheduler.VPod, error) { return nil, boom })(); !errors.Is(err, boom) {
		t.Errorf("Lister error = %v, want boom", err)
	}
}
