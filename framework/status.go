package framework

import (
	"errors"
	"strconv"
	"strings"
)

// Code says what the runtime does with a plugin's Status.
type Code int

const (
	// Success: the pod passes (filter) or the plugin ran (prepare, score).
	// A nil *Status means Success.
	Success Code = iota
	// Error: something went wrong inside the plugin. The whole decision
	// stops and the error, naming the plugin, is returned to the caller,
	// who must drop the Decision: nothing decided so far is to be
	// applied.
	Error
	// Unschedulable: the pod cannot take this vreplica now. The runtime
	// tries the other candidates; a later vreplica, or a later decision
	// after the cluster changed, may see the pod pass.
	Unschedulable
	// UnschedulableAndUnresolvable: the pod cannot take any vreplica of
	// this source in this decision, whatever else is placed. The runtime
	// treats it as Unschedulable; explanations show the difference.
	UnschedulableAndUnresolvable
	// Skip: returned by Prepare only. The plugin has nothing to say about
	// this decision and the runtime leaves it out of every later step of
	// it (its Filter and Score are not called).
	Skip
)

var codeNames = [...]string{"Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Skip"}

func (c Code) String() string {
	if c >= 0 && int(c) < len(codeNames) {
		return codeNames[c]
	}
	return "Code(" + strconv.Itoa(int(c)) + ")"
}

// Status is the result of a plugin call. A nil *Status is Success and every
// method is safe on nil.
type Status struct {
	code    Code
	plugin  string
	reasons []string
	err     error
}

// NewStatus returns a Status with the code and reasons.
func NewStatus(code Code, reasons ...string) *Status {
	return &Status{code: code, reasons: reasons}
}

// AsStatus wraps err in an Error Status; a nil err gives nil.
func AsStatus(err error) *Status {
	if err == nil {
		return nil
	}
	return &Status{code: Error, reasons: []string{err.Error()}, err: err}
}

// Code returns the status code; Success for nil.
func (s *Status) Code() Code {
	if s == nil {
		return Success
	}
	return s.code
}

// IsSuccess reports whether s is nil or has code Success.
func (s *Status) IsSuccess() bool { return s.Code() == Success }

// IsRejected reports whether the pod was rejected (Unschedulable or
// UnschedulableAndUnresolvable).
func (s *Status) IsRejected() bool {
	c := s.Code()
	return c == Unschedulable || c == UnschedulableAndUnresolvable
}

// Plugin returns the name of the plugin that produced the status, as stamped
// by the runtime.
func (s *Status) Plugin() string {
	if s == nil {
		return ""
	}
	return s.plugin
}

// WithPlugin returns a copy of s naming the plugin (s itself when it already
// does). The runtime calls it so that plugins need not name themselves. s is
// never modified, so a plugin may return one preallocated Status from
// concurrent decisions.
func (s *Status) WithPlugin(name string) *Status {
	if s == nil || s.plugin == name {
		return s
	}
	c := *s
	c.plugin = name
	return &c
}

// Reasons returns the reasons given.
func (s *Status) Reasons() []string {
	if s == nil {
		return nil
	}
	return s.reasons
}

// Message joins the reasons with ", ".
func (s *Status) Message() string {
	if s == nil {
		return ""
	}
	return strings.Join(s.reasons, ", ")
}

// AsError returns nil for success and otherwise an error naming the plugin,
// the code and the reasons. An Error status built by AsStatus unwraps to the
// original error.
func (s *Status) AsError() error {
	if s.IsSuccess() {
		return nil
	}
	return &statusError{s: s}
}

func (s *Status) String() string {
	if s == nil {
		return "Success"
	}
	var b strings.Builder
	if s.plugin != "" {
		b.WriteString(s.plugin)
		b.WriteString(": ")
	}
	b.WriteString(s.code.String())
	if len(s.reasons) > 0 {
		b.WriteString(": ")
		b.WriteString(s.Message())
	}
	return b.String()
}

type statusError struct{ s *Status }

func (e *statusError) Error() string {
	if e.s.plugin == "" {
		return e.s.String()
	}
	return "plugin " + e.s.String()
}

func (e *statusError) Unwrap() error { return e.s.err }

// StatusFromError returns the Status an error from AsError carries, if any.
func StatusFromError(err error) (*Status, bool) {
	var se *statusError
	if errors.As(err, &se) {
		return se.s, true
	}
	return nil, false
}
