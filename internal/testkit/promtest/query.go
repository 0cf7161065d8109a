package promtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// Run starts a server for a test and stops it when the test ends. Empty
// fields of o are filled in: Bin by RequireBinary (which skips or fails the
// test when prometheus is missing), Dir by t.TempDir() (the e2e suite
// gives a directory it keeps on failure).
func Run(t testing.TB, o Options) *Server {
	t.Helper()
	if o.Bin == "" {
		o.Bin = RequireBinary(t)
	}
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// Query runs an instant PromQL query that must return a vector.
func (s *Server) Query(ctx context.Context, q string) (model.Vector, error) {
	c, err := api.NewClient(api.Config{Address: s.URL})
	if err != nil {
		return nil, err
	}
	v, _, err := v1.NewAPI(c).Query(ctx, q, time.Time{})
	if err != nil {
		return nil, err
	}
	vec, ok := v.(model.Vector)
	if !ok {
		return nil, fmt.Errorf("promtest: %s returned a %s, not a vector", q, v.Type())
	}
	return vec, nil
}

// WaitSeries polls q until it returns exactly n series, or ctx ends.
func (s *Server) WaitSeries(ctx context.Context, q string, n int) (model.Vector, error) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		vec, err := s.Query(ctx, q)
		if err == nil && len(vec) == n {
			return vec, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("promtest: %s: waiting for %d series, last %v (%v): %w\n%s", q, n, vec, err, ctx.Err(), s.LogTail(10))
		case <-tick.C:
		}
	}
}

// WaitValue polls q until its series whose label is id has the value want,
// or ctx ends: what a test waits for before it expects a consumer of the
// query to have seen a change.
func (s *Server) WaitValue(ctx context.Context, q, label, id string, want float64) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last model.Vector
	for {
		vec, err := s.Query(ctx, q)
		if err == nil {
			last = vec
			for _, smp := range vec {
				if string(smp.Metric[model.LabelName(label)]) == id && float64(smp.Value) == want {
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("promtest: %s: waiting for %s=%q to be %v, last %v: %w", q, label, id, want, last, ctx.Err())
		case <-tick.C:
		}
	}
}
