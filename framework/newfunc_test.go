package framework_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched/framework"
	ft "github.com/vsched/vsched/framework/frameworktest"
)

// defaultSkew defaults to 2 rather than 1 to tell a default from a set 1.
func defaultSkew(a *skewArgs) {
	if a.MaxSkew == nil {
		two := int32(2)
		a.MaxSkew = &two
	}
}

func validateSkew(a *skewArgs, path *field.Path) field.ErrorList {
	if *a.MaxSkew < 1 {
		return field.ErrorList{field.Invalid(path.Child("MaxSkew"), *a.MaxSkew, "must be at least 1")}
	}
	return nil
}

func TestDefaultedArgs(t *testing.T) {
	zero, one, two := int32(0), int32(1), int32(2)
	cases := []struct {
		name     string
		args     *skewArgs
		defaults func(*skewArgs)
		want     skewArgs
		wantErr  string
	}{
		{name: "nil args are defaulted", args: nil, defaults: defaultSkew, want: skewArgs{MaxSkew: &two}},
		{name: "unset field is defaulted in the copy", args: &skewArgs{}, defaults: defaultSkew, want: skewArgs{MaxSkew: &two}},
		{name: "set args are kept", args: &skewArgs{MaxSkew: &one}, defaults: defaultSkew, want: skewArgs{MaxSkew: &one}},
		{name: "invalid args name the plugin", args: &skewArgs{MaxSkew: &zero}, defaults: defaultSkew,
			wantErr: "Skew: MaxSkew: Invalid value: 0: must be at least 1"},
		{name: "no defaulter", args: &skewArgs{MaxSkew: &two}, want: skewArgs{MaxSkew: &two}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var before skewArgs
			if tc.args != nil {
				before = *tc.args
			}
			got, err := framework.DefaultedArgs("Skew", tc.args, tc.defaults, validateSkew)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			if tc.args != nil {
				if diff := cmp.Diff(before, *tc.args); diff != "" {
					t.Errorf("DefaultedArgs changed its input (-before +after):\n%s", diff)
				}
			}
		})
	}
	// Neither a defaulter nor a validator: the zero args.
	if got, err := framework.DefaultedArgs[skewArgs]("Skew", nil, nil, nil); err != nil || got.MaxSkew != nil {
		t.Errorf("DefaultedArgs(nil, no checks) = %+v, %v; want zero args", got, err)
	}
}

func TestNewFunc(t *testing.T) {
	failing := func(context.Context, *skewArgs) (*ft.ScriptedScorer, error) { return nil, errors.New("no") }
	pl, err := framework.NewFunc(failing)(context.Background(), &skewArgs{})
	// A nil *ScriptedScorer in a non-nil Plugin would pass a nil check.
	if pl != nil || err == nil || err.Error() != "no" {
		t.Errorf("failing New = %#v, %v; want a nil Plugin and its error", pl, err)
	}
	building := func(context.Context, *skewArgs) (*ft.ScriptedScorer, error) {
		return &ft.ScriptedScorer{PluginName: "Skew"}, nil
	}
	if pl, err := framework.NewFunc(building)(context.Background(), &skewArgs{}); err != nil || pl.Name() != "Skew" {
		t.Errorf("New = %v, %v; want the plugin", pl, err)
	}
	noArgs := framework.NoArgsNewFunc(func() *ft.ScriptedScorer { return &ft.ScriptedScorer{PluginName: "Plain"} })
	if pl, err := noArgs(context.Background(), &framework.NoArgs{}); err != nil || pl.Name() != "Plain" {
		t.Errorf("no-args New = %v, %v; want the plugin", pl, err)
	}
}
