package framework

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	sigsjson "sigs.k8s.io/json"

	"github.com/vsched/vsched/internal/suggest"
)

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
