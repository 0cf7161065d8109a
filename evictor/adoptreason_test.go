package evictor_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/evictor"
)

// reasonMemory is the fixture with the scheduler's memory of reasons
// (evictor.ReasonMemory).
type reasonMemory struct {
	*fixture
	reasons map[int32]string
}

func (r *reasonMemory) MarkDrainingFor(ord int32, reason string) bool {
	r.reasons[ord] = reason
	return r.MarkDraining(ord)
}

// TestAdoptTellsTheReason: a new leader adopting a hot mark tells the
// scheduler it is hot at once, as marking it did: the scheduler keeps what
// no shed moves there and keeps sheds off hot pods from its first decision,
// before its informer shows the annotation.
func TestAdoptTellsTheReason(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	r := &reasonMemory{fixture: f, reasons: map[int32]string{}}
	d, err := evictor.New(evictor.Config{Client: f.client, Namespace: ns, StatefulSet: set, Scheduler: r, Pods: f.lister(),
		Requeue: func(context.Context, types.NamespacedName) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	f.createPod(1, "uid-1", map[string]string{evictor.DefaultAnnotation: evictor.ReasonHot})
	f.createPod(2, "uid-2", map[string]string{evictor.DefaultAnnotation: evictor.ReasonCompaction})
	if _, err := d.Adopt(ctx, true); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[int32]string{1: evictor.ReasonHot, 2: evictor.ReasonCompaction}, r.reasons); diff != "" {
		t.Errorf("reasons the scheduler was told (-want +got):\n%s", diff)
	}
	if !f.draining(1) || !f.draining(2) {
		t.Error("draining memory not set for the adopted pods")
	}
}
