package config

import (
	"github.com/vsched/vsched/framework"
)

// Default ConfigMap names. A caller using other names passes ConfigMaps with
// those names to ParsePlaceConfigMap and ParseRemoveConfigMap: the
// name is taken from the ConfigMap itself and carried in the parsed config,
// so every error names the ConfigMap it is about.
const (
	DefaultSchedulerConfigMapName   = "config-scheduler"
	DefaultDeschedulerConfigMapName = "config-descheduler"
)

// The data keys of the ConfigMaps.
const (
	// KeyPredicates lists the scheduler's filter plugins
	// (config-scheduler only).
	KeyPredicates = "predicates"
	// KeyPriorities lists the score plugins (both ConfigMaps).
	KeyPriorities = "priorities"
	// KeyExample is the Knative convention for a documented example
	// configuration. It is ignored.
	KeyExample = "_example"
)

// PlaceConfig is the parsed config-scheduler ConfigMap: the plugins of
// the profile that places vreplicas.
//
// Lists are used as they are: nil and empty both mean "none". Only a nil
// *PlaceConfig stands for the registry's default policy (for the in-tree
// registry plugins.DefaultPlaceConfig).
// PodFitsResources is added in front of Predicates when they do not list it
// (see BuildProfiles).
type PlaceConfig struct {
	// ConfigMap is the name of the ConfigMap the config was read from,
	// used to prefix errors; empty means DefaultSchedulerConfigMapName.
	ConfigMap string
	// Predicates are the filter plugins, in order (data.predicates).
	Predicates []framework.PluginConfig
	// Priorities are the score plugins, in order (data.priorities).
	Priorities []framework.PluginConfig
}

// RemoveConfig is the parsed config-descheduler ConfigMap: the score
// plugins of the profile that chooses which vreplicas to remove when a
// source scales down. A higher score means "remove from this pod first".
//
// Only a nil *RemoveConfig stands for the registry's default policy
// (plugins.DefaultRemoveConfig for the in-tree registry); an empty Priorities means none, in which case
// vreplicas are removed from the highest ordinal first (the runtime's tie
// break).
type RemoveConfig struct {
	// ConfigMap is the name of the ConfigMap the config was read from,
	// used to prefix errors; empty means DefaultDeschedulerConfigMapName.
	ConfigMap string
	// Priorities are the score plugins, in order (data.priorities).
	Priorities []framework.PluginConfig
}

// Profiles are the two runnable profiles built from the configuration.
type Profiles struct {
	// Place is the scheduler profile (framework.Place), from
	// config-scheduler.
	Place *framework.Profile
	// Remove is the descheduler profile (framework.Remove), from
	// config-descheduler.
	Remove *framework.Profile
}

func (c *PlaceConfig) name() string {
	if c == nil || c.ConfigMap == "" {
		return DefaultSchedulerConfigMapName
	}
	return c.ConfigMap
}

func (c *RemoveConfig) name() string {
	if c == nil || c.ConfigMap == "" {
		return DefaultDeschedulerConfigMapName
	}
	return c.ConfigMap
}
