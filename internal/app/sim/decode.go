package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vsched/vsched/internal/lib/suggest"
)

// decoder decodes a document's JSON strictly into Go values, reporting
// every problem under its field path: an unknown field, a value of the
// wrong type. It keeps going after a problem so that one run reports them
// all. Field names match exactly (case-sensitively), as Kubernetes'
// strict decoding does; a near miss is suggested.
type decoder struct {
	doc   *document
	probs Problems
	// stepNames are the steps' names, read before their bodies so that
	// every problem inside a step can name it.
	stepNames map[int]string
}

// pathDecoder is implemented by types that decode themselves.
type pathDecoder interface {
	decodeAt(d *decoder, raw json.RawMessage, p path)
}

var pathDecoderType = reflect.TypeFor[pathDecoder]()

// problem records a problem at p.
func (d *decoder) problem(p path, format string, args ...any) {
	d.probs = append(d.probs, d.newProblem(p, fmt.Sprintf(format, args...)))
}

// newProblem locates a problem at p: the file line, and the step when p is
// inside one.
func (d *decoder) newProblem(p path, msg string) Problem {
	pr := Problem{File: d.doc.file, Line: d.doc.line(p), Step: -1, Field: p.String(), Message: msg, Path: p.String()}
	if len(p) >= 2 && p[0] == "steps" {
		if i, ok := p[1].(int); ok {
			pr.Step = i
			pr.StepName = d.stepNames[i]
			pr.Field = p[2:].String()
		}
	}
	return pr
}

// member is one key of a JSON object, in document order.
type member struct {
	key   string
	value json.RawMessage
}

// members lists an object's members in order. raw must be valid JSON.
func members(raw json.RawMessage) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{key: key, value: v})
	}
	return out, nil
}

// jsonKind names the kind of a JSON value, for messages.
func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "a mapping"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// isNull reports whether raw is JSON null (or empty).
func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}

// shown renders a JSON value for a message, shortened.
func shown(raw json.RawMessage) string {
	s := string(bytes.TrimSpace(raw))
	if utf8.RuneCountInString(s) > 60 {
		s = string([]rune(s)[:57]) + "..."
	}
	return s
}

// fieldName returns the JSON name of a struct field, "" when it has none.
func fieldName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return ""
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		return f.Name
	}
	return name
}

// decode decodes raw into v (addressable) at p.
func (d *decoder) decode(raw json.RawMessage, v reflect.Value, p path) {
	if v.CanAddr() && v.Addr().Type().Implements(pathDecoderType) {
		v.Addr().Interface().(pathDecoder).decodeAt(d, raw, p)
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if isNull(raw) {
			return
		}
		e := reflect.New(v.Type().Elem())
		d.decode(raw, e.Elem(), p)
		v.Set(e)
	case reflect.Struct:
		d.decodeStruct(raw, v, p)
	case reflect.Slice:
		if isNull(raw) {
			return
		}
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			d.problem(p, "must be a list, not %s", jsonKind(raw))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(items), len(items))
		for i, it := range items {
			d.decode(it, s.Index(i), p.index(i))
		}
		v.Set(s)
	default:
		d.decodeScalar(raw, v, p)
	}
}

// mapping reads raw as a mapping's members. Null is no mapping and no
// problem; any other value that is not a mapping is a problem ("must be
// what").
func (d *decoder) mapping(raw json.RawMessage, p path, what string) ([]member, bool) {
	if isNull(raw) {
		return nil, false
	}
	ms, err := members(raw)
	if err != nil {
		d.problem(p, "must be %s, not %s", what, jsonKind(raw))
		return nil, false
	}
	return ms, true
}

func (d *decoder) decodeStruct(raw json.RawMessage, v reflect.Value, p path) {
	ms, ok := d.mapping(raw, p, "a mapping")
	if !ok {
		return
	}
	t := v.Type()
	byName := map[string]int{}
	var names []string
	for i := range t.NumField() {
		if n := fieldName(t.Field(i)); n != "" {
			byName[n] = i
			names = append(names, n)
		}
	}
	seen := map[string]bool{}
	for _, m := range ms {
		i, ok := byName[m.key]
		if !ok {
			d.problem(p.key(m.key), "unknown field%s; %s", didYouMean(m.key, names), allowedFields(p, names))
			continue
		}
		if seen[m.key] {
			d.problem(p.key(m.key), "given twice")
			continue
		}
		seen[m.key] = true
		d.decode(m.value, v.Field(i), p.key(m.key))
	}
}

// allowedFields lists the fields a mapping takes.
func allowedFields(p path, names []string) string {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	where := "here"
	if len(p) > 0 {
		if s, ok := p[len(p)-1].(string); ok {
			where = s
		}
	} else {
		where = "a scenario"
	}
	return where + " takes " + strings.Join(sorted, ", ")
}

func (d *decoder) decodeScalar(raw json.RawMessage, v reflect.Value, p path) {
	if isNull(raw) {
		return
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := jsonInt(raw)
		lo, hi := intRange(v.Type().Bits())
		if !ok || n < lo || n > hi {
			d.problem(p, "must be an integer, not %s", describeValue(raw))
			return
		}
		v.SetInt(n)
	case reflect.Bool, reflect.String:
		// Decoded as the plain kind: a named type's own UnmarshalJSON, if
		// any, is not what a scenario's problems describe.
		k := plainKinds[v.Kind()]
		x := reflect.New(k.typ)
		if err := json.Unmarshal(raw, x.Interface()); err != nil {
			d.problem(p, "must be %s, not %s", k.want, describeValue(raw))
			return
		}
		v.Set(x.Elem().Convert(v.Type()))
	default:
		if err := json.Unmarshal(raw, v.Addr().Interface()); err != nil {
			d.problem(p, "cannot be %s", describeValue(raw))
		}
	}
}

// plainKinds are the scalar kinds decodeScalar reads as their plain Go
// type, and what a problem says a value of the kind must be.
var plainKinds = map[reflect.Kind]struct {
	typ  reflect.Type
	want string
}{
	reflect.Bool:   {reflect.TypeFor[bool](), "true or false"},
	reflect.String: {reflect.TypeFor[string](), "a string"},
}

// describeValue names a JSON value and shows it: `a string "ten"`.
func describeValue(raw json.RawMessage) string {
	k := jsonKind(raw)
	switch k {
	case "a mapping", "a list", "null":
		return k
	}
	return k + " " + shown(raw)
}

// jsonInt parses a JSON number that is an integer (1, -3, 2.0 and 1e3 are;
// 1.5 is not).
func jsonInt(raw json.RawMessage) (int64, bool) {
	s := string(bytes.TrimSpace(raw))
	if s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return 0, false
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

func intRange(bits int) (int64, int64) {
	return -1 << (bits - 1), 1<<(bits-1) - 1
}

// didYouMean hints at the closest known name; names match exactly here.
func didYouMean(s string, options []string) string {
	return suggest.DidYouMean(s, options, false)
}
