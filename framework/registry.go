package framework

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"
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

// NewFunc adapts a plugin's constructor, which returns its own type so that
// embedders calling it need no type assertion, to Spec.New:
//
//	New: framework.NewFunc(New),
//
// On error the Plugin is nil, not an interface holding a nil *P.
func NewFunc[A any, P Plugin](newPlugin func(context.Context, *A) (P, error)) func(context.Context, *A) (Plugin, error) {
	return func(ctx context.Context, args *A) (Plugin, error) {
		p, err := newPlugin(ctx, args)
		if err != nil {
			return nil, err
		}
		return p, nil
	}
}

// NoArgsNewFunc is NewFunc for a plugin without args whose constructor
// cannot fail.
func NoArgsNewFunc[P Plugin](newPlugin func() P) func(context.Context, *NoArgs) (Plugin, error) {
	return func(context.Context, *NoArgs) (Plugin, error) { return newPlugin(), nil }
}

// DefaultedArgs returns a shallow copy of args (the zero A for nil) passed through
// defaults and validate, either of which may be nil, for a plugin's exported
// New: embedders building the plugin without the registry get the checks
// DecodeArgs makes. Problems come back as one error prefixed with the
// plugin's name ("EvenPodSpread: MaxSkew: Invalid value: 0: ..."). *args is
// never changed: the caller may share it.
func DefaultedArgs[A any](name string, args *A, defaults func(*A), validate func(*A, *field.Path) field.ErrorList) (A, error) {
	var a A
	if args != nil {
		a = *args
	}
	if defaults != nil {
		defaults(&a)
	}
	if validate != nil {
		if errs := validate(&a, nil); len(errs) > 0 {
			return a, fmt.Errorf("%s: %w", name, errs.ToAggregate())
		}
	}
	return a, nil
}

// DecodeStrict decodes the JSON object in raw into out. Empty or all-blank
// input, and JSON null, leave out untouched. It rejects, naming the field
// and suggesting the nearest one:
//
//   - a field out does not have, nested fields included;
//   - a field given twice, which encoding/json would settle silently by
//     taking the last;
//   - a field whose name matches only when case is ignored: encoding/json
//     accepts {"maxskew": 1} for MaxSkew, and {"MaxSkew": 2, "maxskew": 1}
//     then means 1 without a word;
//
// and anything after the object. Errors give positions as 1-based line and
// column in raw. Decoding is sigs.k8s.io/json's, as for Kubernetes objects.
func DecodeStrict(raw []byte, out any) error {
	body := trimJSON(raw)
	if len(body) == 0 || bytes.Equal(body, []byte("null")) {
		return nil
	}
	// Offsets below are into body; lead maps them back to raw.
	lead := int64(len(raw) - len(bytes.TrimLeft(raw, " \t\r\n")))
	if body[0] != '{' {
		return fmt.Errorf("must be a JSON object")
	}
	// A first pass finds the object's end and reports syntax errors with
	// encoding/json's messages and offsets.
	dec := json.NewDecoder(bytes.NewReader(body))
	var object json.RawMessage
	if err := dec.Decode(&object); err != nil {
		return describeJSONError(raw, lead, err)
	}
	// body ends in non-blank, so anything after the object is data.
	if end := dec.InputOffset(); end < int64(len(body)) {
		next := end + int64(len(body[end:])-len(bytes.TrimLeft(body[end:], " \t\r\n")))
		line, col := position(raw, lead+next)
		return fmt.Errorf("unexpected data after the JSON object at line %d, column %d", line, col)
	}
	strict, err := sigsjson.UnmarshalStrict(object, out)
	if err != nil {
		return describeJSONError(raw, lead, err)
	}
	if len(strict) > 0 {
		return describeStrictErrors(strict, reflect.TypeOf(out))
	}
	return nil
}

// describeJSONError turns encoding/json's errors into ones that say where.
func describeJSONError(raw []byte, lead int64, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case asErr(err, &syn):
		// Offset counts the bytes read, the offending one included.
		line, col := position(raw, lead+max(syn.Offset-1, 0))
		return fmt.Errorf("malformed JSON at line %d, column %d: %v", line, col, syn)
	case asErr(err, &typ):
		name := typ.Field
		if name == "" {
			name = "value"
		}
		return fmt.Errorf("field %s: cannot use JSON %s as %s", name, typ.Value, typ.Type)
	case err == io.ErrUnexpectedEOF:
		return fmt.Errorf("malformed JSON: unexpected end of input")
	}
	return err
}

// position returns the 1-based line and column of the byte at offset.
func position(raw []byte, offset int64) (line, col int) {
	if offset > int64(len(raw)) {
		offset = int64(len(raw))
	}
	line, col = 1, 1
	for _, b := range raw[:offset] {
		if b == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// Registry maps plugin names (and aliases) to registrations, and carries
// the default policy (Defaults) for them.
type Registry struct {
	byName   map[string]*Registration
	defaults Defaults
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
// error and nothing is added. The default policy stays r's.
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

// Clone returns an independent copy, default policy included, for adding
// plugins to a shared default.
func (r *Registry) Clone() *Registry {
	if r == nil {
		return &Registry{byName: map[string]*Registration{}}
	}
	c := &Registry{byName: make(map[string]*Registration, len(r.byName)), defaults: r.defaults.clone()}
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
