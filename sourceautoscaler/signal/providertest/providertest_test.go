package providertest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/vsched/vsched/sourceautoscaler/signal"
)

// stuck is a provider that waits for ctx, or answers at once when fast.
type stuck struct{ fast, keep bool }

func (s stuck) Name() string { return "stuck" }

func (s stuck) Fetch(ctx context.Context, _ []signal.Target, out []signal.Sample) error {
	if !s.keep {
		clear(out)
	}
	if s.fast {
		return errors.New("backend down")
	}
	<-ctx.Done()
	return ctx.Err()
}

// recorder records whether a check failed, instead of failing the test.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Helper()               {}

func TestFailedRound(t *testing.T) {
	cases := []struct {
		name     string
		p        stuck
		want     string
		wantFail bool
	}{
		{"fails at once", stuck{fast: true}, "backend down", false},
		{"fails on ctx", stuck{}, "deadline exceeded", false},
		{"wrong error", stuck{fast: true}, "refused", true},
		{"keeps a sample", stuck{fast: true, keep: true}, "backend down", true},
	}
	for _, tc := range cases {
		r := &recorder{TB: t}
		FailedRound(r, tc.p, signal.Target{}, 10*time.Millisecond, time.Second, tc.want)
		if r.failed != tc.wantFail {
			t.Errorf("%s: FailedRound failed=%t, want %t", tc.name, r.failed, tc.wantFail)
		}
	}
}
