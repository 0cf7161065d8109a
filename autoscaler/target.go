package autoscaler

import (
	"context"

	"go.uber.org/zap"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/state"
)

// Target is what the autoscaler needs of the scheduler whose StatefulSet
// it sizes; *statefulset.Scheduler implements it. The autoscaler reads
// copies and sends notifications through it, and never holds the
// scheduler's own state beyond one call. Each method belongs to one of the
// contracts doc.go lists.
type Target interface {
	// The snapshot: what the scheduler sees, read, never changed.

	// StatefulSet is the key of the StatefulSet sized.
	StatefulSet() types.NamespacedName
	// IsLeader reports whether this replica schedules: only the leader
	// sizes.
	IsLeader() bool
	// NotReady says which view the scheduler lacks, "" when it has every
	// one: a cycle decided on a partial view would take missing pods or
	// sources for idle capacity.
	NotReady() string
	// Replicas is the size the scheduler's decisions count.
	Replicas() int32
	// RestoreSize is the size to write when the StatefulSet was created
	// again with fewer replicas than the pods its sources hold, or scaled
	// below them from outside (ok); the scheduler decides nothing until
	// it is written (Grown).
	RestoreSize() (to int32, ok bool)
	// ScaledDownFromOutside says the size RestoreSize asks for follows a
	// scale-down vsched did not make (the StatefulSet kept, scaled below
	// the pods its sources hold), not a StatefulSet created again.
	ScaledDownFromOutside() bool
	// CloneLoaded is a copy of the state, loaded for the current term, for
	// the cycle to simulate on; changing it changes nothing in the
	// scheduler.
	CloneLoaded(ctx context.Context) (*state.State, error)
	// Logger is the scheduler's logger, nil when it logs to the context's.
	Logger() *zap.SugaredLogger
	// DrainingAnnotation names the annotation the drainer writes on pods.
	DrainingAnnotation() string

	// The lister and the profiles.

	// ListSources lists every source the scheduler places.
	ListSources() ([]vsched.VPod, error)
	// PlaceProfile is the scheduler profile the simulations run.
	PlaceProfile() *framework.Profile

	// The pending hook: a Schedule call leaving vreplicas pending
	// triggers a cycle.
	SetPendingHook(f func())

	// The size-written notifications the lag work needs: the scheduler's
	// view of the size must not trail a size the autoscaler wrote.

	// SetStatefulSetReader gives a term's first load a read of the
	// StatefulSet through the autoscaler's client, past an informer that
	// may not show yet the size the previous leader wrote last.
	SetStatefulSetReader(f func(context.Context) (*appsv1.StatefulSet, error))
	// Grown says the autoscaler wrote a larger size (to, at resource
	// version rv).
	Grown(to int32, rv string)
	// FenceShrink and EndShrink bracket a shrink's write, so that no
	// decision places on the ordinals it removes (statefulset/shrink.go).
	FenceShrink(current, to int32) (int32, string, state.Fence)
	EndShrink(prev state.Fence, to int32, rv string, err error)

	// evictor.DrainMemory is package evictor's own contract with the
	// scheduler (the drain marks a decision reads at once); the
	// autoscaler only hands it to its Drainer.
	evictor.DrainMemory
}
