package statefulset

import "k8s.io/apimachinery/pkg/types"

// estimatesForgetter is implemented by Config.CostEstimates that keep an
// estimate per source (costestimate.Measured): Forget drops a deleted
// source's at once, so that the estimates stay as many as the sources and
// a source created again with the same name is measured afresh.
type estimatesForgetter interface {
	Forget(keys ...types.NamespacedName)
}

// forgetEstimate drops a deleted source's measured cost, when the
// estimates keep one. Called without the state lock: the estimates have
// their own.
func (s *Scheduler) forgetEstimate(key types.NamespacedName) {
	if f, ok := s.cfg.CostEstimates.(estimatesForgetter); ok {
		f.Forget(key)
	}
}
