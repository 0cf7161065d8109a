package framework

// ZoneSpreader is implemented by plugins that spread a source's vreplicas
// over zones (AvailabilityZonePriority). The autoscaler reads it through
// Profile.SpreadsOverZones: a profile that spreads over zones is served best
// by a StatefulSet whose size is a multiple of the number of zones, so that
// every zone offers the same capacity (the design's scaling factor for high
// availability).
type ZoneSpreader interface {
	SpreadsOverZones() bool
}

// SpreadsOverZones reports whether a plugin of the profile that takes part
// in decisions (a filter, or a score plugin of weight above 0) spreads over
// zones.
func (p *Profile) SpreadsOverZones() bool {
	for _, f := range p.filters {
		if z, ok := f.(ZoneSpreader); ok && z.SpreadsOverZones() {
			return true
		}
	}
	for _, s := range p.scores {
		if z, ok := s.plugin.(ZoneSpreader); ok && s.weight > 0 && z.SpreadsOverZones() {
			return true
		}
	}
	return false
}
