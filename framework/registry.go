package framework

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Kind is what a plugin can be used as.
type Kind uint8

const (
	// KindFilter: the plugin implements FilterPlugin.
	KindFilter Kind = 1 << iota
	// KindScore: the plugin implements ScorePlugin.
	KindScore
)

// Modes says which profiles may use a plugin.
type Modes uint8

const (
	// ForPlace: scheduler profiles (config-scheduler).
	ForPlace Modes = 1 << iota
	// ForRemove: descheduler profiles (config-descheduler).
	ForRemove
)

// Has reports whether m includes mode.
func (m Modes) Has(mode Mode) bool {
	if mode == Remove {
		return m&ForRemove != 0
	}
	return m&ForPlace != 0
}

// Registration is everything the framework knows about one plugin: how to
// decode, default and validate its args and how to build it. With it alone a
// configuration can be checked without building anything, out-of-tree
// plugins included. Build one with Spec[A].Registration.
type Registration struct {
	// Name is the name used in configuration.
	Name string
	// Aliases are other accepted names (older spellings).
	Aliases []string
	// Kinds and Modes say where the plugin may be configured.
	Kinds Kind
	Modes Modes

	// TakesArgs is false for plugins without arguments; configuring Args
	// for them is an error.
	TakesArgs bool
	// DecodeArgs decodes raw (JSON; empty means none) strictly, applies
	// defaults and validates, reporting problems under path.
	DecodeArgs func(raw []byte, path *field.Path) (any, field.ErrorList)
	// New builds the plugin from args returned by DecodeArgs.
	New func(ctx context.Context, args any) (Plugin, error)

	// sample returns a plugin of the registered type, or nil when there is
	// none to check (see Spec.Type).
	sample func() Plugin
}

// NoArgs is the args type of a plugin without arguments.
type NoArgs struct{}

// Spec is the typed description of a plugin with args of type A. Every
// in-tree plugin package exports one (as `Spec`) and the registry is built
// from them; out-of-tree plugins do the same.
type Spec[A any] struct {
	Name    string
	Aliases []string
	Kinds   Kind
	Modes   Modes
	// Type is a value of the plugin's type, typically a nil pointer such as
	// (*Plugin)(nil), for Register to check that it implements every kind
	// in Kinds. Optional: without it Register builds the plugin once from
	// its default args (Defaults, Validate, then New with a cancelled
	// context) and checks what New returns. A plugin whose default args do
	// not validate, or whose New fails or panics then, is checked only when
	// a profile is built; set Type for it, and for a New that is costly or
	// must not run at registration.
	Type Plugin
	// Defaults fills unset fields of args. Optional. It runs on decoded
	// args, where an absent field and one given as its zero value look
	// alike: a field whose zero value is meaningful ({"Max": 0}) must be a
	// pointer for Defaults to tell them apart, or an explicit 0 is
	// silently replaced by the default.
	Defaults func(args *A)
	// Validate checks defaulted args, reporting under path (the field path
	// of the Args value). Optional.
	Validate func(args *A, path *field.Path) field.ErrorList
	// New builds the plugin. args has been defaulted and validated.
	New func(ctx context.Context, args *A) (Plugin, error)
}

// Registration erases the args type.
func (s Spec[A]) Registration() Registration {
	_, noArgs := any((*A)(nil)).(*NoArgs)
	return Registration{
		Name:      s.Name,
		Aliases:   s.Aliases,
		Kinds:     s.Kinds,
		Modes:     s.Modes,
		TakesArgs: !noArgs,
		DecodeArgs: func(raw []byte, path *field.Path) (any, field.ErrorList) {
			args := new(A)
			if err := DecodeStrict(raw, args); err != nil {
				return nil, field.ErrorList{field.Invalid(path, string(raw), err.Error())}
			}
			if s.Defaults != nil {
				s.Defaults(args)
			}
			if s.Validate != nil {
				if errs := s.Validate(args, path); len(errs) > 0 {
					return nil, errs
				}
			}
			return args, nil
		},
		sample: s.sample,
		New: func(ctx context.Context, args any) (Plugin, error) {
			if s.New == nil {
				return nil, fmt.Errorf("plugin %s: Spec has no New", s.Name)
			}
			a, ok := args.(*A)
			if !ok {
				return nil, fmt.Errorf("plugin %s: args of type %T, want %T", s.Name, args, a)
			}
			return s.New(ctx, a)
		},
	}
}

