package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched/internal/lib/suggest"
)

// PluginConfig is one configured plugin, as a ConfigMap lists it.
type PluginConfig struct {
	// Name is the plugin's registered name or alias.
	Name string
	// Weight multiplies a score plugin's scores; nil means DefaultWeight.
	// Filters take no weight. A weight of 0 keeps the plugin out of the
	// decision: it is scored only for explanations, which record its
	// failures rather than stopping.
	Weight *int32
	// Args is the plugin's JSON args object; empty means none.
	Args []byte
}

// ProfileConfig is a profile as configured: filters then score plugins, in
// order.
type ProfileConfig struct {
	Mode    Mode
	Filters []PluginConfig
	Scores  []PluginConfig
}

// CapacityEnforcer is implemented by the filter that rejects pods without free
// capacity (PodFitsResources). Every Place profile must contain one, because
// the runtime's fast path relies on full pods being rejected.
type CapacityEnforcer interface {
	EnforcesCapacity() bool
}

// BuildProfile validates cfg against reg and builds the profile. Every
// problem is reported, each under its field path (filtersPath[i] or
// scoresPath[i], then .Name, .Weight or .Args...). Args are decoded,
// defaulted and validated here, once; never per decision.
func BuildProfile(ctx context.Context, reg *Registry, cfg ProfileConfig, filtersPath, scoresPath *field.Path) (*Profile, field.ErrorList) {
	var errs field.ErrorList
	p := &Profile{mode: cfg.Mode}
	build := func(kind Kind, list []PluginConfig, path *field.Path) []Plugin {
		seen := map[string]int{}
		var out []Plugin
		for i, pc := range list {
			ip := path.Index(i)
			r, ok := reg.Lookup(pc.Name)
			if !ok {
				errs = append(errs, unknownPlugin(ip.Child("Name"), pc.Name, reg, kind, cfg.Mode))
				continue
			}
			if r.Kinds&kind == 0 || !r.Modes.Has(cfg.Mode) {
				errs = append(errs, field.Invalid(ip.Child("Name"), pc.Name, fmt.Sprintf(
					"plugin cannot be used here (it is a %s); plugins allowed here: %s",
					describe(r), knownList(reg.Names(kind, cfg.Mode)))))
				continue
			}
			if j, dup := seen[r.Name]; dup {
				errs = append(errs, field.Duplicate(ip.Child("Name"), fmt.Sprintf("%s (also at index %d)", pc.Name, j)))
				continue
			}
			seen[r.Name] = i
			weight := DefaultWeight
			if kind == KindFilter && pc.Weight != nil {
				errs = append(errs, field.Forbidden(ip.Child("Weight"), "filters (predicates) take no weight"))
			}
			if kind == KindScore && pc.Weight != nil {
				weight = *pc.Weight
				if weight < MinWeight || weight > MaxWeight {
					errs = append(errs, field.Invalid(ip.Child("Weight"), weight, fmt.Sprintf("must be between %d and %d", MinWeight, MaxWeight)))
				}
			}
			if !r.TakesArgs && !emptyArgs(pc.Args) {
				errs = append(errs, field.Forbidden(ip.Child("Args"), fmt.Sprintf("plugin %s takes no args", r.Name)))
				continue
			}
			args, aerrs := r.DecodeArgs(pc.Args, ip.Child("Args"))
			if len(aerrs) > 0 {
				errs = append(errs, aerrs...)
				continue
			}
			pl, err := r.New(ctx, args)
			if err != nil {
				errs = append(errs, field.Invalid(ip.Child("Args"), string(pc.Args), err.Error()))
				continue
			}
			if !implements(pl, kind) {
				errs = append(errs, field.InternalError(ip.Child("Name"), fmt.Errorf("plugin %s is registered as a %s but does not implement it", r.Name, describe(r))))
				continue
			}
			if kind == KindScore {
				p.scores = append(p.scores, scorer{plugin: pl.(ScorePlugin), weight: int64(weight)})
			}
			out = append(out, pl)
		}
		return out
	}
	for _, f := range build(KindFilter, cfg.Filters, filtersPath) {
		p.filters = append(p.filters, f.(FilterPlugin))
	}
	build(KindScore, cfg.Scores, scoresPath)
	if len(errs) > 0 {
		return nil, errs
	}
	if err := p.finish(); err != nil {
		return nil, field.ErrorList{field.Required(filtersPath, err.Error())}
	}
	return p, nil
}

// unknownPlugin lists the plugins allowed here and suggests the nearest name
// or alias among them.
func unknownPlugin(path *field.Path, name string, reg *Registry, kind Kind, mode Mode) *field.Error {
	e := field.NotSupported(path, name, reg.Names(kind, mode))
	var near []string
	for _, r := range reg.Registrations() {
		if r.Kinds&kind != 0 && r.Modes.Has(mode) {
			near = append(append(near, r.Name), r.Aliases...)
		}
	}
	e.Detail += suggest.DidYouMean(name, near, false)
	return e
}

