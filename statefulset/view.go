package statefulset

import (
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/state"
)

// The views (Pods, Source, Sources) and Snapshot read the same state for
// different readers. A view is plain data for a status page, a metric or a
// reconciler's log line: it copies only what it names, in stable types.
// Snapshot is a whole state.Reader, for code that reasons like the
// scheduler (tests, the CLI's snapshot, the simulator): it copies every
// source, so it is not for every reconcile.

// PodView is what the scheduler knows of one pod of its StatefulSet.
type PodView struct {
	Ordinal int32
	Name    string
	// Exists is false for an ordinal below the replicas whose pod has not
	// been seen yet.
	Exists bool
	// Node and Zone are empty while the pod is unbound (or unzoned).
	Node, Zone string
	// Candidate says whether the pod may receive vreplicas; Reason says
	// why not.
	Candidate bool
	Reason    string
	Draining  bool
	// Used is what every source counts on the pod: per source, the larger
	// of its committed and its reserved vreplicas there.
	Used int32
}

// SourceView is what the scheduler counts for one source.
type SourceView struct {
	Key types.NamespacedName
	// VReplicas is what the source last asked for.
	VReplicas int32
	// Committed is what its status showed last, normalized.
	Committed []vsched.Placement
	// Reserved is the decision not yet seen in its status (nil when none),
	// made from the source at resource version BasedOn, at ReservedAt.
	Reserved   []vsched.Placement
	BasedOn    string
	ReservedAt time.Time
	// Pending is how many vreplicas its last decision could not place.
	Pending int32
}

// Pods returns a copy of what the scheduler knows of every pod below the
// StatefulSet's replicas, by ordinal. It holds the state lock for a time
// proportional to the replicas.
func (s *Scheduler) Pods() []PodView {
	s.st.Lock()
	defer s.st.Unlock()
	out := make([]PodView, 0, s.st.Replicas())
	for ord := int32(0); ord < s.st.Replicas(); ord++ {
		pv := PodView{Ordinal: ord, Name: vsched.PodName(s.key.Name, ord), Draining: s.st.Draining(ord), Used: s.st.Used(ord)}
		if info, ok := s.st.Pod(ord); ok {
			pv.Exists, pv.Node, pv.Zone = true, info.Node, info.Zone
			pv.Candidate, pv.Reason = info.Candidate, info.Reason
		} else {
			pv.Reason = "pod does not exist"
		}
		out = append(out, pv)
	}
	return out
}

// Source returns a copy of what the scheduler counts for one source.
func (s *Scheduler) Source(key types.NamespacedName) (SourceView, bool) {
	s.st.Lock()
	defer s.st.Unlock()
	return sourceView(s.st, key)
}

// Sources returns a copy of what the scheduler counts for every source, in
// key order. It holds the state lock for a time proportional to the
// sources: for tests, tools and diagnostics, not for every reconcile.
func (s *Scheduler) Sources() []SourceView {
	s.st.Lock()
	defer s.st.Unlock()
	keys := s.st.Sources()
	out := make([]SourceView, 0, len(keys))
	for _, k := range keys {
		if v, ok := sourceView(s.st, k); ok {
			out = append(out, v)
		}
	}
	return out
}

func sourceView(st *state.State, key types.NamespacedName) (SourceView, bool) {
	committed, ok := st.Committed(key)
	if !ok {
		return SourceView{}, false
	}
	v := SourceView{Key: key, VReplicas: st.VReplicasOf(key), Committed: slices.Clone(committed), Pending: st.PendingOf(key)}
	if r, ok := st.ReservationOf(key); ok {
		v.Reserved, v.BasedOn, v.ReservedAt = slices.Clone(r.Placements), r.BasedOn, r.At
	}
	return v, true
}
