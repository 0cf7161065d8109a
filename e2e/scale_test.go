//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/internal/app/sample/apis/v1alpha1"
	"github.com/vsched/vsched/internal/app/sample/scalerun"
)

// floorNS holds the copies of the sources that measure the API server's
// status-write floor; the controller watches sourcesNS only.
const floorNS = "e2e-floor"

// scaleConfig is TestScale's run, from the environment (make e2e-scale).
type scaleConfig struct {
	sources  int     // E2E_SCALE_SOURCES; 0 skips the test
	capacity int32   // E2E_SCALE_CAPACITY: the controller's --capacity
	qps      float64 // E2E_SCALE_QPS: --kube-api-qps, also the floor's
	burst    int     // E2E_SCALE_BURST: --kube-api-burst, also the floor's
	threads  int     // E2E_SCALE_THREADS: --threadiness, the floor's writers
	timeout  time.Duration
}

func scaleConfigFromEnv(t *testing.T) scaleConfig {
	num := func(key string, def float64) float64 {
		v := os.Getenv(key)
		if v == "" {
			return def
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", key, v, err)
		}
		return f
	}
	return scaleConfig{
		sources:  int(num("E2E_SCALE_SOURCES", 0)),
		capacity: int32(num("E2E_SCALE_CAPACITY", 100)),
		qps:      num("E2E_SCALE_QPS", 200),
		burst:    int(num("E2E_SCALE_BURST", 400)),
		threads:  int(num("E2E_SCALE_THREADS", 4)),
		timeout:  time.Duration(num("E2E_SCALE_TIMEOUT_MINUTES", 28)) * time.Minute,
	}
}

// scaleReport is TestScale's table: each figure with its goal, if any.
type scaleReport struct{ rows [][3]string }

func (r *scaleReport) add(what, value, goal string) {
	r.rows = append(r.rows, [3]string{what, value, goal})
}

func (r *scaleReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "SCALE REPORT\n| %-76s | %-26s | %-12s |\n|%s|%s|%s|\n", "figure", "value", "goal", strings.Repeat("-", 78), strings.Repeat("-", 28), strings.Repeat("-", 14))
	for _, row := range r.rows {
		fmt.Fprintf(&b, "| %-76s | %-26s | %-12s |\n", row[0], row[1], row[2])
	}
	return b.String()
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

// TestScale places E2E_SCALE_SOURCES sources of mixed sizes with the
// sample controller, restarts it, fails a zone, and reports (see
// docs/performance.md, "10,000 sources on the local control plane"). It
// measures the API server's floor first: the same number of plain status
// writes, with the controller's QPS, burst and concurrency, on copies of
// the sources the controller does not watch. It fails only when an
// invariant breaks (a vreplica lost, a pod over capacity or holding
// vreplicas at or beyond the replicas, a source not placed in the end);
// the timing goals are reported, not asserted. Skipped unless
// E2E_SCALE_SOURCES is set: `make e2e-scale`.
func TestScale(t *testing.T) {
	cfg := scaleConfigFromEnv(t)
	if cfg.sources <= 0 {
		t.Skip("E2E_SCALE_SOURCES is not set (make e2e-scale)")
	}
	sizes := scalerun.Sizes(cfg.sources)
	var total int32
	for _, v := range sizes {
		total += v
	}
	fit := (total + cfg.capacity - 1) / cfg.capacity
	maxRepl := 2*fit + 30 // room for a zone's pods while it is down
	rep := &scaleReport{}
	t.Cleanup(func() { t.Log("\n" + rep.String()) })
	rep.add("sources / vreplicas", fmt.Sprintf("%d / %d", cfg.sources, total), "")
	rep.add("capacity, pods needed, max-replicas, nodes", fmt.Sprintf("%d, %d, %d, %d", cfg.capacity, fit, maxRepl, 6), "")
	rep.add("controller --kube-api-qps/--kube-api-burst/--threadiness", fmt.Sprintf("%g/%d/%d", cfg.qps, cfg.burst, cfg.threads), "")

	e := newEnv(t, cfg.timeout, 0)
	e.applyScaleConfig(maxRepl)
	w := e.watchStatuses()
	w.podCapacity = cfg.capacity

	created := time.Now()
	objs := e.createScaleSources(sourcesNS, sizes)
	e.mark(fmt.Sprintf("%d sources created", cfg.sources))
	rep.add("creating the sources (test client, 8 writers)", secs(time.Since(created)), "")
	floor := e.measureFloor(cfg, objs)
	rep.add("API server floor: as many plain status writes", secs(floor), "")

	placing := e.scalePlace(cfg, w, rep)
	rep.add("placing / floor", fmt.Sprintf("%.2f", placing.Seconds()/floor.Seconds()), "<= 2")
	e.scaleRestart(cfg, w, rep)
	e.scaleZoneFailure(cfg, w, rep)
	w.check(e)
}

