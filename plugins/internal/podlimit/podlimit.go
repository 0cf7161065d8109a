// Package podlimit lets a filter that caps how many pods a source may span
// (NoMaxResourceCount) tell the spread plugins about the cap.
//
// Once a source spans as many pods as it may, the pods not holding it can take
// none of its vreplicas, and a spread plugin counting them as empty would see
// a skew the source can never reduce: with two partitions, four pods and
// MaxSkew 2 the source would stop at 2+2 vreplicas while the pods have room.
// Spread plugins therefore count only the holding pods once the cap is
// reached.
package podlimit

import "github.com/vsched/vsched/framework"

const key framework.StateKey = "vsched.dev/pod-limit"

// Set records, from Prepare, that the decision's source may span at most n
// pods.
func Set(d *framework.Decision, n int32) { d.Store(key, n) }

// Reached reports whether a cap was Set and the source already spans that
// many pods, so that for the rest of the decision only pods holding it can
// take more.
func Reached(d *framework.Decision) bool {
	v, ok := d.Load(key)
	if !ok {
		return false
	}
	n, ok := v.(int32)
	return ok && int64(d.PodsHeld()) >= int64(n)
}
