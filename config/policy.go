package config

import "github.com/vsched/vsched/framework"

// defaultScheduler is what an absent config-scheduler means: reg's default
// policy (framework.Defaults), none without a registry. config links no
// plugin: the policy comes with the plugins (plugins.DefaultPlaceConfig
// for the in-tree registry).
func defaultScheduler(reg *framework.Registry) *PlaceConfig {
	d := reg.Defaults()
	return &PlaceConfig{ConfigMap: DefaultSchedulerConfigMapName, Predicates: d.Filters, Priorities: d.Scores}
}

// defaultDescheduler is defaultScheduler for config-descheduler.
func defaultDescheduler(reg *framework.Registry) *RemoveConfig {
	return &RemoveConfig{ConfigMap: DefaultDeschedulerConfigMapName, Priorities: reg.Defaults().RemoveScores}
}
