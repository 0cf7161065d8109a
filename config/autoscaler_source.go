package config

// AutoscalerSource returns the autoscaler configuration in force
// (config-autoscaler); nil, or a nil result, means DefaultAutoscalerConfig.
// It is called at each evaluation rather than kept, so that a live-reloaded
// change applies from the next: AutoscalerStore.Config is one. It is the
// counterpart, for config-autoscaler, of the scheduler's ProfileSource.
type AutoscalerSource func() *AutoscalerConfig

// Get is the configuration s returns, DefaultAutoscalerConfig when s or its
// result is nil.
func (s AutoscalerSource) Get() *AutoscalerConfig {
	if s != nil {
		if c := s(); c != nil {
			return c
		}
	}
	return DefaultAutoscalerConfig()
}

// DrainMoveLimit is the most vreplicas of one source a Schedule call moves
// off draining pods under the configuration in force: max-moves-per-source,
// never more than max-moves-per-cycle. A configuration whose limits are
// below 1 (one ValidateAutoscalerConfig rejects; an AutoscalerStore never
// holds one) counts as the defaults'. It is what a controller passes as
// statefulset.Config.DrainMoveLimit, so that compaction moves each source in
// bounded steps from the Schedule call after a change.
func (s AutoscalerSource) DrainMoveLimit() int32 {
	c := s.Get()
	if n := min(c.MaxMovesPerSource, c.MaxMovesPerCycle); n >= 1 {
		return n
	}
	d := DefaultAutoscalerConfig()
	return min(d.MaxMovesPerSource, d.MaxMovesPerCycle)
}
