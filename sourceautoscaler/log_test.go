package sourceautoscaler

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	"k8s.io/apimachinery/pkg/types"
	"knative.dev/pkg/logging"

	"github.com/vsched/vsched/sourceautoscaler/signal/scripted"
)

// TestCycleLogLines: a written count and a source's first cycle without a
// value are logged with the source, the counts and the mode; a decision
// that changes nothing, a later cycle still without a value and a write
// that failed are not logged as written.
func TestCycleLogLines(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	ctx := logging.WithLogger(context.Background(), zap.New(core).Sugar())
	f := newFixture(t, 1, nil)
	k := key(0)
	f.prov[0].SetSeries(k.String(), scripted.Constant(200))
	_ = f.a.Upsert(Source{Key: k, VReplicas: 2})
	cycle := func() {
		f.a.Cycle(ctx)
		f.clock.Step(10 * time.Second)
	}
	cycle() // 2 wanted, 2 had: nothing to log
	f.prov[0].SetSeries(k.String(), scripted.Constant(1200))
	cycle() // panic to 12
	f.prov[0].FailNext(errors.New("down"))
	cycle() // missing: logged once
	f.prov[0].FailNext(errors.New("down"))
	cycle() // still missing: not again
	f.prov[0].SetSeries(k.String(), scripted.Constant(3000))
	f.w.fail = func(types.NamespacedName) error { return errors.New("conflict") }
	cycle() // a failed write: a warning, not a written line
	var got []string
	for _, e := range logs.All() {
		if e.Level != zapcore.InfoLevel {
			continue
		}
		m := e.ContextMap()
		got = append(got, fmt.Sprintf("%s %v %v->%v %v", e.Message, m["source"], m["from"], m["to"], m["mode"]))
	}
	want := []string{
		LogVReplicasWritten + " ns/s0000 2->12 panic",
		LogSignalMissing + " ns/s0000 12->12 fallback",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("info lines (-want +got):\n%s", diff)
	}
}
