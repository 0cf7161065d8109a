package config

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

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

// Error joins the problems with "; ".
func (e *Error) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return strings.Join(parts, "; ")
}

// problems wraps errs, all about the ConfigMap name.
func problems(name string, errs field.ErrorList) []Problem {
	out := make([]Problem, len(errs))
	for i, e := range errs {
		out[i] = Problem{ConfigMap: name, Err: e}
	}
	return out
}

// asError returns a *Error holding ps, or nil (an untyped nil error) when ps
// is empty.
func asError(ps []Problem) error {
	if len(ps) == 0 {
		return nil
	}
	return &Error{Problems: ps}
}
