package controller

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	k8stesting "k8s.io/client-go/testing"
	"knative.dev/pkg/logging"
	"knative.dev/pkg/system"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/internal/app/sample/apis/v1alpha1"
	"github.com/vsched/vsched/internal/app/sample/scalerun"
	"github.com/vsched/vsched/memcluster"
)

// BenchmarkRestartMemory is make e2e-scale's restart on fakes: the whole
// controller (Run) places restartSources sources of the scale run's sizes
// on a memcluster, is stopped, and another Run starts on the same API,
// loads its term (a fresh list of every source) and reconciles every
// source again. It reports the heap each Run adds to what the fakes hold
// (the "API server" lives in this process): the highest live heap (as of
// each GC; what the heap grows to is about twice it at GOGC=100), the
// highest heap in use including garbage not yet collected, and the live
// heap after a GC once the Run is done.
//
//	go test ./internal/app/sample/controller -run '^$' -bench RestartMemory -benchtime 1x
func BenchmarkRestartMemory(b *testing.B) {
	for b.Loop() {
		m := newMemRun(b)
		first := m.run(false)
		restart := m.run(true)
		for _, r := range []struct {
			name string
			f    heapFigures
		}{{"first", first}, {"restart", restart}} {
			b.ReportMetric(mib(r.f.peakLive), r.name+"-peak-live-MiB")
			b.ReportMetric(mib(r.f.peakHeap), r.name+"-peak-heap-MiB")
			b.ReportMetric(mib(r.f.after), r.name+"-after-MiB")
		}
		b.ReportMetric(float64(m.lists), "source-lists")
	}
}

// restartSources is the scale run's number of sources; restartCapacity its
// --capacity, which makes 264 pods.
const (
	restartSources  = 10000
	restartCapacity = 100
)

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// memRun is the fakes both Runs share.
type memRun struct {
	b       *testing.B
	cluster *memcluster.Cluster
	api     *apiServer
	keys    []types.NamespacedName

	mu      sync.Mutex
	watches []<-chan watch.Event // the tracker's watch channels
	lists   int
}

func newMemRun(b *testing.B) *memRun {
	b.Helper()
	sizes := scalerun.Sizes(restartSources)
	var total int32
	for _, v := range sizes {
		total += v
	}
	pods := (total + restartCapacity - 1) / restartCapacity
	c, err := memcluster.New(context.Background(), memcluster.Options{
		Zones: []string{"zone-a", "zone-b", "zone-c"}, NodesPerZone: 2, Replicas: pods, Capacity: restartCapacity, SyncTimeout: time.Minute,
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Shutdown)
	if _, err := c.Client().CoreV1().ConfigMaps(c.Namespace()).Create(context.Background(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace(), Name: config.DefaultAutoscalerConfigMapName},
		Data:       recommendOnly,
	}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	m := &memRun{b: b, cluster: c, api: newAPIServer()}
	m.api.client.PrependWatchReactor(v1alpha1.Resource, m.trackWatch)
	m.api.client.PrependReactor("update", v1alpha1.Resource, m.backPressure)
	m.api.client.PrependReactor("list", v1alpha1.Resource, func(a k8stesting.Action) (bool, kruntime.Object, error) {
		m.mu.Lock()
		m.lists++
		m.mu.Unlock()
		return false, nil, nil
	})
	for i, v := range sizes {
		src := v1alpha1.New(srcNS, fmt.Sprintf("src-%05d", i), v)
		src.ManagedFields = serverManagedFields()
		s := m.api.create(b, src)
		m.keys = append(m.keys, s.GetKey())
	}
	b.Setenv(system.NamespaceEnvKey, c.Namespace())
	return m
}

// serverManagedFields are what the API server records of the scale run's
// sources once placed: the test's create and the controller's status
// writes (the fakes record none). Each source carries its own copy, as
// each object decoded from the API server does.
func serverManagedFields() []metav1.ManagedFieldsEntry {
	at := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	return []metav1.ManagedFieldsEntry{{
		Manager: "e2e.test", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: v1alpha1.Group + "/" + v1alpha1.Version,
		Time: &at, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{".":{},"f:vreplicas":{}}}`)},
	}, {
		Manager: "sample-controller", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: v1alpha1.Group + "/" + v1alpha1.Version,
		Time: &at, FieldsType: "FieldsV1", Subresource: "status",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{".":{},"f:conditions":{".":{},"k:{\"type\":\"Scheduled\"}":{".":{},"f:lastTransitionTime":{},"f:message":{},"f:observedGeneration":{},"f:reason":{},"f:status":{},"f:type":{}}},"f:observedGeneration":{},"f:placedVReplicas":{},"f:placements":{}}}`)},
	}}
}

// trackWatch opens the tracker's watch as the apiServer does, noting its
// channel for backPressure.
func (m *memRun) trackWatch(action k8stesting.Action) (bool, watch.Interface, error) {
	w, err := m.api.client.Tracker().Watch(gvr, action.GetNamespace())
	if err != nil {
		return true, nil, err
	}
	m.api.watchOnce.Do(func() { close(m.api.watching) })
	m.mu.Lock()
	m.watches = append(m.watches, w.ResultChan())
	m.mu.Unlock()
	return true, w, nil
}

