package example

import (
	"context"

	"github.com/vsched/vsched/framework"
)

// Spec describes the plugin to the framework: the registry decodes Args
// strictly (a misspelt field is an error), defaults and validates them
// before New.
var Spec = framework.Spec[Args]{
	Name:     Name,
	Kinds:    framework.KindScore,
	Modes:    framework.ForPlace,
	Defaults: SetDefaults,
	Validate: Validate,
	New:      framework.NewFunc(New),
}

// Registry returns a registry holding this package's plugins, for the
// embedder to merge into the in-tree one (framework.Registry.Merge).
func Registry() (*framework.Registry, error) {
	return framework.NewRegistry(Spec.Registration())
}

// Plugin is the AvoidPods score plugin. It holds only its configuration,
// is immutable after New and safe for concurrent decisions.
//
// It deliberately does not implement framework.EquivalenceAware: two empty
// pods on one node are equivalent for the in-tree plugins, but not for this
// one when only the lower ordinal is avoided, so the promise would be false.
// For the same reason it does not implement
// framework.HolderEquivalenceAware (two holders with the same count and free
// capacity on one node): a profile with it evaluates every holder.
type Plugin struct {
	avoid map[int32]bool
	score int64
}

var _ framework.ScorePlugin = &Plugin{}

// New builds the plugin from args (nil means none), defaulting and
// validating them again so that embedders bypassing the registry get the
// same checks.
func New(_ context.Context, args *Args) (*Plugin, error) {
	a, err := framework.DefaultedArgs(Name, args, SetDefaults, Validate)
	if err != nil {
		return nil, err
	}
	p := &Plugin{avoid: make(map[int32]bool, len(a.Ordinals)), score: *a.Score}
	for _, o := range a.Ordinals {
		p.avoid[o] = true
	}
	return p, nil
}

// Name implements framework.Plugin.
func (*Plugin) Name() string { return Name }

// Score implements framework.ScorePlugin.
func (p *Plugin) Score(_ context.Context, _ *framework.Decision, ordinal int32) (int64, *framework.Status) {
	if p.avoid[ordinal] {
		return p.score, nil
	}
	return framework.MaxScore, nil
}