// sample is Type, or else the plugin built from default args, or nil.
func (s Spec[A]) sample() (pl Plugin) {
	if s.Type != nil || s.New == nil {
		return s.Type
	}
	args := new(A)
	if s.Defaults != nil {
		s.Defaults(args)
	}
	if s.Validate != nil && len(s.Validate(args, field.NewPath("Args"))) > 0 {
		return nil
	}
	// A New that panics on default args is the configuration's problem,
	// reported when a profile builds it, not the registering program's.
	defer func() {
		if recover() != nil {
			pl = nil
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	pl, err := s.New(ctx, args)
	if err != nil {
		return nil
	}
	return pl
}

// checkKinds reports a kind reg declares that its plugin type does not
// implement.
func checkKinds(reg Registration) error {
	if reg.sample == nil {
		return nil
	}
	pl := reg.sample()
	if pl == nil {
		return nil
	}
	for _, k := range []Kind{KindFilter, KindScore} {
		if reg.Kinds&k != 0 && !implements(pl, k) {
			noun, iface := "filter", "FilterPlugin"
			if k == KindScore {
				noun, iface = "score plugin", "ScorePlugin"
			}
			return fmt.Errorf("plugin %q is declared a %s, but %T does not implement framework.%s", reg.Name, noun, pl, iface)
		}
	}
	return nil
}

// Registry maps plugin names (and aliases) to registrations.
type Registry struct {
	byName map[string]*Registration
}

// NewRegistry returns a registry holding regs, or an error if two share a
// name or alias.
func NewRegistry(regs ...Registration) (*Registry, error) {
	r := &Registry{byName: map[string]*Registration{}}
	for _, reg := range regs {
		if err := r.Register(reg); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Register adds reg. A name or alias already present is an error, and so is
// a registration from a Spec whose plugin does not implement the kinds it
// declares (see Spec.Type).
func (r *Registry) Register(reg Registration) error {
	if r.byName == nil {
		r.byName = map[string]*Registration{}
	}
	if reg.Name == "" {
		return fmt.Errorf("plugin registration without a name")
	}
	if reg.New == nil || reg.DecodeArgs == nil {
		return fmt.Errorf("plugin %q: registration has no builder (use Spec.Registration)", reg.Name)
	}
	if reg.Kinds == 0 || reg.Modes == 0 {
		return fmt.Errorf("plugin %q: registration says neither kind nor mode", reg.Name)
	}
	if err := checkKinds(reg); err != nil {
		return err
	}
	names := append([]string{reg.Name}, reg.Aliases...)
	for i, n := range names {
		if n == "" {
			return fmt.Errorf("plugin %q: empty alias", reg.Name)
		}
		if _, dup := r.byName[n]; dup {
			return fmt.Errorf("plugin %q is already registered", n)
		}
		if slices.Contains(names[:i], n) {
			return fmt.Errorf("plugin %q: name %q given twice", reg.Name, n)
		}
	}
	stored := reg
	// The caller keeps its slice; the registry must not change with it.
	stored.Aliases = slices.Clone(reg.Aliases)
	for _, n := range names {
		r.byName[n] = &stored
	}
	return nil
}

// Merge adds every registration of other. Any name already present is an
// error and nothing is added.
func (r *Registry) Merge(other *Registry) error {
	if other == nil {
		return nil
	}
	for n := range other.byName {
		if _, dup := r.byName[n]; dup {
			return fmt.Errorf("plugin %q is already registered", n)
		}
	}
	for _, reg := range other.Registrations() {
		if err := r.Register(reg); err != nil {
			return err
		}
	}
	return nil
}

// Clone returns an independent copy, for adding plugins to a shared default.
func (r *Registry) Clone() *Registry {
	if r == nil {
		return &Registry{byName: map[string]*Registration{}}
	}
	c := &Registry{byName: make(map[string]*Registration, len(r.byName))}
	for k, v := range r.byName {
		c.byName[k] = v
	}
	return c
}

// Lookup returns the registration for name or one of its aliases.
func (r *Registry) Lookup(name string) (Registration, bool) {
	if r == nil {
		return Registration{}, false
	}
	reg, ok := r.byName[name]
	if !ok {
		return Registration{}, false
	}
	return *reg, true
}

// Registrations returns every registration once, sorted by name.
func (r *Registry) Registrations() []Registration {
	if r == nil {
		return nil
	}
	seen := map[*Registration]bool{}
	var out []Registration
	for _, reg := range r.byName {
		if !seen[reg] {
			seen[reg] = true
			out = append(out, *reg)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Names returns the registered names usable as kind in mode, sorted; aliases
// are left out.
func (r *Registry) Names(kind Kind, mode Mode) []string {
	var out []string
	for _, reg := range r.Registrations() {
		if reg.Kinds&kind != 0 && reg.Modes.Has(mode) {
			out = append(out, reg.Name)
		}
	}
	return out
}

// knownList formats names for an "unknown plugin" error.
func knownList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