// backPressure holds a write back while the fake's watch channel of some
// informer is half full: the fake panics when it is full, and thousands of
// status writes in a row can outrun the informer.
func (m *memRun) backPressure(k8stesting.Action) (bool, kruntime.Object, error) {
	for {
		m.mu.Lock()
		full := slices.ContainsFunc(m.watches, func(c <-chan watch.Event) bool { return len(c) > watchHeadroom })
		m.mu.Unlock()
		if !full {
			return false, nil, nil
		}
		runtime.Gosched()
	}
}

// watchHeadroom is half the fake watch channel's 100 events.
const watchHeadroom = 50

// heapFigures are what one Run adds to the heap, in bytes.
type heapFigures struct{ peakLive, peakHeap, after int64 }

// run starts Run on the fakes; the first places every source, a restart
// reconciles them again (and must write nothing). It returns once a probe
// source created after the term's load, queued behind every source, is
// placed.
func (m *memRun) run(restart bool) heapFigures {
	m.b.Helper()
	runtime.GC()
	base := readHeap()
	sampler := sampleHeap(m.api.client.ClearActions)
	core, logs := observer.New(zap.InfoLevel)
	ctx, cancel := context.WithCancel(logging.WithLogger(context.Background(), zap.New(core).Sugar()))
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{
			Namespace: m.cluster.Namespace(), StatefulSet: m.cluster.StatefulSetName(), Capacity: restartCapacity,
			Threadiness: 4, Kube: m.cluster.Client(), Dynamic: m.api.client,
		})
	}()
	writes := len(m.api.statusWrites(types.NamespacedName{}))
	if !restart {
		m.waitPlaced(m.keys...)
	}
	eventually(m.b, time.Minute, "the term's load", func() bool { return logs.FilterMessage("vsched state loaded").Len() > 0 })
	probe := m.api.create(m.b, v1alpha1.New(srcNS, fmt.Sprintf("probe-%t", restart), 3))
	m.waitPlaced(probe.GetKey())
	if got := len(m.api.statusWrites(types.NamespacedName{})) - writes; restart && got != 1 {
		m.b.Errorf("the restart wrote %d statuses, want 1 (the probe's)", got)
	}
	peak := sampler.stop()
	runtime.GC()
	f := heapFigures{peakLive: peak.live - base.live, peakHeap: peak.heap - base.live, after: readHeap().live - base.live}
	cancel()
	if err := <-done; err != nil {
		m.b.Fatalf("Run() = %v", err)
	}
	return f
}

// waitPlaced waits until the stored sources are placed in full.
func (m *memRun) waitPlaced(keys ...types.NamespacedName) {
	m.b.Helper()
	eventually(m.b, 2*time.Minute, "every source placed", func() bool {
		for len(keys) > 0 {
			if s := m.api.tryGet(keys[0]); s == nil || !allPlaced(s) {
				return false
			}
			keys = keys[1:]
		}
		return true
	})
}

// heapSample is the heap in bytes: live as of the last GC, and in use with
// the garbage not collected yet.
type heapSample struct{ live, heap int64 }

var heapMetrics = []string{"/gc/heap/live:bytes", "/memory/classes/heap/objects:bytes"}

func readHeap() heapSample {
	s := make([]metrics.Sample, len(heapMetrics))
	for i, name := range heapMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	return heapSample{live: int64(s[0].Value.Uint64()), heap: int64(s[1].Value.Uint64())}
}

// heapSampler keeps the highest heap seen every millisecond; tick runs
// each time (the fake clientset's record of actions would grow with every
// request otherwise).
type heapSampler struct {
	mu   sync.Mutex
	peak heapSample
	quit chan struct{}
	done chan struct{}
}

func sampleHeap(tick func()) *heapSampler {
	h := &heapSampler{quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-h.quit:
				return
			case <-t.C:
			}
			tick()
			s := readHeap()
			h.mu.Lock()
			h.peak.live, h.peak.heap = max(h.peak.live, s.live), max(h.peak.heap, s.heap)
			h.mu.Unlock()
		}
	}()
	return h
}

func (h *heapSampler) stop() heapSample {
	close(h.quit)
	<-h.done
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.peak
}

// TestSourcesReadWithoutManagedFields: neither the source informer's cache
// nor a term's fresh list keeps the managedFields the API server sends.
func TestSourcesReadWithoutManagedFields(t *testing.T) {
	api := newAPIServer()
	src := v1alpha1.New(srcNS, "a", 2)
	src.ManagedFields = serverManagedFields()
	api.create(t, src)
	u, err := v1alpha1.ToUnstructured(src)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dropManagedFields(u); err != nil || len(u.GetManagedFields()) != 0 {
		t.Errorf("dropManagedFields left %v, %v", u.GetManagedFields(), err)
	}
	vpods, err := freshSources(context.Background(), api.client.Resource(gvr).Namespace(srcNS))()
	if err != nil || len(vpods) != 1 {
		t.Fatalf("freshSources() = %v, %v; want the one source", vpods, err)
	}
	if mf := vpods[0].(*v1alpha1.SampleSource).ManagedFields; len(mf) != 0 {
		t.Errorf("the fresh list kept managedFields %v", mf)
	}
}
