package autoscaler

import (
	"errors"
	"time"

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
// with estimates and sheds in play.

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
