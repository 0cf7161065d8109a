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

// Run starts a server for a test that scrapes targets, in the test's
// temporary directory, and stops it when the test ends. It skips or fails
// the test as RequireBinary does when prometheus is missing.
func Run(t testing.TB, targets ...string) *Server {
	t.Helper()
	bin := RequireBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Start(ctx, Options{Bin: bin, Dir: t.TempDir(), Targets: targets})
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
