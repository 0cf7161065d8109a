package frameworktest

import (
	"context"
	"slices"
	"sync"

	"github.com/vsched/vsched/framework"
)

// Change is one call of ChangeObserver.Changed as Recorder saw it.
type Change struct {
	Ordinal, Delta int32
	// OnPod is d.OnPod(Ordinal) during the call: the change is applied.
	OnPod int32
}

// Recorder is a pass-all filter and a zero scorer that records its Prepare
// and Changed calls. It is equivalence-aware.
type Recorder struct {
	zoneEquivalent
	PluginName string

	mu       sync.Mutex
	prepared int
	changes  []Change
}

var (
	_ framework.PreparePlugin    = &Recorder{}
	_ framework.FilterPlugin     = &Recorder{}
	_ framework.ScorePlugin      = &Recorder{}
	_ framework.ChangeObserver   = &Recorder{}
	_ framework.EquivalenceAware = &Recorder{}
)

func (r *Recorder) Name() string { return nameOr(r.PluginName, RecorderName) }

// Prepare implements framework.PreparePlugin.
func (r *Recorder) Prepare(context.Context, *framework.Decision) *framework.Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prepared++
	return nil
}

// Filter implements framework.FilterPlugin.
func (r *Recorder) Filter(context.Context, *framework.Decision, int32) *framework.Status { return nil }

// Score implements framework.ScorePlugin.
func (r *Recorder) Score(context.Context, *framework.Decision, int32) (int64, *framework.Status) {
	return 0, nil
}

// Changed implements framework.ChangeObserver.
func (r *Recorder) Changed(d *framework.Decision, ordinal int32, delta int32) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.changes = append(r.changes, Change{Ordinal: ordinal, Delta: delta, OnPod: d.OnPod(ordinal)})
}

// Prepared is how many times Prepare was called.
func (r *Recorder) Prepared() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.prepared
}

// Changes returns a copy of the recorded Changed calls.
func (r *Recorder) Changes() []Change {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.changes)
}

// Reset forgets every recorded call.
func (r *Recorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prepared, r.changes = 0, nil
}
