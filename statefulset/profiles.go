package statefulset

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
)

// ProfilesFrom returns a ProfileSource that always yields p, as built by
// config.BuildProfiles. A nil p, or one missing a profile, yields profiles
// that Schedule rejects with an error naming the source, rather than a
// panic. For configuration that changes at run time use ProfilesFromStore.
func ProfilesFrom(p *config.Profiles) ProfileSource {
	var ps Profiles
	if p != nil {
		ps = Profiles{Place: p.Place, Remove: p.Remove}
	}
	return func() Profiles { return ps }
}

// DefaultProfiles builds the default scheduler and descheduler policies
// (config.DefaultSchedulerConfig, config.DefaultDeschedulerConfig) with the
// in-tree plugins.
func DefaultProfiles(ctx context.Context) (ProfileSource, error) {
	p, err := config.BuildProfiles(ctx, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	return ProfilesFrom(p), nil
}

// ProfilesFromConfigMaps parses the config-scheduler and config-descheduler
// ConfigMaps and builds their profiles with reg (nil: the in-tree plugins).
// A nil ConfigMap means its default policy. Errors are config's *Error,
// naming the ConfigMap, key, index and field of every problem.
func ProfilesFromConfigMaps(ctx context.Context, reg *framework.Registry, sched, desched *corev1.ConfigMap) (ProfileSource, error) {
	p, err := buildFromConfigMaps(ctx, reg, sched, desched)
	if err != nil {
		return nil, err
	}
	return ProfilesFrom(p), nil
}

func buildFromConfigMaps(ctx context.Context, reg *framework.Registry, sched, desched *corev1.ConfigMap) (*config.Profiles, error) {
	sc, serr := config.ParseSchedulerConfigMap(sched)
	dc, derr := config.ParseDeschedulerConfigMap(desched)
	if serr != nil || derr != nil {
		// Report both ConfigMaps' problems in one *config.Error, as
		// BuildProfiles does, so one edit can fix them all.
		var all config.Error
		for _, err := range []error{serr, derr} {
			var ce *config.Error
			switch {
			case err == nil:
			case errors.As(err, &ce):
				all.Problems = append(all.Problems, ce.Problems...)
			default:
				return nil, err
			}
		}
		return nil, &all
	}
	return config.BuildProfiles(ctx, reg, sc, dc)
}

// ProfilesFromStore returns the ProfileSource for live reload: it reads the
// store's profiles once per Schedule call, so a changed config-scheduler or
// config-descheduler applies from the next decision on, and a rejected one
// leaves the last good profiles in force (config.Store).
func ProfilesFromStore(store *config.Store) ProfileSource {
	return func() Profiles {
		if p := store.Profiles(); p != nil {
			return Profiles{Place: p.Place, Remove: p.Remove}
		}
		return Profiles{}
	}
}
