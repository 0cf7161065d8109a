package sim

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/vsched/vsched/config"
)

// simConfig is the configuration a run uses, and where it came from.
type simConfig struct {
	cms        [numConfigKinds]*corev1.ConfigMap
	profiles   *config.Profiles
	autoscaler *config.AutoscalerConfig
	origins    []ConfigOrigin
}

// buildConfig parses the scenario's configuration, each kind replaced by
// the ConfigMap given for it.
func buildConfig(ctx context.Context, s *Scenario, opts Options) (*simConfig, error) {
	cms := [numConfigKinds]*corev1.ConfigMap{
		scenarioConfigMap(SchedulerConfig, s.Scheduler),
		scenarioConfigMap(DeschedulerConfig, s.Descheduler),
		scenarioConfigMap(AutoscalerConfig, s.Autoscaler),
	}
	out := &simConfig{origins: configOrigins(cms, opts.ConfigMaps)}
	for _, f := range opts.ConfigMaps {
		if f.Kind < numConfigKinds { // the simulator does not run the source autoscaler's
			cms[f.Kind] = f.ConfigMap
		}
	}
	out.cms = cms
	var err error
	if out.profiles, err = buildProfiles(ctx, registryOrInTree(opts.Registry), cms); err != nil {
		return nil, err
	}
	if out.autoscaler, err = config.ParseAutoscalerConfigMap(cms[AutoscalerConfig]); err != nil {
		return nil, err
	}
	return out, nil
}

// configOrigins says where each ConfigMap's data comes from: a
// --configmap file, the scenario, or nowhere (the defaults).
func configOrigins(inline [numConfigKinds]*corev1.ConfigMap, files []*ConfigMapFile) []ConfigOrigin {
	out := make([]ConfigOrigin, numConfigKinds)
	for k := range numConfigKinds {
		out[k] = ConfigOrigin{ConfigMap: configNames[k], From: FromDefault}
		if inline[k] != nil {
			out[k].From = FromScenario
		}
	}
	for _, f := range files {
		if f.Kind < numConfigKinds {
			out[f.Kind] = ConfigOrigin{ConfigMap: f.ConfigMap.Name, From: f.doc.file}
		}
	}
	return out
}

// warnings are what the scenario and its configuration disagree on.
func warnings(s *Scenario, ac *config.AutoscalerConfig, origins []ConfigOrigin) []string {
	var out []string
	if r := s.Cluster.StatefulSet.Replicas; r != nil && *r > ac.MaxReplicas {
		o := origins[AutoscalerConfig]
		from := "its default"
		if o.From != FromDefault {
			from = o.ConfigMap + " from " + o.From
		}
		out = append(out, fmt.Sprintf("the StatefulSet starts with %d replicas, more than the autoscaler's max-replicas %d (%s)", *r, ac.MaxReplicas, from))
	}
	return out
}
