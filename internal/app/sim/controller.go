package sim

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/statefulset"
)

// loadSources creates the scenario's initial sources with their placements,
// then lets the controller's first resync reconcile each (in key order),
// as a controller starting against a live cluster does. It returns the
// cluster as it then stands.
func (sim *simulation) loadSources(ctx context.Context) (*StepResult, error) {
	for _, src := range sim.s.Sources {
		key, _ := SourceKey(src.Source)
		var parts []int32
		if src.Partitions != nil {
			parts = append(parts, *src.Partitions)
		}
		v, err := sim.sources.Create(key, *src.VReplicas, parts...)
		if err == nil {
			v, err = sim.setCost(v, src.Cost)
		}
		if err != nil {
			return nil, err
		}
		ps := make([]vsched.Placement, len(src.Placements))
		for i, p := range src.Placements {
			ps[i] = vsched.Placement{PodName: p.PodName, VReplicas: p.VReplicas}
		}
		if err := sim.sources.CommitPlacements(key, v.GetResourceVersion(), ps); err != nil {
			return nil, err
		}
		if nv, err := sim.sources.Get(key); err == nil {
			sim.sched.Observe(nv)
		}
	}
	list, err := sim.sources.List()
	if err != nil {
		return nil, err
	}
	for _, v := range list {
		if err := sim.reconcile(ctx, v.GetKey()); err != nil {
			return nil, fmt.Errorf("%s: %w", v.GetKey(), err)
		}
	}
	if err := sim.cluster.Sync(ctx); err != nil {
		return nil, err
	}
	sr, err := sim.record(&Step{Name: InitialStepName}, nil, nil)
	if sr != nil {
		sr.Action = "the sources as the scenario gives them, reconciled once"
	}
	return sr, err
}

// schedule creates or updates a source and reconciles it, as its
// controller would on seeing the change.
func (sim *simulation) schedule(ctx context.Context, sp SourceSpec) error {
	key, _ := SourceKey(sp.Source)
	if _, err := sim.sources.Get(key); err != nil {
		var parts []int32
		if sp.Partitions != nil {
			parts = append(parts, *sp.Partitions)
		}
		v, err := sim.sources.Create(key, *sp.VReplicas, parts...)
		if err != nil {
			return err
		}
		if _, err := sim.setCost(v, sp.Cost); err != nil {
			return err
		}
	} else {
		v, err := sim.sources.Update(key, *sp.VReplicas)
		if err != nil {
			return err
		}
		if _, err := sim.setCost(v, sp.Cost); err != nil {
			return err
		}
		if sp.Partitions != nil {
			if _, err := sim.sources.SetResourceCount(key, *sp.Partitions); err != nil {
				return err
			}
		}
	}
	return sim.reconcile(ctx, key)
}

// reconcile schedules one source and commits its placements. Vreplicas
// left pending are not an error: the requeue after the step retries them.
func (sim *simulation) reconcile(ctx context.Context, key types.NamespacedName) error {
	var ex *framework.Explanation
	explainThis := sim.opts.Explain != nil && *sim.opts.Explain == key
	if explainThis || sim.opts.ExplainAll {
		ex = &framework.Explanation{}
		ctx = statefulset.WithExplanation(ctx, ex)
	}
	_, err := sim.sources.Reconcile(ctx, sim.sched, key)
	// The source controller's informer would deliver the status write to
	// the scheduler; it commits the scheduler's reservation.
	after, gerr := sim.sources.Get(key)
	if gerr == nil {
		sim.sched.Observe(after)
	}
	if ex != nil && len(ex.Steps) > 0 && gerr == nil {
		e := sim.explain(ex, after)
		if explainThis {
			sim.explained = append(sim.explained, e)
		}
		if sim.opts.ExplainAll {
			if sim.byStep[sim.step] == nil {
				sim.byStep[sim.step] = map[string]*Explained{}
			}
			sim.byStep[sim.step][key.String()] = e
		}
	}
	if err != nil && !errors.Is(err, vsched.ErrNotEnoughReplicas) {
		return err
	}
	return nil
}

// explain records a decision with its counts and where its candidates
// are. What it was asked is what it did plus what is left to do after it:
// the source's total does not say, as a move (compaction, eviction) places
// vreplicas without changing it.
func (sim *simulation) explain(ex *framework.Explanation, after vsched.VPod) *Explained {
	e := &Explained{Step: sim.step, StepTitle: sim.stepTitle, Explanation: ex, Pods: map[int32]PodPlace{}}
	for _, st := range ex.Steps {
		if st.Winner >= 0 {
			e.Changed++
		}
	}
	want, is := after.GetVReplicas(), vsched.TotalVReplicas(after.GetPlacements())
	e.Pending = max(want-is, 0)
	left := e.Pending
	if ex.Mode == framework.Remove {
		left = max(is-want, 0)
	}
	e.Asked = e.Changed + left
	s := sim.sched.Snapshot()
	for _, st := range ex.Steps {
		for _, c := range st.Candidates {
			if info, ok := s.Pod(c.Ordinal); ok {
				e.Pods[c.Ordinal] = PodPlace{Node: info.Node, Zone: info.Zone}
			}
		}
	}
	return e
}

// requeue schedules again, in key order, every source with pending
// vreplicas, as a controller does for the sources the scheduler requeues.
func (sim *simulation) requeue(ctx context.Context) error {
	list, err := sim.sources.List()
	if err != nil {
		return err
	}
	for _, v := range list {
		if vsched.TotalVReplicas(v.GetPlacements()) < v.GetVReplicas() {
			if err := sim.reconcile(ctx, v.GetKey()); err != nil {
				return fmt.Errorf("%s: %w", v.GetKey(), err)
			}
		}
	}
	return nil
}

// sourcesNow returns every source's current version, by key.
func (sim *simulation) sourcesNow() (map[string]vsched.VPod, error) {
	list, err := sim.sources.List()
	if err != nil {
		return nil, err
	}
	out := make(map[string]vsched.VPod, len(list))
	for _, v := range list {
		out[v.GetKey().String()] = v
	}
	return out, nil
}
