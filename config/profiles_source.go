package config

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/vsched/vsched/framework"
)

// ProfilesSource returns the scheduler and descheduler profiles for the next
// decision. It is called once per Schedule call, so live-reloaded
// configuration takes effect at once.
type ProfilesSource func() Profiles

// ProfilesFrom returns a ProfilesSource that always yields p, as built by
// config.BuildProfiles. A nil p, or one missing a profile, yields profiles
// that Schedule rejects with an error naming the source, rather than a
// panic. For configuration that changes at run time use ProfilesFromStore.
func ProfilesFrom(p *Profiles) ProfilesSource {
	var ps Profiles
	if p != nil {
		ps = *p
	}
	return func() Profiles { return ps }
}

// ProfilesFromConfigMaps is ProfilesFrom(config.BuildProfilesFromConfigMaps(...)):
// the profiles of the config-scheduler and config-descheduler ConfigMaps,
// built with reg (plugins.NewInTreeRegistry for the in-tree plugins). A nil
// ConfigMap means reg's default policy. Errors are config's *Error, naming
// the ConfigMap, key, index and field of every problem.
func ProfilesFromConfigMaps(ctx context.Context, reg *framework.Registry, sched, desched *corev1.ConfigMap) (ProfilesSource, error) {
	p, err := BuildProfilesFromConfigMaps(ctx, reg, sched, desched)
	if err != nil {
		return nil, err
	}
	return ProfilesFrom(p), nil
}

// ProfilesFromStore returns the ProfilesSource for live reload: it reads the
// store's profiles once per Schedule call, so a changed config-scheduler or
// config-descheduler applies from the next decision on, and a rejected one
// leaves the last good profiles in force (config.ProfilesStore).
func ProfilesFromStore(store *ProfilesStore) ProfilesSource {
	return func() Profiles {
		if p := store.Profiles(); p != nil {
			return *p
		}
		return Profiles{}
	}
}
