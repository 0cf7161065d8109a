package memcluster_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/vsched/vsched/memcluster"
	"github.com/vsched/vsched/usage"
)

func TestUsageReader(t *testing.T) {
	ctx := context.Background()
	c, err := memcluster.New(ctx, memcluster.Options{Zones: []string{"a"}, Replicas: 2, Capacity: 10})
	if err != nil {
		t.Fatal(err)
	}
	t0 := c.Clock().Now()
	c.SetPodUsage(1, corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("300m")})
	c.Clock().Step(time.Minute)
	c.SetPodUsage(0, corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")})
	c.SetPodUsage(5, corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}) // no such pod
	got, err := c.UsageReader().Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Pod   string
		Milli int64
		Time  time.Time
	}
	var rows []row
	for _, s := range got {
		q := s.Usage[corev1.ResourceCPU]
		rows = append(rows, row{s.Pod, q.MilliValue(), s.Time})
	}
	want := []row{{c.PodName(0), 100, t0.Add(time.Minute)}, {c.PodName(1), 300, t0}}
	if d := cmp.Diff(want, rows); d != "" {
		t.Errorf("Read (-want +got):\n%s", d)
	}
	if milli, pods := usage.Sum(got, corev1.ResourceCPU, c.Clock().Now(), 30*time.Second); milli != 100 || pods != 1 {
		t.Errorf("Sum with a 30s max age = %d over %d pods; want 100 over 1 (pod 1's sample is stale)", milli, pods)
	}
	c.FailUsage(errors.New("metrics-server down"))
	if _, err := c.UsageReader().Read(ctx); !errors.Is(err, usage.ErrUnavailable) {
		t.Errorf("Read while failing: %v; want usage.ErrUnavailable", err)
	}
	c.FailUsage(nil)
	c.ClearPodUsage(0)
	if got, err := c.UsageReader().Read(ctx); err != nil || len(got) != 1 || got[0].Pod != c.PodName(1) {
		t.Errorf("Read after clearing pod 0 = %v, %v; want pod 1 only", got, err)
	}
}
