package statefulset

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
)

// ProfilesFrom returns a ProfileSource that always yields p, as built by
// config.BuildProfiles. A nil p, or one missing a profile, yields profiles
// that Schedule rejects with an error naming the source, rather than a
// panic. For configuration that changes at run time use ProfilesFromStore.
func ProfilesFrom(p *config.Profiles) ProfileSource {
	var ps config.Profiles
	if p != nil {
		ps = *p
	}
	return func() config.Profiles { return ps }
}

// ProfilesFromConfigMaps is ProfilesFrom(config.BuildProfilesFromConfigMaps(...)):
// the profiles of the config-scheduler and config-descheduler ConfigMaps,
// built with reg (plugins.NewInTreeRegistry for the in-tree plugins). A nil
// ConfigMap means reg's default policy. Errors are config's *Error, naming
// the ConfigMap, key, index and field of every problem.
func ProfilesFromConfigMaps(ctx context.Context, reg *framework.Registry, sched, desched *corev1.ConfigMap) (ProfileSource, error) {
	p, err := config.BuildProfilesFromConfigMaps(ctx, reg, sched, desched)
	if err != nil {
		return nil, err
	}
	return ProfilesFrom(p), nil
}

// ProfilesFromStore returns the ProfileSource for live reload: it reads the
// store's profiles once per Schedule call, so a changed config-scheduler or
// config-descheduler applies from the next decision on, and a rejected one
// leaves the last good profiles in force (config.Store).
func ProfilesFromStore(store *config.Store) ProfileSource {
	return func() config.Profiles {
		if p := store.Profiles(); p != nil {
			return *p
		}
		return config.Profiles{}
	}
}
