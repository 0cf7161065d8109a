package statefulset

import (
	"sync"

	"go.uber.org/zap"
	corev1 "k8s.io/api/core/v1"

	"github.com/vsched/vsched/state"
)

// Log messages of seenViews, for tests and log searches.
const (
	// LogNodeAvailability is logged once each time the scheduler's view of
	// whether a node takes new vreplicas changes, with the fields "node",
	// "schedulable", "unavailable" and "reason".
	LogNodeAvailability = "vsched node availability changed"
	// LogReplicasSeen is logged once each time the StatefulSet's
	// spec.replicas seen by the scheduler's informer changes, with the
	// fields "from" and "replicas" (from is -1 the first time). Both also
	// carry "statefulset".
	LogReplicasSeen = "vsched StatefulSet replicas seen"
)

// nodeView is what the scheduler's state makes of a node.
type nodeView struct {
	schedulable, unavailable bool
	reason                   string
}

// seenViews logs, once per change, what the informer handlers have put in
// the state: a node cordoned, NotReady, tainted unreachable, back, or gone,
// and the StatefulSet's size. It is logged after the state holds the change,
// so a line means every later decision sees it: operators read why
// vreplicas avoid (or return to) a node, and tests wait for the line instead
// of sleeping before they assert on a change.
type seenViews struct {
	log *zap.SugaredLogger

	mu    sync.Mutex
	nodes map[string]nodeView
	// size is the last spec.replicas seen; sized is false before the first.
	size  int32
	sized bool
}

// node records the node's availability and logs it when it changed. A node
// seen for the first time is logged only when it cannot take vreplicas, so
// a start logs the nodes that are out, not every node.
func (v *seenViews) node(n *corev1.Node) {
	var now nodeView
	now.schedulable, now.unavailable, now.reason = state.NodeAvailability(n)
	v.mu.Lock()
	before, known := v.nodes[n.Name]
	if v.nodes == nil {
		v.nodes = map[string]nodeView{}
	}
	v.nodes[n.Name] = now
	v.mu.Unlock()
	if (known && before == now) || (!known && now.schedulable) {
		return
	}
	v.logger().Infow(LogNodeAvailability, "node", n.Name,
		"schedulable", now.schedulable, "unavailable", now.unavailable, "reason", now.reason)
}

func (v *seenViews) nodeGone(name string) {
	v.mu.Lock()
	_, known := v.nodes[name]
	delete(v.nodes, name)
	v.mu.Unlock()
	if known {
		v.logger().Infow(LogNodeAvailability, "node", name,
			"schedulable", false, "unavailable", true, "reason", "node was deleted")
	}
}

// replicas records the StatefulSet's spec.replicas and logs it when it
// changed.
func (v *seenViews) replicas(n int32) {
	v.mu.Lock()
	from, sized := v.size, v.sized
	v.size, v.sized = n, true
	v.mu.Unlock()
	if sized && from == n {
		return
	}
	if !sized {
		from = -1
	}
	v.logger().Infow(LogReplicasSeen, "from", from, "replicas", n)
}

func (v *seenViews) logger() *zap.SugaredLogger {
	if v.log == nil {
		return zap.NewNop().Sugar()
	}
	return v.log
}
