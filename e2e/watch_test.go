//go:build e2e

package e2e

import (
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/internal/sample/apis/v1alpha1"
)

// statusWatch sees every version of every source the API server sends and
// records any moment a source's status lacks vreplicas it had: between two
// consecutive versions, the placed count may only fall to the new
// spec.vreplicas (a scale-down), never below it, so a move (compaction, a
// drained pod) never leaves a vreplica out of the status.
type statusWatch struct {
	mu         sync.Mutex
	versions   int
	violations []string
	stop       chan struct{}
}

func (e *env) watchStatuses() *statusWatch {
	w := &statusWatch{stop: make(chan struct{})}
	f := dynamicinformer.NewFilteredDynamicSharedInformerFactory(e.cp.Dynamic, 0, sourcesNS, nil)
	inf := f.ForResource(v1alpha1.GroupVersionResource).Informer()
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(oldObj, newObj any) {
			o, err1 := v1alpha1.FromUnstructured(oldObj.(*unstructured.Unstructured))
			n, err2 := v1alpha1.FromUnstructured(newObj.(*unstructured.Unstructured))
			if err1 != nil || err2 != nil {
				return
			}
			w.mu.Lock()
			defer w.mu.Unlock()
			w.versions++
			was, now := vsched.TotalVReplicas(o.Status.Placements), vsched.TotalVReplicas(n.Status.Placements)
			if now < min(was, n.Spec.VReplicas) {
				w.violations = append(w.violations, fmt.Sprintf("%s %s: placed %d -> %d with vreplicas %d (rv %s -> %s)",
					time.Now().Format("15:04:05.000"), n.Name, was, now, n.Spec.VReplicas, o.ResourceVersion, n.ResourceVersion))
			}
		},
	})
	f.Start(w.stop)
	e.t.Cleanup(func() { close(w.stop) })
	return w
}

func (w *statusWatch) check(e *env) {
	e.t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	e.t.Logf("status watch: %d source versions observed", w.versions)
	for _, v := range w.violations {
		e.t.Errorf("vreplicas missing from a status: %s", v)
	}
}
