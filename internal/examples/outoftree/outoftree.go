// Package outoftree is a minimal out-of-tree plugin, the template for
// embedders who add their own plugins to vsched without changing it.
//
// It defines AvoidPods, a scheduler score plugin that steers vreplicas away
// from the pods with the configured ordinals, for example pods an operator
// wants to drain slowly:
//
//	{"Name": "AvoidPods", "Weight": 10, "Args": {"Ordinals": [0, 1]}}
//
// A listed pod scores MinScore and every other pod MaxScore. It is a
// preference, not a rule: when only avoided pods have room, vreplicas still go
// there (use a filter plugin for a hard rule).
//
// An out-of-tree plugin needs three things, all shown here: typed Args with
// defaults and validation, a framework.Spec describing the plugin, and a
// registry the embedder merges into the in-tree one:
//
//	reg := plugins.MustInTreeRegistry()
//	ext, err := outoftree.Registry()
//	...
//	err = reg.Merge(ext)
//	profiles, err := config.BuildProfiles(ctx, reg, sched, desched)
package outoftree

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched/framework"
)

// Name is the plugin's name in configuration.
const Name = "AvoidPods"

// Args configures AvoidPods.
type Args struct {
	// Ordinals are the StatefulSet ordinals of the pods to avoid: at
	// least one, each >= 0, none twice.
	Ordinals []int32 `json:"Ordinals"`
}

// Validate checks args, reporting under path (the Args field path), so that
// a bad value reads, for example,
// "config-scheduler: data.priorities[0].Args.Ordinals[1]: Invalid value: -1: must be >= 0".
func Validate(args *Args, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	p := path.Child("Ordinals")
	if len(args.Ordinals) == 0 {
		errs = append(errs, field.Required(p, "list at least one pod ordinal to avoid"))
	}
	seen := map[int32]bool{}
	for i, o := range args.Ordinals {
		switch {
		case o < 0:
			errs = append(errs, field.Invalid(p.Index(i), o, "must be >= 0"))
		case seen[o]:
			errs = append(errs, field.Duplicate(p.Index(i), o))
		}
		seen[o] = true
	}
	return errs
}

// Spec describes the plugin to the framework. There are no defaults to set.
var Spec = framework.Spec[Args]{
	Name:     Name,
	Kinds:    framework.KindScore,
	Modes:    framework.ForPlace,
	Validate: Validate,
	New: func(_ context.Context, args *Args) (framework.Plugin, error) {
		return New(args)
	},
}

// Registry returns a registry holding this package's plugins, for the
// embedder to merge into the in-tree one (framework.Registry.Merge).
func Registry() (*framework.Registry, error) {
	return framework.NewRegistry(Spec.Registration())
}

// Plugin is the AvoidPods score plugin. It is immutable after New and safe
// for concurrent decisions.
//
// It deliberately does not implement framework.EquivalenceAware: two empty
// pods on one node are equivalent for the in-tree plugins, but not for this
// one when only the lower ordinal is avoided, so the promise would be false.
type Plugin struct {
	avoid map[int32]bool
}

var _ framework.ScorePlugin = &Plugin{}

// New validates args and builds the plugin.
func New(args *Args) (*Plugin, error) {
	if args == nil {
		args = &Args{}
	}
	if errs := Validate(args, field.NewPath("Args")); len(errs) > 0 {
		return nil, fmt.Errorf("%s: %w", Name, errs.ToAggregate())
	}
	p := &Plugin{avoid: make(map[int32]bool, len(args.Ordinals))}
	for _, o := range args.Ordinals {
		p.avoid[o] = true
	}
	return p, nil
}

// Name implements framework.Plugin.
func (*Plugin) Name() string { return Name }

// Score implements framework.ScorePlugin.
func (p *Plugin) Score(_ context.Context, _ *framework.Decision, ordinal int32) (int64, *framework.Status) {
	if p.avoid[ordinal] {
		return framework.MinScore, nil
	}
	return framework.MaxScore, nil
}
