package plugins

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestExplicitZeroArgsAreNotDefaulted: for every numeric or boolean args
// field of every in-tree plugin, {"Field": 0} (or false) is either kept or
// rejected, never replaced by the field's default, as it would be for a
// non-pointer field that Defaults fills when zero.
func TestExplicitZeroArgsAreNotDefaulted(t *testing.T) {
	checked := 0
	for _, reg := range InTreeRegistrations() {
		if !reg.TakesArgs {
			continue
		}
		defaults, errs := reg.DecodeArgs(nil, field.NewPath("Args"))
		if len(errs) > 0 {
			continue // required args: nothing is defaulted
		}
		st := reflect.ValueOf(defaults).Elem()
		for i := range st.NumField() {
			f := st.Type().Field(i)
			zero, ok := zeroJSON(f.Type)
			if !ok {
				continue
			}
			name := jsonFieldName(f)
			raw := fmt.Sprintf(`{%q: %s}`, name, zero)
			got, errs := reg.DecodeArgs([]byte(raw), field.NewPath("Args"))
			checked++
			if len(errs) > 0 {
				continue // rejected, not defaulted
			}
			v := reflect.ValueOf(got).Elem().Field(i)
			if v.Kind() == reflect.Pointer {
				v = v.Elem()
			}
			if !v.IsValid() || !v.IsZero() {
				t.Errorf("%s: %s decoded as %v: an explicit zero was replaced by the default", reg.Name, raw, v)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no args field checked")
	}
}

// zeroJSON is the JSON zero of a numeric or boolean type (or a pointer to
// one).
func zeroJSON(t reflect.Type) (string, bool) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "0", true
	case reflect.Bool:
		return "false", true
	}
	return "", false
}

func jsonFieldName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}
