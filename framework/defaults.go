package framework

import "slices"

// Defaults is the policy a registry's owner stands behind: the profiles
// configured when no configuration says otherwise (package config reads an
// absent config-scheduler or config-descheduler, or an absent key of one,
// as these lists), and the filter that keeps a scheduler profile within pod
// capacity. The in-tree registry (plugins.NewInTreeRegistry) carries
// vsched's default policy; a registry built with NewRegistry carries none.
type Defaults struct {
	// Filters and Scores configure the scheduler (Place) profile.
	Filters, Scores []PluginConfig
	// RemoveScores configure the descheduler (Remove) profile.
	RemoveScores []PluginConfig
	// CapacityFilter names the filter added in front of a scheduler
	// profile's filters when none of them is it (by name or alias); ""
	// adds none.
	CapacityFilter string
	// CostFilter and CostScore are added (the score with weight 1) to a
	// scheduler profile's costed variant, the profile a source with a
	// cost per vreplica runs (Profile.WithCosts). They are not
	// registered plugins: no ConfigMap names them, and a source without
	// a cost never runs them. nil adds none; with neither, costs are not
	// enforced.
	CostFilter FilterPlugin
	CostScore  ScorePlugin
}

// clone copies the lists, so neither the registry nor a caller sees the
// other's changes.
func (d Defaults) clone() Defaults {
	c := d
	c.Filters, c.Scores, c.RemoveScores = clonePluginConfigs(d.Filters), clonePluginConfigs(d.Scores), clonePluginConfigs(d.RemoveScores)
	return c
}

func clonePluginConfigs(pcs []PluginConfig) []PluginConfig {
	if pcs == nil {
		return nil
	}
	out := make([]PluginConfig, len(pcs))
	for i, pc := range pcs {
		out[i] = PluginConfig{Name: pc.Name, Args: slices.Clone(pc.Args)}
		if pc.Weight != nil {
			w := *pc.Weight
			out[i].Weight = &w
		}
	}
	return out
}

// SetDefaults makes d the registry's default policy.
func (r *Registry) SetDefaults(d Defaults) { r.defaults = d.clone() }

// Defaults returns a copy of the registry's default policy; a nil registry
// has none.
func (r *Registry) Defaults() Defaults {
	if r == nil {
		return Defaults{}
	}
	return r.defaults.clone()
}
