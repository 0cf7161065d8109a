package config

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched/framework"
)

// BuildProfiles validates both configurations against reg and builds the
// scheduler (Place) and descheduler (Remove) profiles. It is the one entry
// point for start-up and for live reload: on error nothing is built and the
// caller keeps the profiles it has.
//
// reg holds the plugins that may be configured and the default policy
// (framework.Defaults); it is required. plugins.NewInTreeRegistry returns
// the in-tree plugins with vsched's default policy; embedders with
// out-of-tree plugins merge theirs into it and pass it. A nil sched or
// desched means reg's default policy.
//
// Capacity is never optional: when sched's predicates do not list reg's
// capacity filter (Defaults.CapacityFilter, PodFitsResources for the
// in-tree registry) by name or alias, and reg knows it, it is added as the
// first predicate. This is not an error. Problems in the configured lists
// are still reported at the index the ConfigMap gives them.
//
// Every problem in either configuration is reported, in a *Error whose
// problems name the ConfigMap, the key, the list index and the field, e.g.
//
//	config-scheduler: data.priorities[1].Args.MaxSkew: Invalid value: 0: must be at least 1
//
// ctx is handed to the plugins' constructors.
func BuildProfiles(ctx context.Context, reg *framework.Registry, sched *PlaceConfig, desched *RemoveConfig) (*Profiles, error) {
	if reg == nil {
		return nil, errNoRegistry
	}
	if sched == nil {
		sched = defaultScheduler(reg)
	}
	if desched == nil {
		desched = defaultDescheduler(reg)
	}
	place, perrs := buildPlace(ctx, reg, sched)
	remove, rerrs := buildRemove(ctx, reg, desched)
	ps := append(problems(sched.name(), perrs), problems(desched.name(), rerrs)...)
	if len(ps) > 0 {
		return nil, asError(ps)
	}
	return &Profiles{Place: place, Remove: remove}, nil
}

// BuildProfilesFromConfigMaps parses the config-scheduler and
// config-descheduler ConfigMaps and builds their profiles with reg, as the
// ProfilesStore does at every change: a nil ConfigMap means reg's default policy.
// When either fails to parse, the problems of both are reported in one
// *Error, so one edit can fix them all.
func BuildProfilesFromConfigMaps(ctx context.Context, reg *framework.Registry, sched, desched *corev1.ConfigMap) (*Profiles, error) {
	sc, serr := ParsePlaceConfigMap(sched, reg)
	dc, derr := ParseRemoveConfigMap(desched, reg)
	if err := joinErrors(serr, derr); err != nil {
		return nil, err
	}
	return BuildProfiles(ctx, reg, sc, dc)
}

// ValidatePlaceConfig reports, as a *Error, every problem that would
// keep BuildProfiles from building cfg's profile with reg (required):
// unknown plugins, plugins in the wrong list, duplicates, weights,
// and each plugin's Args. It builds the profile to do so, with a context
// cancelled on return, and drops it. A nil cfg is reg's default policy.
func ValidatePlaceConfig(cfg *PlaceConfig, reg *framework.Registry) error {
	return validate(reg, func(ctx context.Context) (string, field.ErrorList) {
		if cfg == nil {
			cfg = defaultScheduler(reg)
		}
		_, errs := buildPlace(ctx, reg, cfg)
		return cfg.name(), errs
	})
}

// ValidateRemoveConfig is ValidatePlaceConfig for the descheduler.
func ValidateRemoveConfig(cfg *RemoveConfig, reg *framework.Registry) error {
	return validate(reg, func(ctx context.Context) (string, field.ErrorList) {
		if cfg == nil {
			cfg = defaultDescheduler(reg)
		}
		_, errs := buildRemove(ctx, reg, cfg)
		return cfg.name(), errs
	})
}

// validate runs build, which builds a profile with reg (required) and
// returns its ConfigMap's name and problems, with a context cancelled on
// return: the profile is dropped.
func validate(reg *framework.Registry, build func(context.Context) (string, field.ErrorList)) error {
	if reg == nil {
		return errNoRegistry
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	name, errs := build(ctx)
	return asError(problems(name, errs))
}

// errNoRegistry is returned for a nil registry: config links no plugin, so
// it cannot stand in the in-tree ones.
var errNoRegistry = errors.New("config: no plugin registry; plugins.NewInTreeRegistry returns the in-tree plugins with the default policy")

func buildPlace(ctx context.Context, reg *framework.Registry, cfg *PlaceConfig) (*framework.Profile, field.ErrorList) {
	pc := framework.ProfileConfig{Mode: framework.Place, Filters: cfg.Predicates, Scores: cfg.Priorities}
	if capacity, ok := needsCapacityFilter(reg, cfg.Predicates); ok {
		// Check the list as configured first, so that every problem is
		// reported at the index the ConfigMap gives it. The one problem
		// expected is the missing capacity filter, which the insertion
		// below fixes.
		_, errs := framework.BuildProfile(ctx, reg, pc, predicatesPath, prioritiesPath)
		if errs = withoutCapacityRequired(errs); len(errs) > 0 {
			return nil, errs
		}
		pc.Filters = append([]framework.PluginConfig{{Name: capacity}}, cfg.Predicates...)
	}
	place, errs := framework.BuildProfile(ctx, reg, pc, predicatesPath, prioritiesPath)
	if len(errs) > 0 {
		return nil, errs
	}
	return withCosts(reg, place)
}

// withCosts gives place its costed variant (framework.Profile.WithCosts)
// with reg's cost plugins (Defaults.CostFilter, Defaults.CostScore).
func withCosts(reg *framework.Registry, place *framework.Profile) (*framework.Profile, field.ErrorList) {
	d := reg.Defaults()
	out, err := place.WithCosts(d.CostFilter, d.CostScore)
	if err != nil {
		return nil, field.ErrorList{field.InternalError(predicatesPath, err)}
	}
	return out, nil
}

func buildRemove(ctx context.Context, reg *framework.Registry, cfg *RemoveConfig) (*framework.Profile, field.ErrorList) {
	pc := framework.ProfileConfig{Mode: framework.Remove, Scores: cfg.Priorities}
	// config-descheduler has no predicates key; the path is never used.
	return framework.BuildProfile(ctx, reg, pc, dataPath.Child("predicates"), prioritiesPath)
}

// needsCapacityFilter returns reg's capacity filter and whether it must be
// added: reg knows it and no predicate names it (or an alias of it).
func needsCapacityFilter(reg *framework.Registry, predicates []framework.PluginConfig) (string, bool) {
	name := reg.Defaults().CapacityFilter
	if _, ok := reg.Lookup(name); !ok || name == "" {
		return "", false
	}
	for _, p := range predicates {
		if r, ok := reg.Lookup(p.Name); ok && r.Name == name {
			return "", false
		}
	}
	return name, true
}

// withoutCapacityRequired drops the error framework.BuildProfile gives a
// Place profile without a capacity-enforcing filter: a Required error on the
// filters path itself (every other error is under an index).
func withoutCapacityRequired(errs field.ErrorList) field.ErrorList {
	out := errs[:0:0]
	for _, e := range errs {
		if e.Type == field.ErrorTypeRequired && e.Field == predicatesPath.String() {
			continue
		}
		out = append(out, e)
	}
	return out
}
