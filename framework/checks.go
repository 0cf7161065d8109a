package framework

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"

	"github.com/vsched/vsched/internal/lib/suggest"
)

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

// describeStrictErrors lists the unknown and duplicate fields, each unknown
// one with the nearest field of the struct it is in.
func describeStrictErrors(errs []error, t reflect.Type) error {
	parts := make([]string, len(errs))
	for i, e := range errs {
		parts[i] = e.Error()
		var fe sigsjson.FieldError
		if errors.As(e, &fe) && strings.HasPrefix(parts[i], "unknown field") {
			parts[i] += suggestField(t, fe.FieldPath())
		}
	}
	return errors.New("json: " + strings.Join(parts, ", "))
}

// suggestField returns a "did you mean" for the last element of path (as
// sigs.k8s.io/json writes it: "Zones[0].Name") among the fields of the
// struct that holds it, or "".
func suggestField(t reflect.Type, path string) string {
	parent, leaf := "", path
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		parent, leaf = path[:i], path[i+1:]
	}
	t = elemType(t)
	if parent != "" {
		for _, seg := range strings.Split(parent, ".") {
			name, indexed := strings.CutSuffix(seg, "]")
			if indexed {
				name = name[:strings.IndexByte(name, '[')]
			}
			t = fieldType(t, name)
			if t == nil {
				return ""
			}
			// Every [i] suffix steps into an element.
			for n := strings.Count(seg, "["); n > 0; n-- {
				t = elemType(t.Elem())
			}
		}
	}
	return suggest.DidYouMean(leaf, jsonFieldNames(t), false)
}

// elemType strips pointers.
func elemType(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// fieldType is the type of the JSON field name of t (a struct, or a map
// whose key name is), pointers stripped, or nil.
func fieldType(t reflect.Type, name string) reflect.Type {
	switch {
	case t == nil:
		return nil
	case t.Kind() == reflect.Map:
		return elemType(t.Elem())
	case t.Kind() != reflect.Struct:
		return nil
	}
	for i := range t.NumField() {
		f := t.Field(i)
		n, ok := jsonName(f)
		switch {
		case !ok:
		case n == name:
			return elemType(f.Type)
		case n == "":
			if ft := fieldType(elemType(f.Type), name); ft != nil {
				return ft
			}
		}
	}
	return nil
}

// jsonFieldNames lists the JSON names of t's fields, embedded structs'
// fields included.
func jsonFieldNames(t reflect.Type) []string {
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		n, ok := jsonName(f)
		switch {
		case !ok:
		case n == "":
			names = append(names, jsonFieldNames(elemType(f.Type))...)
		default:
			names = append(names, n)
		}
	}
	return names
}

// jsonName is the name encoding/json gives f; "" with ok for an untagged
// embedded struct, whose fields are promoted; !ok for a field it skips.
func jsonName(f reflect.StructField) (string, bool) {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false
	}
	name, _, _ := strings.Cut(tag, ",")
	if name != "" {
		return name, true
	}
	if f.Anonymous && elemType(f.Type).Kind() == reflect.Struct {
		return "", true
	}
	if !f.IsExported() {
		return "", false
	}
	return f.Name, true
}
