package statefulset

import (
	"context"
	"errors"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"

	"github.com/vsched/vsched/config"
	"github.com/vsched/vsched/framework"
)

// ProfilesFrom returns a ProfileSource that always yields p, as built by
// config.BuildProfiles. A nil p, or one missing a profile, yields profiles
// that Schedule rejects with an error naming the source, rather than a
// panic. For configuration that changes at run time use a ProfileStore.
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

// ProfileStore holds the profiles in force for live reload: the ConfigMap
// watcher calls Update (or Set), and the scheduler reads Source once per
// Schedule call, so a change applies from the next decision on. It is safe
// for concurrent use. The zero value holds no profiles.
type ProfileStore struct {
	p atomic.Pointer[Profiles]
}

// NewProfileStore returns a store holding p.
func NewProfileStore(p *config.Profiles) *ProfileStore {
	s := &ProfileStore{}
	s.Set(p)
	return s
}

// Set replaces the profiles in force.
func (s *ProfileStore) Set(p *config.Profiles) {
	ps := &Profiles{}
	if p != nil {
		ps.Place, ps.Remove = p.Place, p.Remove
	}
	s.p.Store(ps)
}

// Update rebuilds the profiles from the two ConfigMaps (nil: the default
// policy) and puts them in force. On error the profiles in force are kept:
// a bad edit to a ConfigMap must not stop scheduling.
func (s *ProfileStore) Update(ctx context.Context, reg *framework.Registry, sched, desched *corev1.ConfigMap) error {
	p, err := buildFromConfigMaps(ctx, reg, sched, desched)
	if err != nil {
		return err
	}
	s.Set(p)
	return nil
}

// Source returns the ProfileSource reading the store.
func (s *ProfileStore) Source() ProfileSource {
	return func() Profiles {
		if p := s.p.Load(); p != nil {
			return *p
		}
		return Profiles{}
	}
}
