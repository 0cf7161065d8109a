// Package config reads vsched's four ConfigMaps, validates them and keeps
// them live:
//
//   - config-scheduler and config-descheduler: the Place and the Remove
//     profiles (PlaceConfig, RemoveConfig), built into runnable framework
//     profiles (BuildProfiles, Profiles);
//   - config-autoscaler: the pod autoscaler's sizing, compaction and move
//     limits (AutoscalerConfig; docs/autoscaler.md);
//   - config-source-autoscaler: the source autoscaler's windows and limits,
//     and the per-source annotations (SourceAutoscalerConfig;
//     docs/source-autoscaler.md).
//
// Each has a Parse*ConfigMap, a Default*, and for live reload a pair named
// alike, ProfilesStore and ProfilesSource, AutoscalerStore and
// AutoscalerSource, SourceAutoscalerStore and SourceAutoscalerSource: the
// store keeps the last good configuration, replacing it with each change
// that parses and keeping it (with a logged and recorded rejection) when
// one does not; the source is the getter a consumer calls at each
// decision.
// The profiles' types are named for their profile, not their ConfigMap, as
// "descheduler" is the package that plans moves.
//
// The profiles' format, in detail:
//
// config-scheduler configures the profile that places vreplicas, with the
// data keys "predicates" (filter plugins) and "priorities" (score plugins);
// config-descheduler configures the profile that picks the vreplicas to
// remove, with the key "priorities" only. Each key holds a JSON list of
// entries:
//
//	data:
//	  predicates: |
//	    [
//	      {"Name": "PodFitsResources"},
//	      {"Name": "NoMaxResourceCount", "Args": "{\"NumPartitions\": 100}"}
//	    ]
//	  priorities: |
//	    [
//	      {"Name": "AvailabilityZonePriority", "Weight": 10, "Args": {"MaxSkew": 1}},
//	      {"Name": "LowestOrdinalPriority", "Weight": 2}
//	    ]
//
// Name is a registered plugin name (or alias). Weight, for priorities only,
// is an integer in [0, 10], 1 when omitted. Args is the plugin's arguments,
// as a JSON object or as a string holding one (both spellings give the same
// configuration). Everything is decoded strictly: an unknown data key, an
// unknown entry field or an unknown Args field is an error naming it. The key
// "_example" (the Knative convention) is ignored.
//
// Using the package takes two steps, the same at start-up and on every
// change of either ConfigMap:
//
//	registry := plugins.MustInTreeRegistry()                             // once
//	sched, err := config.ParsePlaceConfigMap(schedCM, registry)     // format only
//	desched, err := config.ParseRemoveConfigMap(deschedCM, registry)
//	profiles, err := config.BuildProfiles(ctx, registry, sched, desched)
//
// Parsing checks the format without knowing any plugin (the registry only
// supplies the default policy for what is absent); BuildProfiles checks
// the plugins, weights and Args against a registry and builds both profiles,
// or reports every problem and builds nothing. Every error is a *Error whose
// problems name the ConfigMap, the key, the list index, and the field:
//
//	config-scheduler: data.priorities[1].Args.MaxSkew: Invalid value: 0: must be at least 1
//
// Messages stay small whatever the input: a ConfigMap over
// MaxConfigMapBytes (1 MiB, Kubernetes' own limit) is rejected with one
// problem, Error lists the first 20 problems and counts the rest, and
// values echoed from the input (Args, names, keys) are cut to 200 bytes.
//
// An absent or empty ConfigMap (or key) means the registry's default policy
// (framework.Defaults): for the in-tree registry, plugins.DefaultPlaceConfig
// and plugins.DefaultRemoveConfig. The registry's capacity filter
// (PodFitsResources) is always part of the scheduler profile: capacity is
// not optional, and it is added in front of the predicates when they do
// not list it.
//
// The package parses, validates and stores; it imports no plugin, so an
// embedder links only the plugins its registry holds. The registry is a
// required parameter: plugins.NewInTreeRegistry returns the in-tree plugins
// with vsched's default policy, and embedders merge their own plugins into
// it. docs/scheduling.md documents the format, every validation rule and
// the reasons for the default policy.
package config
