package autoscaler

import (
	"errors"
	"math"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
)

// An Event's message is cut, however long what it reports (a rejected
// configuration's error, a list of pods).
func TestAutoscalerEventsAreBounded(t *testing.T) {
	rec := record.NewFakeRecorder(1)
	a := &Autoscaler{cfg: Options{Recorder: rec}}
	a.event(&appsv1.StatefulSet{}, corev1.EventTypeWarning, ReasonInvalidAutoscalerConfig, "rejected: %v", errors.New(strings.Repeat("x", 100000)))
	if ev := <-rec.Events; len(ev) > 2<<10 {
		t.Errorf("Event of %d bytes, want at most 2 KiB: %.300s", len(ev), ev)
	}
}

// A source wanting more than MaxVReplicas is refused by Schedule, so it must
// not drive a scale-up, nor cost a simulation of its vreplicas: not when
// the scheduler has never seen it, nor when a source it holds grows past
// the bound.
func TestAutoscalerIgnoresSourcesAboveMaxVReplicas(t *testing.T) {
	for _, seen := range []bool{false, true} {
		e := newEnv(t, envOpts{replicas: 1, profiles: packProfiles(t)})
		e.create("small", 5)
		if seen {
			e.create("huge", 1)
			if _, err := e.src.Update(e.key("huge"), math.MaxInt32); err != nil {
				t.Fatal(err)
			}
			v, err := e.src.Get(e.key("huge"))
			if err != nil {
				t.Fatal(err)
			}
			e.s.Observe(v)
		} else if _, err := e.src.Create(e.key("huge"), math.MaxInt32); err != nil {
			t.Fatal(err)
		}
		if d := e.reconcile(); d.Target != 1 || d.Desired != 1 {
			t.Errorf("seen by the scheduler %v: decision desired %d, target %d; want 1 (%s)", seen, d.Desired, d.Target, d.Reason)
		}
	}
}
