package memcluster

import (
	"context"
	"fmt"
	"sort"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/vsched/vsched/usage"
)

// podUsage is the measured usage a test has set, per pod ordinal, as a
// metrics pipeline would report it. Guarded by usageState.mu, apart from
// the cluster's write locks: reading usage never waits for a write.
type usageState struct {
	mu      sync.Mutex
	samples map[int32]usage.Sample
	fail    error
}

// SetPodUsage sets the pod's measured usage, stamped with the cluster's
// clock now, as metrics-server would report it on its next scrape. It
// replaces what was set before for the pod.
func (c *Cluster) SetPodUsage(ord int32, u corev1.ResourceList) {
	c.usage.mu.Lock()
	defer c.usage.mu.Unlock()
	if c.usage.samples == nil {
		c.usage.samples = map[int32]usage.Sample{}
	}
	c.usage.samples[ord] = usage.Sample{Pod: c.PodName(ord), Usage: u.DeepCopy(), Time: c.clock.Now()}
}

// ClearPodUsage forgets the pod's measured usage: the reader no longer
// reports the pod, as metrics-server does for a pod it has not scraped.
func (c *Cluster) ClearPodUsage(ord int32) {
	c.usage.mu.Lock()
	defer c.usage.mu.Unlock()
	delete(c.usage.samples, ord)
}

// FailUsage makes the usage reader fail with err (wrapped in
// usage.ErrUnavailable) until FailUsage(nil), as when metrics-server is
// down or the metrics API is not served.
func (c *Cluster) FailUsage(err error) {
	c.usage.mu.Lock()
	defer c.usage.mu.Unlock()
	c.usage.fail = err
}

// UsageReader reads the usage set with SetPodUsage, for the pods that
// exist in the clientset; samples keep the time they were set at, so a
// test that advances the clock without setting usage again sees them go
// stale.
func (c *Cluster) UsageReader() usage.Reader { return usageReader{c} }

type usageReader struct{ c *Cluster }

// Read implements usage.Reader.
func (r usageReader) Read(ctx context.Context) ([]usage.Sample, error) {
	c := r.c
	c.usage.mu.Lock()
	fail := c.usage.fail
	samples := make(map[int32]usage.Sample, len(c.usage.samples))
	for ord, s := range c.usage.samples {
		samples[ord] = s
	}
	c.usage.mu.Unlock()
	if fail != nil {
		return nil, fmt.Errorf("%w: %w", usage.ErrUnavailable, fail)
	}
	ords, err := c.PodOrdinals()
	if err != nil {
		return nil, fmt.Errorf("%w: listing pods: %w", usage.ErrUnavailable, err)
	}
	out := make([]usage.Sample, 0, len(ords))
	for _, ord := range ords {
		if s, ok := samples[ord]; ok {
			s.Usage = s.Usage.DeepCopy()
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pod < out[j].Pod })
	return out, nil
}
