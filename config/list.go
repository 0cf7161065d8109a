package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched/framework"
	"github.com/vsched/vsched/internal/lib/suggest"
)

// The fields of one list entry.
const (
	fieldName   = "Name"
	fieldWeight = "Weight"
	fieldArgs   = "Args"
)

var entryFields = []string{fieldName, fieldWeight, fieldArgs}

// entryExample is shown when an entry has the wrong shape.
const entryExample = `{"Name": "AvailabilityZonePriority", "Weight": 10, "Args": {"MaxSkew": 1}}`

// decodeList decodes a data value holding a JSON list of plugin entries,
// reporting every problem under path (data.predicates or data.priorities).
// An empty list gives nil.
func decodeList(raw string, path *field.Path) ([]framework.PluginConfig, field.ErrorList) {
	var items []json.RawMessage
	if err := json.Unmarshal([]byte(raw), &items); err != nil {
		return nil, field.ErrorList{listError(raw, path, err)}
	}
	if items == nil { // JSON null
		return nil, field.ErrorList{field.Invalid(path, "null", "must be a JSON list of plugins; use [] for none")}
	}
	var (
		out  []framework.PluginConfig
		errs field.ErrorList
	)
	for i, item := range items {
		pc, ierrs := decodeEntry(item, path.Index(i))
		errs = append(errs, ierrs...)
		out = append(out, pc)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// listError describes why raw is not a JSON list, saying where.
func listError(raw string, path *field.Path, err error) *field.Error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		// encoding/json counts the offending byte in Offset; at the end of
		// the input there is none, so point just past the last byte.
		at := int(syn.Offset) - 1
		if at < 0 || strings.HasPrefix(syn.Error(), "unexpected end") {
			at = int(syn.Offset)
		}
		line, col, text := locate(raw, at)
		return field.Invalid(path, text, fmt.Sprintf("malformed JSON at line %d, column %d: %v", line, col, syn))
	case errors.As(err, &typ):
		_, _, text := locate(raw, max(int(typ.Offset)-1, 0))
		return field.Invalid(path, text, fmt.Sprintf("must be a JSON list of plugins, not a JSON %s; for example [%s]", typ.Value, entryExample))
	}
	return field.Invalid(path, excerpt(raw), err.Error())
}

// locate returns the 1-based line and column (in characters) of byte offset
// at in s, and that line's text, trimmed and shortened.
func locate(s string, at int) (line, col int, text string) {
	at = min(max(at, 0), len(s))
	start := strings.LastIndexByte(s[:at], '\n') + 1
	line = strings.Count(s[:start], "\n") + 1
	col = utf8.RuneCountInString(s[start:at]) + 1
	end := strings.IndexByte(s[start:], '\n')
	if end < 0 {
		end = len(s)
	} else {
		end += start
	}
	return line, col, excerpt(s[start:end])
}

// excerpt trims s and shortens it to at most 80 characters.
func excerpt(s string) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= 80 {
		return s
	}
	r := []rune(s)
	return string(r[:77]) + "..."
}

// decodeEntry decodes one list entry, an object with the fields Name
// (required), Weight and Args. Field names match case-insensitively, as
// they do in Args; a field given twice, or any other field, is an error.
func decodeEntry(raw json.RawMessage, path *field.Path) (framework.PluginConfig, field.ErrorList) {
	var pc framework.PluginConfig
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return pc, field.ErrorList{field.Invalid(path, excerpt(string(raw)), "must be a JSON object naming a plugin, for example "+entryExample)}
	}
	// raw is valid JSON (the list was decoded): walk its members in order.
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // '{'
		return pc, field.ErrorList{field.InternalError(path, err)}
	}
	var errs field.ErrorList
	seen := map[string]string{}
	hasName := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return pc, append(errs, field.InternalError(path, err))
		}
		key, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return pc, append(errs, field.InternalError(path, err))
		}
		canon := canonicalField(key)
		if canon == "" {
			errs = append(errs, field.Invalid(path, key, "unknown field"+suggest.DidYouMean(key, entryFields, true)+
				"; an entry has only the fields "+strings.Join(entryFields, ", ")))
			continue
		}
		if prev, dup := seen[canon]; dup {
			errs = append(errs, field.Duplicate(path.Child(canon), fmt.Sprintf("%s (already given as %s)", key, prev)))
			continue
		}
		seen[canon] = key
		switch canon {
		case fieldName:
			hasName = true
			name, err := decodeName(value, path.Child(fieldName))
			if err != nil {
				errs = append(errs, err)
			}
			pc.Name = name
		case fieldWeight:
			w, err := decodeWeight(value, path.Child(fieldWeight))
			if err != nil {
				errs = append(errs, err)
			}
			pc.Weight = w
		case fieldArgs:
			args, err := decodeArgs(value, path.Child(fieldArgs))
			if err != nil {
				errs = append(errs, err)
			}
			pc.Args = args
		}
	}
	if !hasName {
		errs = append(errs, field.Required(path.Child(fieldName), "every entry names a plugin"))
	}
	return pc, errs
}

// canonicalField returns the entry field key names, case-insensitively, or
// "" for none.
func canonicalField(key string) string {
	for _, f := range entryFields {
		if strings.EqualFold(key, f) {
			return f
		}
	}
	return ""
}

func decodeName(value json.RawMessage, path *field.Path) (string, *field.Error) {
	var name string
	if err := json.Unmarshal(value, &name); err != nil {
		return "", field.Invalid(path, excerpt(string(value)), "must be a string, the plugin's name")
	}
	if strings.TrimSpace(name) == "" {
		return "", field.Required(path, "the plugin's name is empty")
	}
	return name, nil
}

// decodeWeight accepts null (the default weight) or an integer. Whether it
// is in [framework.MinWeight, framework.MaxWeight] is checked when the
// profile is built, which also rejects any weight on a predicate.
func decodeWeight(value json.RawMessage, path *field.Path) (*int32, *field.Error) {
	if string(value) == "null" {
		return nil, nil
	}
	bad := func() *field.Error {
		return field.Invalid(path, excerpt(string(value)), fmt.Sprintf("must be an integer between %d and %d", framework.MinWeight, framework.MaxWeight))
	}
	// A JSON number, not a string holding one (which json.Number would
	// accept).
	if c := value[0]; c != '-' && (c < '0' || c > '9') {
		return nil, bad()
	}
	i, err := strconv.ParseInt(string(value), 10, 64)
	if err != nil || i < math.MinInt32 || i > math.MaxInt32 {
		return nil, bad()
	}
	w := int32(i)
	return &w, nil
}

// decodeArgs accepts the Args as a JSON object, as a string holding one (the
// seed's format), or null. Well-formed JSON is stored compacted, so both
// spellings give identical configs; a string that is not well-formed JSON is
// stored as it is, for the plugin's decoder to report where it breaks. A
// blank string and null mean no args.
func decodeArgs(value json.RawMessage, path *field.Path) ([]byte, *field.Error) {
	var body []byte
	switch value[0] {
	case '{':
		body = value
	case '"':
		var s string
		if err := json.Unmarshal(value, &s); err != nil {
			return nil, field.InternalError(path, err)
		}
		body = []byte(s)
	case 'n':
		return nil, nil
	default:
		return nil, field.Invalid(path, excerpt(string(value)), `must be a JSON object, or a string holding one, for example {"MaxSkew": 1} or "{\"MaxSkew\": 1}"`)
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return nil, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, trimmed); err == nil {
		return buf.Bytes(), nil
	}
	return body, nil
}
