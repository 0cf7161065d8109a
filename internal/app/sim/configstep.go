package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
)

// ConfigMapStep is a configmap step: one of vsched's ConfigMaps, by its
// name, with the data it takes from then on, replacing the whole data as
// kubectl apply of the manifest would.
type ConfigMapStep struct {
	Name string     `json:"name"`
	Data ConfigData `json:"data"`
}

// decodeConfigMapStep reads {name, data}; the name must be one of the
// ConfigMaps vsched reads.
func decodeConfigMapStep(d *decoder, raw json.RawMessage, p path) *ConfigMapStep {
	var c ConfigMapStep
	d.decode(raw, reflect.ValueOf(&c).Elem(), p)
	if _, ok := configKindOf(c.Name); !ok {
		d.problem(p.key("name"), "%q is not a ConfigMap vsched reads%s; give one of %s",
			c.Name, didYouMean(c.Name, configNames[:]), joinNames(configNames[:]))
	}
	return &c
}

func joinNames(names []string) string {
	out := ""
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			out += " or "
		default:
			out += ", "
		}
		out += n
	}
	return out
}

// liveConfig is the configuration in force, which configmap steps change
// as a controller's ConfigMap watch would: the scheduler reads the
// profiles at each decision, the autoscaler its configuration at each
// cycle.
type liveConfig struct {
	reg        *framework.Registry
	cms        [numConfigKinds]*corev1.ConfigMap
	profiles   atomic.Pointer[config.Profiles]
	autoscaler atomic.Pointer[config.AutoscalerConfig]
}

func newLiveConfig(cfg *simConfig, reg *framework.Registry) *liveConfig {
	l := &liveConfig{reg: reg, cms: cfg.cms}
	l.profiles.Store(cfg.profiles)
	l.autoscaler.Store(cfg.autoscaler)
	return l
}

func (l *liveConfig) currentProfiles() config.Profiles { return *l.profiles.Load() }

func (l *liveConfig) currentAutoscaler() *config.AutoscalerConfig { return l.autoscaler.Load() }

// apply parses the step's ConfigMap as the controller would; an edit that
// fails is rejected with the controller's Event and the last good
// configuration stays in force.
func (l *liveConfig) apply(ctx context.Context, st *ConfigMapStep) []string {
	kind, _ := configKindOf(st.Name)
	cm := scenarioConfigMap(kind, st.Data)
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cms := l.cms
	cms[kind] = cm
	var err error
	if kind == AutoscalerConfig {
		var ac *config.AutoscalerConfig
		if ac, err = config.ParseAutoscalerConfigMap(cm); err == nil {
			l.autoscaler.Store(ac)
		}
	} else {
		var p *config.Profiles
		if p, err = buildProfiles(ctx, l.reg, cms); err == nil {
			l.profiles.Store(p)
		}
	}
	if err != nil {
		return []string{fmt.Sprintf("InvalidConfiguration: %s rejected, the last good configuration stays in force: %v", st.Name, err)}
	}
	l.cms = cms
	return []string{st.Name + " applied: in force from the next decision"}
}

// buildProfiles parses the scheduler and descheduler ConfigMaps into the
// profiles.
func buildProfiles(ctx context.Context, reg *framework.Registry, cms [numConfigKinds]*corev1.ConfigMap) (*config.Profiles, error) {
	sc, err := config.ParsePlaceConfigMap(cms[SchedulerConfig], reg)
	if err != nil {
		return nil, err
	}
	dc, err := config.ParseRemoveConfigMap(cms[DeschedulerConfig], reg)
	if err != nil {
		return nil, err
	}
	return config.BuildProfiles(ctx, reg, sc, dc)
}
