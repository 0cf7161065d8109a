package config

import (
	"context"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/plugins"
	"github.com/vsched/vsched/plugins/core/podfitsresources"
)

// BuildProfiles validates both configurations against reg and builds the
// scheduler (Place) and descheduler (Remove) profiles. It is the one entry
// point for start-up and for live reload: on error nothing is built and the
// caller keeps the profiles it has.
//
// reg holds the plugins that may be configured; nil means the in-tree
// plugins (plugins.NewInTreeRegistry). Embedders with out-of-tree plugins
// merge theirs into an in-tree registry and pass it. A nil sched or
// desched means its default policy.
//
// Capacity is never optional: when sched's predicates do not list
// PodFitsResources (by name or alias) and reg knows it, it is added as the
// first predicate. This is not an error. Problems in the configured lists are
// still reported at the index the ConfigMap gives them.
//
// Every problem in either configuration is reported, in a *Error whose
// problems name the ConfigMap, the key, the list index and the field, e.g.
//
//	config-scheduler: data.priorities[1].Args.MaxSkew: Invalid value: 0: must be at least 1
//
// ctx is handed to the plugins' constructors.
func BuildProfiles(ctx context.Context, reg *framework.Registry, sched *SchedulerConfig, desched *DeschedulerConfig) (*Profiles, error) {
	reg, err := registryOrInTree(reg)
	if err != nil {
		return nil, err
	}
	if sched == nil {
		sched = DefaultSchedulerConfig()
	}
	if desched == nil {
		desched = DefaultDeschedulerConfig()
	}
	place, perrs := buildPlace(ctx, reg, sched)
	remove, rerrs := buildRemove(ctx, reg, desched)
	ps := append(problems(sched.name(), perrs), problems(desched.name(), rerrs)...)
	if len(ps) > 0 {
		return nil, asError(ps)
	}
	return &Profiles{Place: place, Remove: remove}, nil
}

// ValidateSchedulerConfig reports, as a *Error, every problem that would
// keep BuildProfiles from building cfg's profile with reg (nil: the in-tree
// plugins): unknown plugins, plugins in the wrong list, duplicates, weights,
// and each plugin's Args. It builds the profile to do so, with a context
// cancelled on return, and drops it. A nil cfg is the default policy.
func ValidateSchedulerConfig(cfg *SchedulerConfig, reg *framework.Registry) error {
	reg, err := registryOrInTree(reg)
	if err != nil {
		return err
	}
	if cfg == nil {
		cfg = DefaultSchedulerConfig()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, errs := buildPlace(ctx, reg, cfg)
	return asError(problems(cfg.name(), errs))
}

// ValidateDeschedulerConfig is ValidateSchedulerConfig for the descheduler.
func ValidateDeschedulerConfig(cfg *DeschedulerConfig, reg *framework.Registry) error {
	reg, err := registryOrInTree(reg)
	if err != nil {
		return err
	}
	if cfg == nil {
		cfg = DefaultDeschedulerConfig()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, errs := buildRemove(ctx, reg, cfg)
	return asError(problems(cfg.name(), errs))
}

func registryOrInTree(reg *framework.Registry) (*framework.Registry, error) {
	if reg != nil {
		return reg, nil
	}
	return plugins.NewInTreeRegistry()
}

func buildPlace(ctx context.Context, reg *framework.Registry, cfg *SchedulerConfig) (*framework.Profile, field.ErrorList) {
	pc := framework.ProfileConfig{Mode: framework.Place, Filters: cfg.Predicates, Scores: cfg.Priorities}
	if needsCapacityFilter(reg, cfg.Predicates) {
		// Check the list as configured first, so that every problem is
		// reported at the index the ConfigMap gives it. The one problem
		// expected is the missing capacity filter, which the insertion
		// below fixes.
		_, errs := framework.BuildProfile(ctx, reg, pc, predicatesPath, prioritiesPath)
		if errs = withoutCapacityRequired(errs); len(errs) > 0 {
			return nil, errs
		}
		pc.Filters = append([]framework.PluginConfig{{Name: podfitsresources.Name}}, cfg.Predicates...)
	}
	return framework.BuildProfile(ctx, reg, pc, predicatesPath, prioritiesPath)
}

func buildRemove(ctx context.Context, reg *framework.Registry, cfg *DeschedulerConfig) (*framework.Profile, field.ErrorList) {
	pc := framework.ProfileConfig{Mode: framework.Remove, Scores: cfg.Priorities}
	// config-descheduler has no predicates key; the path is never used.
	return framework.BuildProfile(ctx, reg, pc, dataPath.Child("predicates"), prioritiesPath)
}

// needsCapacityFilter reports whether PodFitsResources must be added: reg
// knows it and no predicate names it (or an alias of it).
func needsCapacityFilter(reg *framework.Registry, predicates []framework.PluginConfig) bool {
	if _, ok := reg.Lookup(podfitsresources.Name); !ok {
		return false
	}
	for _, p := range predicates {
		if r, ok := reg.Lookup(p.Name); ok && r.Name == podfitsresources.Name {
			return false
		}
	}
	return true
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
