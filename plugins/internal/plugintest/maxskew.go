package plugintest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/framework/frameworktest"
)

// ExpectMaxSkewArgs checks a plugin whose one arg is MaxSkew (at least 1,
// 1 when unset), as every spread plugin's is: the args decode under path,
// defaulted, and build a plugin whose maxSkew is theirs, each case of extra
// too; New(nil) takes the default; MaxSkew 0 and -3 are refused by New and
// by the registration, the error naming the plugin.
func ExpectMaxSkewArgs[A, P any](t *testing.T, spec framework.Spec[A], newPlugin func(context.Context, *A) (P, error), path *field.Path, maxSkew func(P) int32, extra ...frameworktest.ArgsCase[A]) {
	t.Helper()
	cases := append(maxSkewCases[A](t, path.String()), extra...)
	frameworktest.ExpectDecodeArgs(t, spec, path, cases, func(t *testing.T, pl framework.Plugin, want *A) {
		if got, wantSkew := maxSkew(pl.(P)), maxSkewOf(t, want); got != wantSkew {
			t.Errorf("plugin MaxSkew = %d, want %d", got, wantSkew)
		}
	})
	if got := maxSkew(Build(t, newPlugin, nil)); got != 1 {
		t.Errorf("New(nil) has MaxSkew %d, want 1", got)
	}
	for _, v := range []int32{0, -3} {
		ExpectRejected(t, spec, newPlugin, withMaxSkew[A](t, v), fmt.Sprintf("%s: MaxSkew: Invalid value: %d: must be at least 1", spec.Name, v))
	}
}

// maxSkewCases are the DecodeArgs cases every MaxSkew plugin shares, errors
// reported under path p.
func maxSkewCases[A any](t *testing.T, p string) []frameworktest.ArgsCase[A] {
	invalid := func(raw, msg string) []string { return []string{fmt.Sprintf("%s: Invalid value: %q: %s", p, raw, msg)} }
	return []frameworktest.ArgsCase[A]{
		{Name: "no args", Raw: "", Want: withMaxSkew[A](t, 1)},
		{Name: "empty object", Raw: "{}", Want: withMaxSkew[A](t, 1)},
		{Name: "null", Raw: "null", Want: withMaxSkew[A](t, 1)},
		{Name: "set", Raw: `{"MaxSkew": 3}`, Want: withMaxSkew[A](t, 3)},
		{Name: "zero is rejected, not defaulted", Raw: `{"MaxSkew": 0}`, WantErrs: []string{p + ".MaxSkew: Invalid value: 0: must be at least 1"}},
		{Name: "negative", Raw: `{"MaxSkew": -2}`, WantErrs: []string{p + ".MaxSkew: Invalid value: -2: must be at least 1"}},
		{Name: "lower-case name", Raw: `{"maxSkew": 2}`, WantErrs: invalid(`{"maxSkew": 2}`, `json: unknown field "maxSkew" (did you mean "MaxSkew"?)`)},
		{Name: "misspelt name", Raw: `{"MaxSkw": 2}`, WantErrs: invalid(`{"MaxSkw": 2}`, `json: unknown field "MaxSkw" (did you mean "MaxSkew"?)`)},
		{Name: "wrong type", Raw: `{"MaxSkew": "2"}`, WantErrs: invalid(`{"MaxSkew": "2"}`, "field MaxSkew: cannot use JSON string as int32")},
		{Name: "not an object", Raw: `[1]`, WantErrs: invalid(`[1]`, "must be a JSON object")},
	}
}

// withMaxSkew returns args of type A setting MaxSkew to v, built from JSON
// so that the helpers need not know A.
func withMaxSkew[A any](t testing.TB, v int32) *A {
	t.Helper()
	a := new(A)
	if err := framework.DecodeStrict(fmt.Appendf(nil, `{"MaxSkew": %d}`, v), a); err != nil {
		t.Fatalf("args type %T has no MaxSkew: %v", a, err)
	}
	return a
}

// maxSkewOf reads MaxSkew back from args of type A, through their JSON
// form.
func maxSkewOf[A any](t testing.TB, a *A) int32 {
	t.Helper()
	var v struct{ MaxSkew *int32 }
	raw, err := json.Marshal(a)
	if err == nil {
		err = json.Unmarshal(raw, &v)
	}
	if err != nil || v.MaxSkew == nil {
		t.Fatalf("args %s: no MaxSkew (%v)", raw, err)
	}
	return *v.MaxSkew
}
