package embedkit_test

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/costestimate"
	"github.com/vsched/vsched/embedkit"
	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/usage"
)

// lateReader reads the usage of a cluster made after the options.
type lateReader struct{ c **memcluster.Cluster }

func (r lateReader) Read(ctx context.Context) ([]usage.Sample, error) {
	return (*r.c).UsageReader().Read(ctx)
}

// TestPodUsageReachesTheScheduler: with Options.Usage, the autoscaler's
// cycles feed the estimates the scheduler counts for a source that opts in.
func TestPodUsageReachesTheScheduler(t *testing.T) {
	var cl *memcluster.Cluster
	est := costestimate.NewMeasured(costestimate.MeasuredOptions{Options: costestimate.Options{Smoothing: 1}})
	s, c, sources, _ := start(t, true, func(mo *memcluster.Options, eo *embedkit.Options) {
		// The autoscaler runs on the real clock: samples are stamped now.
		mo.Clock = clocktesting.NewFakeClock(time.Now())
		eo.Usage, eo.CostEstimates = lateReader{&cl}, est
	})
	cl = c
	ctx := context.Background()
	key := types.NamespacedName{Namespace: "ns", Name: "m"}
	sources.Put(vsched.PlainVPod{Key: key, VReplicas: 2, MeasureCost: true})
	ps, err := sources.Reconcile(ctx, s, key)
	if err != nil {
		t.Fatal(err)
	}
	s.Observe(mustGet(t, sources, key))
	for _, p := range ps {
		ord, _ := vsched.OrdinalOf(c.StatefulSetName(), p.PodName)
		c.SetPodUsage(ord, corev1.ResourceList{corev1.ResourceMemory: *resource.NewQuantity(int64(p.VReplicas)*300<<20, resource.BinarySI)})
	}
	for range 5 {
		if _, err := s.Autoscaler.Reconcile(ctx); err != nil {
			t.Fatal(err)
		}
	}
	s.Observe(mustGet(t, sources, key))
	st, err := s.CloneLoaded(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := st.CostOf(key)[corev1.ResourceMemory]
	if want := resource.MustParse("300Mi"); got.Cmp(want) != 0 {
		t.Errorf("the scheduler counts %v of memory per vreplica of m, want the estimate 300Mi (placements %v)", got.String(), ps)
	}
}

// countingReader counts the reads that reach the metrics API.
type countingReader struct {
	usage.Reader
	mu    sync.Mutex
	reads int
}

func (r *countingReader) Read(ctx context.Context) ([]usage.Sample, error) {
	r.mu.Lock()
	r.reads++
	r.mu.Unlock()
	return r.Reader.Read(ctx)
}

// TestOneUsageReadPerCycle: Options.Usage feeds the cpu and memory
// triggers, the cost estimates and hot pods; an autoscaler cycle asks the
// metrics API once for all of them.
func TestOneUsageReadPerCycle(t *testing.T) {
	var cl *memcluster.Cluster
	r := &countingReader{Reader: lateReader{&cl}}
	cfg := config.DefaultAutoscalerConfig()
	cfg.Policy = config.PolicyTriggers
	up := config.Trigger{Usage: 80, Threshold: 50, Time: config.Duration{Duration: time.Minute}}
	cpu, mem := up, up
	cpu.Type, mem.Type = config.TriggerCPU, config.TriggerMemory
	cfg.Triggers = &config.Triggers{Up: config.TriggerList{Triggers: []config.Trigger{cpu, mem}}}
	s, c, _, _ := start(t, true, func(mo *memcluster.Options, eo *embedkit.Options) {
		mo.Clock = clocktesting.NewFakeClock(time.Now())
		eo.Usage = r
		eo.AutoscalerConfig = func() *config.AutoscalerConfig { return cfg }
	})
	cl = c
	if _, err := s.Autoscaler.Reconcile(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r.reads != 1 {
		t.Errorf("one autoscaler cycle read the pods' usage %d times; want 1 (triggers, estimates and hot pods share a read)", r.reads)
	}
}
