package autoscaler

import (
	"errors"
	"time"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/descheduler"
	"github.com/vsched/vsched/evictor"
	"github.com/vsched/vsched/framework"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/costestimate"
)

// TestInvariantUnderLag's measured usage (issue 23): every instance's
// autoscaler reads the pods' usage, which usageStep sets, clears or makes
// fail at random, feeds its cost estimates to its scheduler, and sheds hot
// pods under a random hot-pod configuration. The sources that declare no
// cost (lagCost) opt into a measured one, so the invariants (nothing
// lost, no pod over its slots nor over its memory in declared costs) hold
// with estimates and sheds in play; and sheds go to no hot pod
// (checkShed).

// lagEstimates is an instance's cost estimates, on the cluster's clock.
func (w *lagWorld) lagEstimates() *costestimate.Measured {
	return costestimate.NewMeasured(costestimate.MeasuredOptions{MaxAge: 5 * time.Minute, Now: w.c.Clock().Now})
}

// measureCost makes the source opt into a measured cost.
func (w *lagWorld) measureCost(k types.NamespacedName) {
	v, err := w.src.Get(k)
	if err != nil {
		w.t.Fatal(err)
	}
	m := *v
	m.MeasureCost = true
	w.src.Put(m)
}

// randomHotPods sets the hot-pod keys: memory off, at half or at 90% of
// the pod's memory; a grace of 0 to 90s.
func (w *lagWorld) randomHotPods(cfg *config.AutoscalerConfig) {
	cfg.HotPodMemory = []float64{0, 0.5, 0.9}[w.rng.Intn(3)]
	cfg.HotPodGrace = time.Duration(w.rng.Intn(4)) * 30 * time.Second
}

// usageStep sets random pods' memory usage (0 to 1.25Gi, stamped now),
// clears one's, or makes the reader fail or recover.
func (w *lagWorld) usageStep() {
	switch r := w.rng.Intn(10); {
	case r == 0:
		w.count("usage fails")
		w.c.FailUsage(errors.New("metrics-server is down"))
	case r == 1:
		w.count("usage back")
		w.c.FailUsage(nil)
	case r == 2:
		w.count("usage cleared")
		w.c.ClearPodUsage(int32(w.rng.Intn(lagMaxReplicas)))
	default:
		w.count("usage")
		for ord := int32(0); ord < w.c.Replicas(); ord++ {
			if w.rng.Intn(2) == 0 {
				mi := int64(w.rng.Intn(1281))
				w.c.SetPodUsage(ord, corev1.ResourceList{corev1.ResourceMemory: *resource.NewQuantity(mi<<20, resource.BinarySI)})
			}
		}
	}
}

// checkShed checks that an answer which moves vreplicas off a pod the
// instance's autoscaler marked hot (evictor.ReasonHot) puts none on a pod
// its guard in force measured over a hot-pod limit (the scheduler's
// HotGuard; guard is the one before the call, and an autoscaler cycle that
// ran alongside and changed it leaves the answer unchecked).
// The decision started from the status read or from the instance's last
// answer (its reservation), whichever the state held: a pod counts as one
// the answer put vreplicas on when neither had any there, and as one it
// moved vreplicas off when the answer holds less there than both.
func (w *lagWorld) checkShed(inst *lagInstance, v vsched.VPod, ps []vsched.Placement, guard *descheduler.HotGuard) {
	k := v.GetKey()
	var last []vsched.Placement
	a, hasLast := inst.answers.Load(k)
	if hasLast {
		last = a.([]vsched.Placement)
	}
	inst.answers.Store(k, ps)
	g := inst.s.HotGuard()
	if g == nil || g != guard || w.c.Clock().Now().After(g.Until) || !shedsOffHot(inst, least(v.GetPlacements(), last, hasLast), ps) {
		return
	}
	before := held(v.GetPlacements(), last)
	now := w.c.Clock().Now()
	for _, p := range ps {
		ord, err := vsched.OrdinalFromPodName(p.PodName)
		mp, measured := g.Pods[ord]
		if err != nil || !measured || before[p.PodName] > 0 || (g.MaxAge > 0 && now.Sub(mp.At) > g.MaxAge) {
			continue // a stale sample counts as none
		}
		for i, l := range g.Limits {
			if i < len(mp.Used) && mp.Used[i] > l.Milli {
				w.failf("shed: %s moved vreplicas off a hot pod [%s] -> [%s] and put %d on %s, measured %s of %s, over the hot-pod limit of %s",
					k.Name, short(v.GetPlacements()), short(ps), p.VReplicas, p.PodName, framework.Milli(l.Resource, mp.Used[i]), l.Resource, framework.Milli(l.Resource, l.Milli))
			}
		}
	}
	w.shedChecked.Add(1)
}

// held is, per pod, the most either list holds there.
func held(a, b []vsched.Placement) map[string]int32 {
	out := map[string]int32{}
	for _, list := range [][]vsched.Placement{a, b} {
		for _, p := range list {
			out[p.PodName] = max(out[p.PodName], p.VReplicas)
		}
	}
	return out
}

// least is, per pod, the least the status read and the last answer (when
// there is one) hold there.
func least(read, last []vsched.Placement, hasLast bool) map[string]int32 {
	out := map[string]int32{}
	for _, p := range read {
		out[p.PodName] = p.VReplicas
	}
	if !hasLast {
		return out
	}
	for pod, n := range out {
		var m int32
		if q := vsched.PlacementForPod(last, pod); q != nil {
			m = q.VReplicas
		}
		out[pod] = min(n, m)
	}
	return out
}

// shedsOffHot says whether ps holds less than before on a pod below the
// replicas the instance's autoscaler marked hot.
func shedsOffHot(inst *lagInstance, before map[string]int32, ps []vsched.Placement) bool {
	marks := inst.a.Marks()
	for pod, n := range before {
		ord, err := vsched.OrdinalFromPodName(pod)
		if err != nil || ord >= inst.s.Replicas() || marks[ord] != evictor.ReasonHot {
			continue
		}
		var now int32
		if q := vsched.PlacementForPod(ps, pod); q != nil {
			now = q.VReplicas
		}
		if now < n {
			return true
		}
	}
	return false
}
