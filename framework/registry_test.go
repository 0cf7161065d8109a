package framework_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// Args of the fake registrations below, in the shape real plugins use.
type rejectArgs struct {
	Ordinals []int32 `json:"ordinals"`
}

type scriptedArgs struct {
	// Scores maps ordinals to scores.
	Scores  map[int32]int64 `json:"scores"`
	Default *int64          `json:"default"`
}

const (
	removeOnlyName = "FakeRemoveOnly"
	brokenName     = "FakeBroken"
	failingNewName = "FakeFailingNew"
)

var (
	capacitySpec = framework.Spec[framework.NoArgs]{
		Name: ft.CapacityName, Kinds: framework.KindFilter, Modes: framework.ForPlace,
		New: func(context.Context, *framework.NoArgs) (framework.Plugin, error) { return ft.CapacityFilter{}, nil },
	}
	rejectSpec = framework.Spec[rejectArgs]{
		Name: ft.RejectName, Aliases: []string{"RejectOrdinals"},
		Kinds: framework.KindFilter, Modes: framework.ForPlace | framework.ForRemove,
		Validate: func(a *rejectArgs, path *field.Path) field.ErrorList {
			var errs field.ErrorList
			for i, o := range a.Ordinals {
				if o < 0 {
					errs = append(errs, field.Invalid(path.Child("ordinals").Index(i), o, "must not be negative"))
				}
			}
			return errs
		},
		New: func(_ context.Context, a *rejectArgs) (framework.Plugin, error) {
			return &ft.RejectFilter{Ordinals: a.Ordinals}, nil
		},
	}
	scriptedSpec = framework.Spec[scriptedArgs]{
		Name: ft.ScriptedName, Kinds: framework.KindScore, Modes: framework.ForPlace | framework.ForRemove,
		Defaults: func(a *scriptedArgs) {
			if a.Default == nil {
				fifty := int64(50)
				a.Default = &fifty
			}
		},
		Validate: func(a *scriptedArgs, path *field.Path) field.ErrorList {
			var errs field.ErrorList
			if *a.Default < framework.MinScore || *a.Default > framework.MaxScore {
				errs = append(errs, field.Invalid(path.Child("default"), *a.Default, "must be between 0 and 100"))
			}
			for ord, s := range a.Scores {
				if s < framework.MinScore || s > framework.MaxScore {
					errs = append(errs, field.Invalid(path.Child("scores").Key(strconv.Itoa(int(ord))), s, "must be between 0 and 100"))
				}
			}
			return errs
		},
		New: func(_ context.Context, a *scriptedArgs) (framework.Plugin, error) {
			return &ft.ScriptedScorer{Scores: a.Scores, Default: *a.Default}, nil
		},
	}
	removeOnlySpec = framework.Spec[framework.NoArgs]{
		Name: removeOnlyName, Kinds: framework.KindScore, Modes: framework.ForRemove,
		New: func(context.Context, *framework.NoArgs) (framework.Plugin, error) {
			return &ft.ScriptedScorer{PluginName: removeOnlyName}, nil
		},
	}
	recorderSpec = framework.Spec[framework.NoArgs]{
		Name: ft.RecorderName, Kinds: framework.KindFilter | framework.KindScore, Modes: framework.ForPlace | framework.ForRemove,
		New: func(context.Context, *framework.NoArgs) (framework.Plugin, error) { return &ft.Recorder{}, nil },
	}
	failingNewSpec = framework.Spec[rejectArgs]{
		Name: failingNewName, Kinds: framework.KindFilter, Modes: framework.ForPlace,
		New: func(context.Context, *rejectArgs) (framework.Plugin, error) {
			return nil, errors.New("cannot reach the cluster")
		},
	}
)

// brokenRegistration says it scores but builds a filter. Register can check
// only what a Spec describes, so this hand-built registration gets through
// and it is BuildProfile that catches it.
func brokenRegistration() framework.Registration {
	capacity := capacitySpec.Registration()
	return framework.Registration{
		Name: brokenName, Kinds: framework.KindScore, Modes: framework.ForPlace,
		DecodeArgs: capacity.DecodeArgs, New: capacity.New,
	}
}

func fakeRegistry(t *testing.T) *framework.Registry {
	t.Helper()
	r, err := framework.NewRegistry(
		capacitySpec.Registration(), rejectSpec.Registration(), scriptedSpec.Registration(),
		removeOnlySpec.Registration(), recorderSpec.Registration(), brokenRegistration(),
		failingNewSpec.Registration(),
	)
	if err != nil {
		t.Fatalf("NewRegistry: %v", err)
	}
	return r
}

