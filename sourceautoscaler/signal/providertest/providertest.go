package providertest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/sourceautoscaler/signal"
)

// Fetch runs one round for targets, failing the test on an error.
func Fetch(t testing.TB, p signal.Provider, targets []signal.Target) []signal.Sample {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out := make([]signal.Sample, len(targets))
	if err := p.Fetch(ctx, targets, out); err != nil {
		t.Fatalf("%s: Fetch: %v", p.Name(), err)
	}
	return out
}

// FailedRound runs one round with a context of timeout and checks that it
// fails with an error containing want, leaves every sample unknown (even
// one that held a value before), and returns within grace after the
// context ends.
func FailedRound(t testing.TB, p signal.Provider, target signal.Target, timeout, grace time.Duration, want string) {
	t.Helper()
	out := []signal.Sample{{Known: true, Value: 1}}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	err := p.Fetch(ctx, []signal.Target{target}, out)
	elapsed := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: Fetch = %v, want an error containing %q", p.Name(), err, want)
	}
	if elapsed > timeout+grace {
		t.Errorf("%s: Fetch returned after %v, more than %v after its %v context ended", p.Name(), elapsed, grace, timeout)
	}
	if diff := cmp.Diff([]signal.Sample{{}}, out); diff != "" {
		t.Errorf("%s: samples after a failed round (-want +got):\n%s", p.Name(), diff)
	}
}
