package framework

import (
	"fmt"
	"slices"
)

// WithFilter returns a copy of the Place profile p with filter added last
// to its filters, and to its costed variant's (WithCosts). It is for a
// filter the embedder adds to some decisions only, from what the cluster
// does not count (the statefulset scheduler keeps a hot pod's shed off pods
// whose measured usage is near their limit): the copy evaluates every
// candidate pod by pod, never one per class of pods the cluster sees as
// equivalent, unless filter itself promises EquivalenceAware. p is not
// changed; building the copy costs what building p did, so callers keep it
// off the per-call path of decisions that do not need it.
func (p *Profile) WithFilter(filter FilterPlugin) (*Profile, error) {
	if p.mode != Place {
		return nil, fmt.Errorf("only a scheduler (place) profile takes an added filter")
	}
	if filter == nil {
		return nil, fmt.Errorf("nil filter plugin")
	}
	out, err := p.plusFilter(filter)
	if err != nil {
		return nil, err
	}
	if p.costed != nil {
		if out.costed, err = p.costed.plusFilter(filter); err != nil {
			return nil, err
		}
		// The cost classes hold the base profile's promise, which filter
		// may not keep.
		out.costed.classed = p.costed.classed && out.grouped
		out.costed.zoneClassed = p.costed.zoneClassed && out.zoned
	}
	return out, nil
}

// plusFilter is p's plugins with filter added last, finished again.
func (p *Profile) plusFilter(filter FilterPlugin) (*Profile, error) {
	out := &Profile{mode: p.mode, filters: append(slices.Clone(p.filters), filter), scores: make([]scorer, 0, len(p.scores))}
	for _, s := range p.scores {
		out.scores = append(out.scores, scorer{plugin: s.plugin, weight: s.weight})
	}
	if err := out.finish(); err != nil {
		return nil, err
	}
	return out, nil
}

// Added is what this decision placed on the pod (negative: removed from
// it) so far: OnPod less what the source held there when the decision
// began.
func (d *Decision) Added(ordinal int32) int32 { return d.deltaOf(ordinal) }