func regNames(r *framework.Registry) []string {
	var out []string
	for _, reg := range r.Registrations() {
		out = append(out, reg.Name)
	}
	return out
}

func TestRegistryLookup(t *testing.T) {
	r := fakeRegistry(t)
	byName, ok := r.Lookup(ft.RejectName)
	if !ok {
		t.Fatalf("Lookup(%s) not found", ft.RejectName)
	}
	byAlias, ok := r.Lookup("RejectOrdinals")
	if !ok {
		t.Fatalf("Lookup by alias not found")
	}
	if byAlias.Name != ft.RejectName || byName.Name != ft.RejectName {
		t.Errorf("Lookup gave names %q and %q", byName.Name, byAlias.Name)
	}
	if !byName.TakesArgs {
		t.Errorf("a plugin with args says it takes none")
	}
	if c, _ := r.Lookup(ft.CapacityName); c.TakesArgs {
		t.Errorf("a NoArgs plugin says it takes args")
	}
	if _, ok := r.Lookup("rejectordinals"); ok {
		t.Errorf("Lookup is case-insensitive; plugin names are not")
	}
	if _, ok := r.Lookup(""); ok {
		t.Errorf("Lookup(\"\") found something")
	}
	// Aliases are not registrations of their own.
	want := []string{brokenName, ft.CapacityName, failingNewName, ft.RecorderName, ft.RejectName, removeOnlyName, ft.ScriptedName}
	if diff := cmp.Diff(want, regNames(r)); diff != "" {
		t.Errorf("Registrations (-want +got):\n%s", diff)
	}
}

