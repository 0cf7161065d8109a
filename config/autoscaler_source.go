package config

// AutoscalerSource returns the autoscaler configuration in force
// (config-autoscaler); nil, or a nil result, means DefaultAutoscalerConfig.
// It is called at each evaluation rather than kept, so that a live-reloaded
// change applies from the next: AutoscalerStore.Config is one. It is the
// counterpart, for config-autoscaler, of the scheduler's ProfilesSource.
type AutoscalerSource func() *AutoscalerConfig

// DrainMoveLimit is the most vreplicas of one source a Schedule call moves
// off draining pods under the configuration in force: max-moves-per-source,
// never more than max-moves-per-cycle. A configuration whose limits are
// below 1 (one ValidateAutoscalerConfig rejects; an AutoscalerStore never
// holds one) counts as the defaults'. It is what a controller passes as
// statefulset.Config.DrainMoveLimit, so that compaction moves each source in
// bounded steps from the Schedule call after a change. A source that copies
// the configuration (AutoscalerStore.Config) allocates at each call:
// AutoscalerStore.DrainMoveLimit reads the same limit without.
func (s AutoscalerSource) DrainMoveLimit() int32 {
	if s != nil {
		if c := s(); c != nil {
			return drainMoveLimit(c)
		}
	}
	return defaultDrainMoveLimit
}

// defaultDrainMoveLimit is DefaultAutoscalerConfig's, computed once: the
// limit is read on the scheduler's decision path.
var defaultDrainMoveLimit = min(DefaultAutoscalerConfig().MaxMovesPerSource, DefaultAutoscalerConfig().MaxMovesPerCycle)

// drainMoveLimit is c's move limit for one source (DrainMoveLimit).
func drainMoveLimit(c *AutoscalerConfig) int32 {
	if n := min(c.MaxMovesPerSource, c.MaxMovesPerCycle); n >= 1 {
		return n
	}
	return defaultDrainMoveLimit
}
