package embedkit

import "github.com/vsched/vsched/autoscaler"

// measuredUsage is the autoscaler's UsageReader over o.Usage: nil (an
// untyped nil interface, so the triggers policy sees no reader) without
// one.
func measuredUsage(o Options) (autoscaler.UsageReader, error) {
	if o.Usage == nil {
		return nil, nil
	}
	m, err := autoscaler.NewMeasuredUsage(autoscaler.MeasuredUsageOptions{
		Reader: o.Usage, Namespace: o.Namespace, StatefulSet: o.StatefulSet,
		Cache: o.AutoscalerCache, Client: o.Client, Recorder: o.Recorder, Logger: o.Logger,
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}
