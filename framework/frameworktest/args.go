package frameworktest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched/framework"
)

// ArgsCase is one DecodeArgs case: Raw decodes to Want, or fails with
// exactly WantErrs.
type ArgsCase[A any] struct {
	Name     string
	Raw      string
	Want     *A
	WantErrs []string
}

// ExpectDecodeArgs decodes each case's Raw with spec's registration under
// path. Args that decode are built with the registration's New, and built,
// unless nil, checks the plugin against them.
func ExpectDecodeArgs[A any](t *testing.T, spec framework.Spec[A], path *field.Path, cases []ArgsCase[A], built func(*testing.T, framework.Plugin, *A)) {
	t.Helper()
	reg := spec.Registration()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			args, errs := reg.DecodeArgs([]byte(tc.Raw), path)
			if diff := cmp.Diff(tc.WantErrs, ErrorStrings(errs)); diff != "" {
				t.Fatalf("errors (-want +got):\n%s", diff)
			}
			if len(errs) > 0 {
				return
			}
			if diff := cmp.Diff(tc.Want, args); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			pl, err := reg.New(context.Background(), args)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if built != nil {
				built(t, pl, tc.Want)
			}
		})
	}
}

// ErrorStrings is each error's text, nil for none: what ArgsCase.WantErrs
// lists.
func ErrorStrings(errs field.ErrorList) []string {
	if len(errs) == 0 {
		return nil
	}
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}
