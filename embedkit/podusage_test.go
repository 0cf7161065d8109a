package embedkit_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/vsched/vsched"
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