func TestRegistryNames(t *testing.T) {
	r := fakeRegistry(t)
	tests := []struct {
		name string
		kind framework.Kind
		mode framework.Mode
		want []string
	}{
		{name: "place filters", kind: framework.KindFilter, mode: framework.Place, want: []string{ft.CapacityName, failingNewName, ft.RecorderName, ft.RejectName}},
		{name: "remove filters", kind: framework.KindFilter, mode: framework.Remove, want: []string{ft.RecorderName, ft.RejectName}},
		{name: "place scores", kind: framework.KindScore, mode: framework.Place, want: []string{brokenName, ft.RecorderName, ft.ScriptedName}},
		{name: "remove scores", kind: framework.KindScore, mode: framework.Remove, want: []string{ft.RecorderName, removeOnlyName, ft.ScriptedName}},
		{name: "either kind", kind: framework.KindFilter | framework.KindScore, mode: framework.Remove, want: []string{ft.RecorderName, ft.RejectName, removeOnlyName, ft.ScriptedName}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, r.Names(tt.kind, tt.mode)); diff != "" {
				t.Errorf("Names (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRegistryRegisterErrors(t *testing.T) {
	valid := func(name string, aliases ...string) framework.Registration {
		reg := capacitySpec.Registration()
		reg.Name, reg.Aliases = name, aliases
		return reg
	}
	tests := []struct {
		name    string
		reg     framework.Registration
		wantErr string
	}{
		{name: "new", reg: valid("Other", "OtherAlias")},
		{name: "same name", reg: valid(ft.CapacityName), wantErr: `plugin "FakeCapacity" is already registered`},
		{name: "alias taken by a name", reg: valid("Other", ft.ScriptedName), wantErr: `plugin "FakeScripted" is already registered`},
		{name: "name taken by an alias", reg: valid("RejectOrdinals"), wantErr: `plugin "RejectOrdinals" is already registered`},
		{name: "alias taken by an alias", reg: valid("Other", "RejectOrdinals"), wantErr: `plugin "RejectOrdinals" is already registered`},
		{name: "no name", reg: valid(""), wantErr: "plugin registration without a name"},
		{name: "empty alias", reg: valid("Other", ""), wantErr: `plugin "Other": empty alias`},
		{name: "alias repeats the name", reg: valid("Other", "Other"), wantErr: `plugin "Other": name "Other" given twice`},
		{name: "no builder", reg: framework.Registration{Name: "Other", Kinds: framework.KindFilter, Modes: framework.ForPlace}, wantErr: `plugin "Other": registration has no builder (use Spec.Registration)`},
		{
			name:    "no kind",
			reg:     framework.Spec[framework.NoArgs]{Name: "Other", Modes: framework.ForPlace}.Registration(),
			wantErr: `plugin "Other": registration says neither kind nor mode`,
		},
		{
			name:    "no mode",
			reg:     framework.Spec[framework.NoArgs]{Name: "Other", Kinds: framework.KindScore}.Registration(),
			wantErr: `plugin "Other": registration says neither kind nor mode`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := fakeRegistry(t)
			before := regNames(r)
			err := r.Register(tt.reg)
			wantError(t, "Register", err, tt.wantErr)
			if err != nil {
				if diff := cmp.Diff(before, regNames(r)); diff != "" {
					t.Errorf("a failed Register changed the registry (-before +after):\n%s", diff)
				}
				if _, ok := r.Lookup("Other"); ok {
					t.Errorf("a failed Register left a name behind")
				}
			}
		})
	}
	if _, err := framework.NewRegistry(capacitySpec.Registration(), capacitySpec.Registration()); err == nil {
		t.Errorf("NewRegistry accepted a name twice")
	}
}

func TestRegistryKeepsItsOwnAliases(t *testing.T) {
	aliases := []string{"A1"}
	spec := capacitySpec
	spec.Aliases = aliases
	var r framework.Registry // the zero value is usable
	if err := r.Register(spec.Registration()); err != nil {
		t.Fatal(err)
	}
	aliases[0] = "Changed"
	reg, ok := r.Lookup("A1")
	if !ok || reg.Aliases[0] != "A1" {
		t.Errorf("the registry follows the caller's slice: %v, %v", reg.Aliases, ok)
	}
}

func TestRegistryMerge(t *testing.T) {
	r := fakeRegistry(t)
	before := regNames(r)

	conflicting, err := framework.NewRegistry(
		framework.Spec[framework.NoArgs]{Name: "A", Kinds: framework.KindFilter, Modes: framework.ForPlace, New: capacitySpec.New}.Registration(),
		framework.Spec[framework.NoArgs]{Name: "B", Aliases: []string{"RejectOrdinals"}, Kinds: framework.KindFilter, Modes: framework.ForPlace, New: capacitySpec.New}.Registration(),
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Merge(conflicting); err == nil || err.Error() != `plugin "RejectOrdinals" is already registered` {
		t.Errorf("Merge with a conflict: %v", err)
	}
	if diff := cmp.Diff(before, regNames(r)); diff != "" {
		t.Errorf("a failed Merge changed the registry (-before +after):\n%s", diff)
	}
	if _, ok := r.Lookup("A"); ok {
		t.Errorf("a failed Merge added A")
	}

	outOfTree, err := framework.NewRegistry(
		framework.Spec[framework.NoArgs]{Name: "A", Aliases: []string{"OldA"}, Kinds: framework.KindFilter, Modes: framework.ForPlace, New: capacitySpec.New}.Registration(),
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Merge(outOfTree); err != nil {
		t.Fatalf("Merge: %v", err)
	}
	if reg, ok := r.Lookup("OldA"); !ok || reg.Name != "A" {
		t.Errorf("merged alias not found: %+v %v", reg, ok)
	}
	if err := r.Merge(nil); err != nil {
		t.Errorf("Merge(nil) = %v", err)
	}
	if err := r.Merge(r); err == nil {
		t.Errorf("merging a registry into itself succeeded")
	}
}

func TestRegistryClone(t *testing.T) {
	base := fakeRegistry(t)
	c := base.Clone()
	extra := framework.Spec[framework.NoArgs]{Name: "Extra", Kinds: framework.KindFilter, Modes: framework.ForPlace, New: capacitySpec.New}
	if err := c.Register(extra.Registration()); err != nil {
		t.Fatal(err)
	}
	if _, ok := base.Lookup("Extra"); ok {
		t.Errorf("registering into the clone changed the original")
	}
	extra.Name = "Extra2"
	if err := base.Register(extra.Registration()); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Lookup("Extra2"); ok {
		t.Errorf("registering into the original changed the clone")
	}
	if _, ok := c.Lookup("RejectOrdinals"); !ok {
		t.Errorf("the clone lost an alias")
	}
}

func TestNilRegistry(t *testing.T) {
	var r *framework.Registry
	if _, ok := r.Lookup("x"); ok {
		t.Errorf("nil Lookup found something")
	}
	if r.Names(framework.KindFilter, framework.Place) != nil || r.Registrations() != nil {
		t.Errorf("nil registry lists names")
	}
	c := r.Clone()
	if err := c.Register(capacitySpec.Registration()); err != nil {
		t.Errorf("Register on a clone of nil: %v", err)
	}
}

func TestSpecRegistration(t *testing.T) {
	reg := scriptedSpec.Registration()
	path := field.NewPath("scores").Index(2).Child("Args")

	args, errs := reg.DecodeArgs([]byte(`{"scores": {"3": 80}}`), path)
	if len(errs) > 0 {
		t.Fatalf("DecodeArgs: %v", errs)
	}
	fifty := int64(50)
	if diff := cmp.Diff(&scriptedArgs{Scores: map[int32]int64{3: 80}, Default: &fifty}, args); diff != "" {
		t.Errorf("decoded and defaulted args (-want +got):\n%s", diff)
	}
	pl, err := reg.New(context.Background(), args)
	if err != nil || pl.Name() != ft.ScriptedName {
		t.Errorf("New = %v, %v", pl, err)
	}
	if _, err := reg.New(context.Background(), &rejectArgs{}); err == nil ||
		err.Error() != "plugin FakeScripted: args of type *framework_test.rejectArgs, want *framework_test.scriptedArgs" {
		t.Errorf("New with the wrong args type: %v", err)
	}
	if _, err := (framework.Spec[framework.NoArgs]{Name: "NoNew"}).Registration().New(context.Background(), &framework.NoArgs{}); err == nil {
		t.Errorf("a Spec without New built something")
	}

	_, errs = reg.DecodeArgs([]byte(`{"default": 120, "scores": {"1": -1}}`), path)
	want := []string{
		"scores[2].Args.default: Invalid value: 120: must be between 0 and 100",
		"scores[2].Args.scores[1]: Invalid value: -1: must be between 0 and 100",
	}
	if diff := cmp.Diff(want, errStrings(errs)); diff != "" {
		t.Errorf("validation errors (-want +got):\n%s", diff)
	}
	_, errs = reg.DecodeArgs([]byte(`{"defualt": 1}`), path)
	want = []string{`scores[2].Args: Invalid value: "{\"defualt\": 1}": json: unknown field "defualt" (did you mean "default"?)`}
	if diff := cmp.Diff(want, errStrings(errs)); diff != "" {
		t.Errorf("decode errors (-want +got):\n%s", diff)
	}
}

func errStrings(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

type decodeTarget struct {
	MaxSkew int32 `json:"maxSkew"`
	Inner   struct {
		N int `json:"n"`
	} `json:"inner"`
}

func TestDecodeStrict(t *testing.T) {
	untouched := decodeTarget{MaxSkew: 7}
	tests := []struct {
		name    string
		raw     string
		want    decodeTarget
		wantErr string
	}{
		{name: "nil", raw: "", want: untouched},
		{name: "blank", raw: " \n\t\r ", want: untouched},
		{name: "null", raw: "null", want: untouched},
		{name: "spaced null", raw: " null\n", want: untouched},
		{name: "empty object", raw: "{}", want: untouched},
		{name: "object", raw: `{"maxSkew": 2, "inner": {"n": 3}}`, want: decodeTarget{MaxSkew: 2, Inner: struct {
			N int `json:"n"`
		}{3}}},
		{name: "case mismatch", raw: `{"MaxSkew": 2}`, wantErr: `json: unknown field "MaxSkew" (did you mean "maxSkew"?)`},
		{name: "duplicate", raw: `{"maxSkew": 2, "maxSkew": 2}`, wantErr: `json: duplicate field "maxSkew"`},
		{name: "duplicate nested", raw: `{"inner": {"n": 1, "n": 2}}`, wantErr: `json: duplicate field "inner.n"`},
		{name: "unknown field", raw: `{"maxSkew": 2, "bogus": 1}`, wantErr: `json: unknown field "bogus"`},
		{name: "unknown nested field", raw: `{"inner": {"m": 1}}`, wantErr: `json: unknown field "inner.m" (did you mean "n"?)`},
		{name: "trailing object", raw: `{"maxSkew": 2} {"maxSkew": 3}`, wantErr: "unexpected data after the JSON object at line 1, column 16"},
		{name: "trailing garbage on the next line", raw: "{\"maxSkew\": 2}\n  x\n", wantErr: "unexpected data after the JSON object at line 2, column 3"},
		{name: "trailing null", raw: `{}null`, wantErr: "unexpected data after the JSON object at line 1, column 3"},
		{name: "array", raw: `[1]`, wantErr: "must be a JSON object"},
		{name: "string", raw: `"x"`, wantErr: "must be a JSON object"},
		{name: "number", raw: ` 1 `, wantErr: "must be a JSON object"},
		// U+00A0 is unicode space but not JSON whitespace.
		{name: "non-JSON space", raw: "\u00a0{}", wantErr: "must be a JSON object"},
		{
			name:    "syntax error",
			raw:     "{\n  \"maxSkew\": 1,\n  \"inner\" 2\n}",
			wantErr: "malformed JSON at line 3, column 11: invalid character '2' after object key",
		},
		{
			// Positions count from raw, leading blank lines included.
			name:    "syntax error after blank lines",
			raw:     "\n\n  {\"maxSkew\": x}",
			wantErr: "malformed JSON at line 3, column 15: invalid character 'x' looking for beginning of value",
		},
		{name: "truncated", raw: `{"maxSkew": 1`, wantErr: "malformed JSON: unexpected end of input"},
		{name: "type mismatch", raw: `{"maxSkew": "two"}`, wantErr: "field maxSkew: cannot use JSON string as int32"},
		{name: "nested type mismatch", raw: `{"inner": {"n": true}}`, wantErr: "field inner.n: cannot use JSON bool as int"},
		{name: "overflow", raw: `{"maxSkew": 4294967296}`, wantErr: "field maxSkew: cannot use JSON number 4294967296 as int32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := untouched
			err := framework.DecodeStrict([]byte(tt.raw), &got)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tt.wantErr {
				t.Fatalf("DecodeStrict(%q) error = %q, want %q", tt.raw, gotErr, tt.wantErr)
			}
			if err == nil {
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("decoded (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestDecodeStrictPositions checks line and column against the raw input
// for a syntax error at every structural byte of a multi-line document
// (a byte inside a string would only change the string).
func TestDecodeStrictPositions(t *testing.T) {
	lines := []string{"", "  {", `    "maxSkew": 1,`, `    "inner": {"n": 2}`, "  }"}
	checked := 0
	for li, line := range lines {
		inString := false
		for col := 1; col <= len(line); col++ {
			b := line[col-1]
			if inString {
				inString = b != '"'
				continue
			}
			if b == '"' {
				inString = true
			}
			if b == ' ' || (li == 1 && b == '{') {
				continue // blank, or the '{' that makes it an object
			}
			broken := slicesWith(lines, li, line[:col-1]+"#"+line[col:])
			raw := strings.Join(broken, "\n")
			err := framework.DecodeStrict([]byte(raw), &decodeTarget{})
			want := fmt.Sprintf("malformed JSON at line %d, column %d: invalid character '#'", li+1, col)
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%q: %v, want %s", raw, err, want)
			}
			checked++
		}
	}
	if checked < 10 {
		t.Errorf("only %d positions checked", checked)
	}
}

func slicesWith(s []string, i int, v string) []string {
	out := append([]string(nil), s...)
	out[i] = v
	return out
}

// TestRegisterChecksKinds: a Spec that declares a kind its plugin does not
// implement is refused by Register, not when a ConfigMap first names it.
func TestRegisterChecksKinds(t *testing.T) {
	tests := []struct {
		name    string
		spec    framework.Registration
		wantErr string
	}{
		{
			name: "declares filter and score, builds a scorer",
			spec: framework.Spec[framework.NoArgs]{
				Name: "Half", Kinds: framework.KindFilter | framework.KindScore, Modes: framework.ForPlace,
				New: func(context.Context, *framework.NoArgs) (framework.Plugin, error) {
					return &ft.ScriptedScorer{PluginName: "Half"}, nil
				},
			}.Registration(),
			wantErr: `plugin "Half" is declared a filter, but *frameworktest.ScriptedScorer does not implement framework.FilterPlugin`,
		},
		{
			name: "declares score, builds a filter",
			spec: framework.Spec[framework.NoArgs]{
				Name: "Wrong", Kinds: framework.KindScore, Modes: framework.ForPlace,
				New: func(context.Context, *framework.NoArgs) (framework.Plugin, error) { return ft.CapacityFilter{}, nil },
			}.Registration(),
			wantErr: `plugin "Wrong" is declared a score plugin, but frameworktest.CapacityFilter does not implement framework.ScorePlugin`,
		},
		{
			name: "implements more than it declares",
			spec: framework.Spec[framework.NoArgs]{
				Name: "Modest", Kinds: framework.KindScore, Modes: framework.ForPlace,
				New: func(context.Context, *framework.NoArgs) (framework.Plugin, error) { return &ft.Recorder{}, nil },
			}.Registration(),
		},
		{
			name: "args without defaults: checked through Type",
			spec: framework.Spec[rejectArgs]{
				Name: "Typed", Kinds: framework.KindScore, Modes: framework.ForPlace,
				Type: (*ft.RejectFilter)(nil),
				Validate: func(a *rejectArgs, path *field.Path) field.ErrorList {
					if len(a.Ordinals) == 0 {
						return field.ErrorList{field.Required(path.Child("ordinals"), "")}
					}
					return nil
				},
				New: func(_ context.Context, a *rejectArgs) (framework.Plugin, error) {
					return &ft.RejectFilter{Ordinals: a.Ordinals}, nil
				},
			}.Registration(),
			wantErr: `plugin "Typed" is declared a score plugin, but *frameworktest.RejectFilter does not implement framework.ScorePlugin`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r framework.Registry
			err := r.Register(tt.spec)
			wantError(t, "Register", err, tt.wantErr)
		})
	}
}

type skewArgs struct {
	MaxSkew *int32 `json:"MaxSkew,omitempty"`
	Zones   []struct {
		Name string `json:"Name"`
	} `json:"Zones,omitempty"`
}

// TestDecodeArgsRejectsDuplicateAndCaseMismatchedKeys: encoding/json takes
// the last of two keys that differ only in case, so {"MaxSkew": 2,
// "maxskew": 1} configured a skew of 1 without a word.
func TestDecodeArgsRejectsDuplicateAndCaseMismatchedKeys(t *testing.T) {
	reg := framework.Spec[skewArgs]{
		Name: "Skew", Kinds: framework.KindScore, Modes: framework.ForPlace,
		New: func(context.Context, *skewArgs) (framework.Plugin, error) {
			return &ft.ScriptedScorer{PluginName: "Skew"}, nil
		},
	}.Registration()
	tests := []struct {
		raw, want string
	}{
		{`{"MaxSkew": 2, "maxskew": 1}`, `json: unknown field "maxskew" (did you mean "MaxSkew"?)`},
		{`{"maxSkew": 1}`, `json: unknown field "maxSkew" (did you mean "MaxSkew"?)`},
		{`{"MaxSkew": 2, "MaxSkew": 1}`, `json: duplicate field "MaxSkew"`},
		{`{"MaxSkw": 2}`, `json: unknown field "MaxSkw" (did you mean "MaxSkew"?)`},
		{`{"Zones": [{"Nmae": "a"}]}`, `json: unknown field "Zones[0].Nmae" (did you mean "Name"?)`},
		{`{"Zones": [], "Bogus": 1}`, `json: unknown field "Bogus"`},
	}
	for _, tt := range tests {
		_, errs := reg.DecodeArgs([]byte(tt.raw), field.NewPath("Args"))
		if len(errs) != 1 || !strings.HasSuffix(errs[0].Error(), ": "+tt.want) {
			t.Errorf("DecodeArgs(%s) = %v, want one error ending in %q", tt.raw, errs, tt.want)
		}
	}
}

// TestUnknownPluginSuggestsName: a misspelt plugin name says which one was
// meant.
func TestUnknownPluginSuggestsName(t *testing.T) {
	_, errs := framework.BuildProfile(context.Background(), fakeRegistry(t), framework.ProfileConfig{
		Mode:    framework.Place,
		Filters: []framework.PluginConfig{{Name: "FakeCapacty"}},
		Scores:  []framework.PluginConfig{{Name: "fakerecorder"}, {Name: "Nothing"}},
	}, field.NewPath("filters"), field.NewPath("scores"))
	want := []string{
		`filters[0].Name: Unsupported value: "FakeCapacty": supported values: "FakeCapacity", "FakeFailingNew", "FakeRecorder", "FakeReject" (did you mean "FakeCapacity"?)`,
		`scores[0].Name: Unsupported value: "fakerecorder": supported values: "FakeBroken", "FakeRecorder", "FakeScripted" (did you mean "FakeRecorder"?)`,
		`scores[1].Name: Unsupported value: "Nothing": supported values: "FakeBroken", "FakeRecorder", "FakeScripted"`,
	}
	if diff := cmp.Diff(want, errStrings(errs)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// wantError fails the test unless the call's error reads want ("" for no
// error).
func wantError(t *testing.T, call string, err error, want string) {
	t.Helper()
	got := ""
	if err != nil {
		got = err.Error()
	}
	if got != want {
		t.Fatalf("%s error = %q, want %q", call, got, want)
	}
}
