package sim

import (
	"context"
	"fmt"
)

// runStep applies one step, lets the requeue schedule what is pending, and
// records the result.
func (sim *simulation) runStep(ctx context.Context, st *Step) (*StepResult, error) {
	before, err := sim.sourcesNow()
	if err != nil {
		return nil, err
	}
	notes, cycles, err := sim.apply(ctx, st)
	if err != nil {
		return nil, err
	}
	if st.Kind != StepSchedule {
		sim.progress()
	}
	if err := sim.cluster.Sync(ctx); err != nil {
		return nil, err
	}
	if err := sim.requeue(ctx); err != nil {
		return nil, err
	}
	sr, err := sim.record(st, before, notes)
	if sr != nil {
		sr.Cycles = cycles
		sr.Traffic = sim.takeTicks()
		sr.VReplicas = sim.vreplicaDecisions(st)
	}
	return sr, err
}

// apply does what the step says to the cluster or the sources, and
// returns the notes and autoscaler cycles it gave.
func (sim *simulation) apply(ctx context.Context, st *Step) (notes []string, cycles []CycleResult, err error) {
	switch st.Kind {
	case StepSchedule:
		for _, sp := range st.Schedule {
			if err := sim.schedule(ctx, sp); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", sp.Source, err)
			}
			sim.progress()
		}
	case StepDelete:
		for _, src := range st.Delete {
			key, _ := SourceKey(src)
			if err := sim.sources.Delete(key); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", src, err)
			}
			sim.sched.Forget(key)
		}
	case StepCordon:
		err = sim.eachNode(st, sim.cluster.Cordon)
	case StepUncordon:
		if err = sim.eachNode(st, sim.cluster.Uncordon); err == nil {
			err = sim.cluster.BindPending()
		}
	case StepFail:
		if st.Zone != "" {
			err = sim.cluster.FailZone(st.Zone)
		} else {
			err = sim.cluster.FailNode(st.Node)
		}
	case StepRecover:
		if st.Zone != "" {
			err = sim.cluster.RecoverZone(st.Zone)
		} else {
			err = sim.cluster.RecoverNode(st.Node)
		}
		if err == nil {
			err = sim.cluster.BindPending()
		}
	case StepAdvance:
		notes, cycles, err = sim.auto.advance(ctx, st.Duration)
	case StepAutoscale:
		notes, err = sim.auto.autoscale(ctx)
	case StepCompact:
		notes, cycles, err = sim.auto.compact(ctx)
	case StepConfigMap:
		notes = sim.live.apply(ctx, st.ConfigMap)
	case StepSignal:
		err = sim.setSignal(ctx, st.Signal)
	case StepTraffic:
		notes, err = sim.traffic(ctx, st.Traffic)
	case StepUsage:
		err = sim.setUsage(st.Usage)
	default:
		err = fmt.Errorf("unknown step %q", st.Kind)
	}
	return notes, cycles, err
}

// eachNode applies f to the step's node, or to every node of its zone.
func (sim *simulation) eachNode(st *Step, f func(node string) error) error {
	if st.Zone == "" {
		return f(st.Node)
	}
	for _, n := range sim.nodes {
		if n.Zone == st.Zone {
			if err := f(n.Name); err != nil {
				return err
			}
		}
	}
	return nil
}
