package vsched

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// VPod is a source whose vreplicas are placed onto StatefulSet pods. Any
// source type implements it; the scheduler never mutates what it returns.
type VPod interface {
	// GetKey returns the source's namespace and name.
	GetKey() types.NamespacedName
	// GetVReplicas returns how many vreplicas the source wants placed.
	GetVReplicas() int32
	// GetPlacements returns the placements recorded in the source's status.
	// Callers must not modify the returned slice.
	GetPlacements() []Placement
	// GetResourceVersion returns the resource version the object was read at.
	// Reservations compare it to tell a committed decision from a stale one.
	GetResourceVersion() string
}

// ResourceCounter is implemented by a VPod that knows how many independent
// resources it can spread over, such as its topic's partition count. A source
// never benefits from more pods than it has resources, so plugins that cap the
// number of pods (NoMaxResourceCount) prefer this count over their own
// configured default. A count of 0 or less means "unknown".
type ResourceCounter interface {
	GetResourceCount() int32
}

// ResourceCount returns the source's own resource count when it reports one,
// and 0 otherwise.
func ResourceCount(vpod VPod) int32 {
	if rc, ok := vpod.(ResourceCounter); ok {
		if n := rc.GetResourceCount(); n > 0 {
			return n
		}
	}
	return 0
}

// VPodLister lists every source the scheduler is responsible for.
type VPodLister func() ([]VPod, error)

// Scheduler places a source's vreplicas onto pods.
type Scheduler interface {
	// Schedule returns the source's new placements, sorted by pod ordinal.
	// When not every vreplica could be placed it returns the partial
	// placements together with an error for which
	// errors.Is(err, ErrNotEnoughReplicas) holds; errors.As with a
	// *PendingError yields how many are pending.
	Schedule(ctx context.Context, vpod VPod) ([]Placement, error)
}

// PlainVPod is a VPod (and ResourceCounter) as plain data: the one
// implementation vsched itself uses, for a source known only from the
// scheduler's state, for the in-memory cluster's sources (package
// memcluster) and for test fixtures. Source controllers implement VPod on
// their own resource type instead.
type PlainVPod struct {
	Key             types.NamespacedName
	VReplicas       int32
	Placements      []Placement
	ResourceVersion string
	// Resources is the source's own resource count (ResourceCounter); 0
	// reports none.
	Resources int32
	// Cost is what one vreplica costs (VReplicaCoster); nil declares
	// none.
	Cost corev1.ResourceList
	// MeasureCost opts into a measured cost for the resources Cost does
	// not declare (VReplicaCostMeasurer).
	MeasureCost bool
}

var (
	_ VPod            = &PlainVPod{}
	_ ResourceCounter = &PlainVPod{}
	_ VReplicaCoster  = &PlainVPod{}

	_ VReplicaCostMeasurer = &PlainVPod{}
)

func (v *PlainVPod) GetKey() types.NamespacedName { return v.Key }
func (v *PlainVPod) GetVReplicas() int32          { return v.VReplicas }
func (v *PlainVPod) GetPlacements() []Placement   { return v.Placements }
func (v *PlainVPod) GetResourceVersion() string   { return v.ResourceVersion }
func (v *PlainVPod) GetResourceCount() int32      { return v.Resources }

// GetVReplicaCost implements VReplicaCoster.
func (v *PlainVPod) GetVReplicaCost() corev1.ResourceList { return v.Cost }

// MeasuresVReplicaCost implements VReplicaCostMeasurer.
func (v *PlainVPod) MeasuresVReplicaCost() bool { return v.MeasureCost }

// String reads, for example, "ns/name@7{vreplicas: 3, placements: [...]}".
func (v *PlainVPod) String() string {
	return fmt.Sprintf("%s@%s{vreplicas: %d, placements: %v}", v.Key, v.ResourceVersion, v.VReplicas, v.Placements)
}