// emptyArgs reports whether raw configures nothing: blank, null, or an
// object without members however it is spaced.
func emptyArgs(raw []byte) bool {
	var m map[string]json.RawMessage
	return len(trimJSON(raw)) == 0 || (DecodeStrict(raw, &m) == nil && len(m) == 0)
}

// trimJSON trims JSON whitespace, which is narrower than unicode.IsSpace.
func trimJSON(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	for j > i && (b[j-1] == ' ' || b[j-1] == '\n' || b[j-1] == '\t' || b[j-1] == '\r') {
		j--
	}
	return b[i:j]
}

func implements(pl Plugin, kind Kind) bool {
	switch kind {
	case KindFilter:
		_, ok := pl.(FilterPlugin)
		return ok
	case KindScore:
		_, ok := pl.(ScorePlugin)
		return ok
	}
	return false
}

func describe(r Registration) string {
	var what string
	switch {
	case r.Kinds&KindFilter != 0 && r.Kinds&KindScore != 0:
		what = "filter and score plugin"
	case r.Kinds&KindFilter != 0:
		what = "filter (predicate)"
	default:
		what = "score plugin (priority)"
	}
	switch {
	case r.Modes&ForPlace != 0 && r.Modes&ForRemove != 0:
		return what + " for scheduling and descheduling"
	case r.Modes&ForRemove != 0:
		return "descheduler " + what
	default:
		return "scheduler " + what
	}
}

// WeightedScore pairs a score plugin with its weight, for NewProfile. Weight
// 0 means what it does in PluginConfig.
type WeightedScore struct {
	Plugin ScorePlugin
	Weight int32
}

// NewProfile builds a profile from plugin instances, for embedders and tests
// that do not go through configuration. Weights must be in
// [MinWeight, MaxWeight]; a Place profile needs a CapacityEnforcer filter.
func NewProfile(mode Mode, filters []FilterPlugin, scores []WeightedScore) (*Profile, error) {
	p := &Profile{mode: mode, filters: append([]FilterPlugin(nil), filters...)}
	for _, s := range scores {
		if s.Plugin == nil {
			return nil, fmt.Errorf("nil score plugin")
		}
		if s.Weight < MinWeight || s.Weight > MaxWeight {
			return nil, fmt.Errorf("plugin %s: weight %d is outside [%d, %d]", s.Plugin.Name(), s.Weight, MinWeight, MaxWeight)
		}
		p.scores = append(p.scores, scorer{plugin: s.Plugin, weight: int64(s.Weight)})
	}
	for _, f := range filters {
		if f == nil {
			return nil, fmt.Errorf("nil filter plugin")
		}
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	return p, nil
}

// finish derives the lists the runtime walks.
func (p *Profile) finish() error {
	// The same instance may serve as filter and scorer; it must be
	// prepared and told of changes once. Only comparable plugin values can
	// be recognised, which covers every pointer-typed plugin.
	seen := map[Plugin]bool{}
	count := 0
	capacity := false
	grouped, zoned, holders := true, true, true
	add := func(pl Plugin) {
		// Value.Comparable also looks inside interface-typed fields,
		// whose dynamic values would make the map panic.
		if reflect.ValueOf(pl).Comparable() {
			if seen[pl] {
				return
			}
			seen[pl] = true
		}
		count++
		if pp, ok := pl.(PreparePlugin); ok {
			p.preparers = append(p.preparers, pp)
		}
		if o, ok := pl.(ChangeObserver); ok {
			p.observers = append(p.observers, o)
		}
		if e, ok := pl.(EquivalenceAware); !ok || !e.EquivalentWithinClass() {
			grouped = false
		}
		if e, ok := pl.(ZoneEquivalenceAware); !ok || !e.EquivalentWithinZone() {
			zoned = false
		}
		if e, ok := pl.(HolderEquivalenceAware); !ok || !e.EquivalentHolders() {
			holders = false
		}
	}
	for _, f := range p.filters {
		add(f)
		if c, ok := f.(CapacityEnforcer); ok && c.EnforcesCapacity() {
			capacity = true
		}
		if rb, ok := f.(Rebalancer); ok && p.mode == Place {
			p.rebalancers = append(p.rebalancers, rb)
		}
	}
	for i := range p.scores {
		add(p.scores[i].plugin)
		if n, ok := p.scores[i].plugin.(ScoreNormalizer); ok {
			p.scores[i].normalizer = n
			grouped, holders = false, false
		} else if in, ok := p.scores[i].plugin.(ScoreInputs); ok {
			p.scores[i].inputs = in
		}
	}
	if p.mode == Place && !capacity {
		return fmt.Errorf("a scheduler profile needs a filter that enforces pod capacity (PodFitsResources)")
	}
	p.grouped = grouped && p.mode == Place
	p.zoned = p.grouped && zoned
	p.holderGrouped = holders
	p.plugins = count
	return nil
}
