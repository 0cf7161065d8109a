package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vsched/vsched/internal/lib/bounded"
)

// MaxConfigMapBytes is the most data (keys and values, data and binaryData)
// a ConfigMap may hold to be parsed: Kubernetes' own limit on a ConfigMap.
// A larger one is rejected with a single problem, so that the error, the
// log line and the Event about it stay small.
const MaxConfigMapBytes = 1 << 20

// detailLen bounds the part of a problem that says what is wrong; values
// echoed from the input are cut to bounded.ValueLen.
const detailLen = 1000

// Problem is one thing wrong with one ConfigMap.
type Problem struct {
	// ConfigMap names the ConfigMap, e.g. "config-scheduler".
	ConfigMap string
	// Err says where (Err.Field, e.g. "data.priorities[1].Args.MaxSkew")
	// and what.
	Err *field.Error
}

// String reads, for example,
//
//	config-scheduler: data.priorities[1].Args.MaxSkew: Invalid value: 0: must be >= 1
func (p Problem) String() string {
	return p.ConfigMap + ": " + p.Err.Error()
}

// Error is every problem found while parsing, validating or building the
// configuration. Parsing and validation report all problems they find, not
// only the first. The functions of this package return a *Error for every
// configuration problem; other errors (a registry that cannot be built) are
// returned as they are.
type Error struct {
	// Problems, in the order found: per ConfigMap (config-scheduler
	// first), per key, per list index.
	Problems []Problem
}

// Error joins the problems with "; ", the first bounded.Problems of them,
// then says how many more there are: a ConfigMap repeating one mistake
// thousands of times gets an error of a few lines, not megabytes.
func (e *Error) Error() string {
	n := min(len(e.Problems), bounded.Problems)
	parts := make([]string, n, n+1)
	for i, p := range e.Problems[:n] {
		parts[i] = p.String()
	}
	if more := len(e.Problems) - n; more > 0 {
		parts = append(parts, "and "+strconv.Itoa(more)+" more problems")
	}
	return strings.Join(parts, "; ")
}

// problems wraps errs, all about the ConfigMap name, with the values they
// echo cut (cutValues).
func problems(name string, errs field.ErrorList) []Problem {
	out := make([]Problem, len(errs))
	for i, e := range errs {
		out[i] = Problem{ConfigMap: name, Err: cutValues(e)}
	}
	return out
}

// cutValues returns e with its value, field path and detail cut to a
// bounded length: they echo input (a plugin's Args, a key, a name), which
// may be as long as the ConfigMap.
func cutValues(e *field.Error) *field.Error {
	c := *e
	c.Field = bounded.Cut(c.Field, bounded.ValueLen)
	c.Detail = bounded.Cut(c.Detail, detailLen)
	switch v := c.BadValue.(type) {
	case nil:
	case string:
		c.BadValue = bounded.Cut(v, bounded.ValueLen)
	default:
		if s := fmt.Sprintf("%v", v); len(s) > bounded.ValueLen {
			c.BadValue = bounded.Cut(s, bounded.ValueLen)
		}
	}
	return &c
}

// checkSize reports a ConfigMap holding more than MaxConfigMapBytes.
func checkSize(data map[string]string, binary map[string][]byte) field.ErrorList {
	n := 0
	for k, v := range data {
		n += len(k) + len(v)
	}
	for k, v := range binary {
		n += len(k) + len(v)
	}
	if n <= MaxConfigMapBytes {
		return nil
	}
	return field.ErrorList{field.Forbidden(dataPath, fmt.Sprintf(
		"the ConfigMap holds %d bytes of data; at most %d bytes are accepted (Kubernetes' limit on a ConfigMap)", n, MaxConfigMapBytes))}
}

// asError returns a *Error holding ps, or nil (an untyped nil error) when ps
// is empty.
func asError(ps []Problem) error {
	if len(ps) == 0 {
		return nil
	}
	return &Error{Problems: ps}
}

// joinErrors merges the problems of every *Error in errs into one, in
// order, so that one edit can fix every ConfigMap; an error that is not a
// *Error is returned as it is.
func joinErrors(errs ...error) error {
	var all []Problem
	for _, err := range errs {
		var ce *Error
		switch {
		case err == nil:
		case errors.As(err, &ce):
			all = append(all, ce.Problems...)
		default:
			return err
		}
	}
	return asError(all)
}
