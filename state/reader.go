package state

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
)

// Reader is the read-only side of a State: what packages other than the
// scheduler may ask of its view (statefulset.Scheduler.Snapshot hands one
// out). *State implements it; a Snapshot is a copy, so nothing done through
// it, or to the State it was taken from, affects the other.
type Reader interface {
	framework.Cluster
	Options() Options
	ObservedReplicas() int32
	Fenced() (int32, bool)

	NumPods() int32
	PodExists(ord int32) bool
	Tracks(ord int32) bool
	Draining(ord int32) bool
	DrainingOrdinals() []int32
	NodeUnavailableSince(ord int32) time.Time
	PodUnboundSince(ord int32) time.Time
	PodUnavailableSince(ord int32) time.Time
	UnboundPast(now time.Time, grace time.Duration) []int32
	UnavailableVReplicas() int64
	Used(ord int32) int32
	TotalUsed() int64
	HighestUsedOrdinal() int32
	FreeCapacity() int64

	Knows(key types.NamespacedName) bool
	Sources() []types.NamespacedName
	SourcesOn(ord int32) []types.NamespacedName
	Committed(key types.NamespacedName) ([]vsched.Placement, bool)
	Placements(key types.NamespacedName) ([]vsched.Placement, bool)
	ReservationOf(key types.NamespacedName) (Reservation, bool)
	VReplicasOf(key types.NamespacedName) int32
	PendingOf(key types.NamespacedName) int32
	Pending() (map[types.NamespacedName]int32, int64)
	TotalVReplicas() int64
	HoldingsOn(on func(ordinal int32) bool) []Holding
	EachSource(fn func(key types.NamespacedName, vreplicas int32, placements []vsched.Placement, held []Held))
	EachSourceSummary(fn func(key types.NamespacedName, sum SourceSummary))
	HeldOn(key types.NamespacedName) []Held
	Summary(key types.NamespacedName) (SourceSummary, bool)
	Slots() int32
	NumSources() int

	ChangeMark() ChangeMark
	ChangedSince(mark ChangeMark) ([]types.NamespacedName, bool)
	RoomMark() uint64
}

var _ Reader = &State{}

// Snapshot returns a copy of the state that only reads, for callers other
// than the scheduler: tests, tools, the simulator's reports. Call it with
// the state locked; the copy needs no lock, and its derived indexes are
// built before it is returned, so several goroutines may read it at once.
func (s *State) Snapshot() Reader {
	c := s.Clone()
	c.ensure()
	return c
}