// applyScaleConfig replaces e2e/testdata's config-autoscaler: room for the
// run's pods, and a move budget that does not ration a zone's drain.
func (e *env) applyScaleConfig(maxReplicas int32) {
	e.t.Helper()
	yaml := fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: config-autoscaler
  namespace: %s
data:
  min-replicas: "0"
  max-replicas: "%d"
  stabilization-window: "6s"
  scale-down-cooldown: "6s"
  refresh-period: "2s"
  policy: "fit"
  compaction: "true"
  max-moves-per-cycle: "5000"
  max-moves-per-source: "50"
  unavailable-pod-grace: "5s"
`, systemNS, maxReplicas)
	if err := e.cp.ApplyYAML(e.ctx, yaml); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.cp.Kube.CoreV1().Namespaces().Create(e.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: floorNS}}, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// dynamicClient is a client for the sources with the given rate limits
// (qps < 0: none).
func (e *env) dynamicClient(qps float64, burst int) dynamic.Interface {
	e.t.Helper()
	c := rest.CopyConfig(e.cp.Config)
	c.QPS, c.Burst = float32(qps), burst
	d, err := dynamic.NewForConfig(c)
	if err != nil {
		e.t.Fatal(err)
	}
	return d
}

// parallel runs f(i) for i in [0, n) on workers goroutines and returns the
// first error.
func parallel(n, workers int, f func(i int) error) error {
	var (
		mu    sync.Mutex
		first error
		next  int
		wg    sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				stop := first != nil
				mu.Unlock()
				if i >= n || stop {
					return
				}
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// createScaleSources creates src-00000... in ns with the vreplicas given,
// without client-side rate limits, and returns them as created.
func (e *env) createScaleSources(ns string, sizes []int32) []*unstructured.Unstructured {
	e.t.Helper()
	c := e.dynamicClient(-1, 0).Resource(v1alpha1.GroupVersionResource).Namespace(ns)
	out := make([]*unstructured.Unstructured, len(sizes))
	err := parallel(len(sizes), 8, func(i int) error {
		u, err := v1alpha1.ToUnstructured(v1alpha1.New(ns, fmt.Sprintf("src-%05d", i), sizes[i]))
		if err != nil {
			return err
		}
		unstructured.RemoveNestedField(u.Object, "status")
		unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
		out[i], err = c.Create(e.ctx, u, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		e.t.Fatalf("creating sources in %s: %v", ns, err)
	}
	return out
}

// measureFloor creates copies of the sources in floorNS and times one
// status write to each, as the controller's would be (placements over up
// to three pods, the Scheduled condition, the observed generation), with
// the controller's QPS, burst and number of workers.
func (e *env) measureFloor(cfg scaleConfig, srcs []*unstructured.Unstructured) time.Duration {
	e.t.Helper()
	sizes := make([]int32, len(srcs))
	for i, u := range srcs {
		src, err := v1alpha1.FromUnstructured(u)
		if err != nil {
			e.t.Fatal(err)
		}
		sizes[i] = src.Spec.VReplicas
	}
	copies := e.createScaleSources(floorNS, sizes)
	e.mark("floor: copies created")
	c := e.dynamicClient(cfg.qps, cfg.burst).Resource(v1alpha1.GroupVersionResource).Namespace(floorNS)
	start := time.Now()
	err := parallel(len(copies), cfg.threads, func(i int) error {
		src, err := v1alpha1.FromUnstructured(copies[i])
		if err != nil {
			return err
		}
		var ps []vsched.Placement
		for p, left := int32(0), src.Spec.VReplicas; left > 0; p++ {
			n := min(left, max(1, src.Spec.VReplicas/3))
			ps = append(ps, vsched.Placement{PodName: vsched.PodName(adapterName, p*7%97), VReplicas: n})
			left -= n
		}
		setStatus(src, ps)
		u, err := v1alpha1.ToUnstructured(src)
		if err != nil {
			return err
		}
		_, err = c.UpdateStatus(e.ctx, u, metav1.UpdateOptions{FieldManager: "e2e-floor"})
		return err
	})
	if err != nil {
		e.t.Fatalf("floor status writes: %v", err)
	}
	took := time.Since(start)
	e.mark("floor: status writes")
	return took
}

// setStatus gives src the status the sample controller writes for
// placements that hold every vreplica.
func setStatus(src *v1alpha1.SampleSource, ps []vsched.Placement) {
	src.Status.Placements = ps
	src.Status.PlacedVReplicas = vsched.TotalVReplicas(ps)
	src.Status.ObservedGeneration = src.Generation
	src.Status.Conditions = []metav1.Condition{{
		Type: v1alpha1.ConditionScheduled, Status: metav1.ConditionTrue, Reason: v1alpha1.ReasonAllPlaced,
		Message:            fmt.Sprintf("%d vreplica(s) placed on %d pod(s)", src.Status.PlacedVReplicas, len(ps)),
		ObservedGeneration: src.Generation, LastTransitionTime: metav1.Now(),
	}}
}

// scaleSnapshot is e.snapshot with the sources from the status watch's
// informer instead of a list of every source per poll.
func (e *env) scaleSnapshot(w *statusWatch) (*snapshot, error) {
	s, err := e.snapshotWith(func() ([]unstructured.Unstructured, error) {
		objs := w.informer.GetStore().List()
		out := make([]unstructured.Unstructured, len(objs))
		for i, obj := range objs {
			out[i] = *obj.(*unstructured.Unstructured)
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	s.podCapacity = w.podCapacity
	return s, nil
}

// waitScale polls scale snapshots every second (every 2s above 2,000
// sources: a snapshot decodes every source, CPU the controller would miss)
// until cond holds, logging progress every 15s.
func (e *env) waitScale(w *statusWatch, what string, cond func(*snapshot) (bool, string)) *snapshot {
	e.t.Helper()
	var (
		last   *snapshot
		why    string
		logged time.Time
	)
	every := time.Second
	if len(w.informer.GetStore().ListKeys()) > 2000 {
		every = 2 * time.Second
	}
	err := wait.PollUntilContextCancel(e.ctx, every, true, func(context.Context) (bool, error) {
		s, err := e.scaleSnapshot(w)
		if err != nil {
			why = err.Error()
			return false, nil
		}
		last = s
		ok, msg := cond(s)
		why = msg
		if !ok && time.Since(logged) > 15*time.Second {
			logged = time.Now()
			e.t.Logf("%6.1fs %s: %s", time.Since(e.start).Seconds(), what, msg)
		}
		return ok, nil
	})
	if err != nil {
		e.t.Fatalf("waiting for %s: %v (last: %s)", what, err, why)
	}
	e.mark(what)
	return last
}

// placedCheck: every source placed on Running pods, nothing over capacity
// or on a pod that does not exist, with settled the adapter's pods all
// Running, and what extra says is wrong.
func placedCheck(settled bool, extra func(*snapshot) string) func(*snapshot) (bool, string) {
	return func(s *snapshot) (bool, string) {
		p := s.violations(checks{allPlaced: true, running: true, wantReplicas: -1})
		if settled && !s.adapterSettled() {
			p = append(p, "adapter pods not all Running")
		}
		if extra != nil {
			if msg := extra(s); msg != "" {
				p = append(p, msg)
			}
		}
		return len(p) == 0, fmt.Sprintf("placed %d of %d; %s", s.placedTotal(), s.totalVReplicas(), summary(p))
	}
}
