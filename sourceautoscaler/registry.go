package sourceautoscaler

import (
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/sourceautoscaler/decision"
	"github.com/vsched/vsched/sourceautoscaler/signal"
)

// Source is what the autoscaler knows of one source: the controller tells
// it with Upsert from its source informer's handlers.
type Source struct {
	// Key names the source.
	Key types.NamespacedName
	// Provider names the signal.Provider that measures it ("" : the first
	// of Options.Providers).
	Provider string
	// Target is what the provider knows it by (Target.Key is set to Key).
	Target signal.Target
	// VReplicas is the count the source has now (its spec).
	VReplicas int32
	// Annotations are the source's; they override config-source-autoscaler
	// (config.SourceAutoscalerConfig.PolicyFor). They are kept, not copied:
	// pass the informer object's, which is not changed in place.
	Annotations map[string]string
}

// slot is one source's entry: a flat value, reused after a delete.
type slot struct {
	key         types.NamespacedName
	target      signal.Target
	provider    int32
	alive       bool
	gen         uint32
	current     int32
	annotations map[string]string
	// cfg is the configuration policy was resolved against.
	cfg    *config.SourceAutoscalerConfig
	policy decision.Policy
	// policyErr is the last annotation problem (nil: none).
	policyErr error
	due       int64
	state     decision.State
	last      decision.Decision
	lastAt    int64
}

// Upsert adds a source or updates what the autoscaler knows of it. A
// source whose provider is unknown is an error (and is not added).
func (a *Autoscaler) Upsert(src Source) error {
	p, ok := a.providerIndex(src.Provider)
	if !ok {
		return fmt.Errorf("sourceautoscaler: source %s: no provider named %q", src.Key, src.Provider)
	}
	src.Target.Key = src.Key
	a.mu.Lock()
	defer a.mu.Unlock()
	i, found := a.index[src.Key]
	if !found {
		i = a.newSlot()
		a.index[src.Key] = i
		s := &a.slots[i]
		s.key, s.alive, s.due = src.Key, true, 0
		s.state.Reset()
	}
	s := &a.slots[i]
	if !found || !maps.Equal(s.annotations, src.Annotations) {
		s.cfg = nil // resolve again at the next cycle
	}
	s.target, s.provider, s.current, s.annotations = src.Target, p, src.VReplicas, src.Annotations
	return nil
}

// Delete forgets a source; a decision in flight for it is dropped.
func (a *Autoscaler) Delete(key types.NamespacedName) {
	a.mu.Lock()
	defer a.mu.Unlock()
	i, ok := a.index[key]
	if !ok {
		return
	}
	delete(a.index, key)
	s := &a.slots[i]
	gen := s.gen + 1
	*s = slot{gen: gen}
	a.free = append(a.free, i)
}

func (a *Autoscaler) newSlot() int32 {
	if n := len(a.free); n > 0 {
		i := a.free[n-1]
		a.free = a.free[:n-1]
		return i
	}
	a.slots = append(a.slots, slot{})
	return int32(len(a.slots) - 1)
}

func (a *Autoscaler) providerIndex(name string) (int32, bool) {
	if name == "" && len(a.providers) > 0 {
		return 0, true
	}
	for i, p := range a.providers {
		if p.Name() == name {
			return int32(i), true
		}
	}
	return 0, false
}

// resolve gives s the policy of the configuration in force, keeping its
// last good one (or the defaults) when its annotations are broken.
func (s *slot) resolve(cfg *config.SourceAutoscalerConfig) (problem error) {
	if s.cfg == cfg {
		return nil
	}
	pol, err := cfg.PolicyFor(s.annotations)
	s.cfg = cfg
	if err != nil {
		if s.policy.Target == 0 { // never resolved: the defaults
			s.policy = pol
		}
		s.policyErr = err
		return err
	}
	s.policy, s.policyErr = pol, nil
	return nil
}
