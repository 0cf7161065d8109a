package embedkit

import "github.com/vsched/vsched/autoscaler"

// measuredUsage is the autoscaler's reader of o.Usage, nil without one. It
// serves both the triggers (as an autoscaler.UsageReader) and the cycle's
// estimates and hot pods (as a usage.Reader), so that they share one read
// of the metrics API per cycle.
func measuredUsage(o Options) (*autoscaler.MeasuredUsage, error) {
	if o.Usage == nil {
		return nil, nil
	}
	return autoscaler.NewMeasuredUsage(autoscaler.MeasuredUsageOptions{
		Reader: o.Usage, Namespace: o.Namespace, StatefulSet: o.StatefulSet,
		Cache: o.AutoscalerCache, Client: o.Client, Recorder: o.Recorder, Logger: o.Logger,
	})
}
