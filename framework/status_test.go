package framework_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vsched/vsched/framework"
)

func TestCodeString(t *testing.T) {
	tests := []struct {
		code framework.Code
		want string
	}{
		{framework.Success, "Success"},
		{framework.Error, "Error"},
		{framework.Unschedulable, "Unschedulable"},
		{framework.UnschedulableAndUnresolvable, "UnschedulableAndUnresolvable"},
		{framework.Skip, "Skip"},
		{framework.Code(5), "Code(5)"},
		{framework.Code(-1), "Code(-1)"},
		{framework.Code(math.MinInt), fmt.Sprintf("Code(%d)", math.MinInt)},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.code.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

// statusView is every accessor's answer, for comparing statuses in one Diff.
type statusView struct {
	Code                  framework.Code
	Success, Rejected     bool
	Plugin, Message, Str  string
	Reasons               []string
	ErrNil                bool
	ErrText               string
	FromErr, FromErrMatch bool
}

func view(s *framework.Status) statusView {
	v := statusView{
		Code: s.Code(), Success: s.IsSuccess(), Rejected: s.IsRejected(),
		Plugin: s.Plugin(), Message: s.Message(), Str: s.String(), Reasons: s.Reasons(),
	}
	err := s.AsError()
	v.ErrNil = err == nil
	if err != nil {
		v.ErrText = err.Error()
		got, ok := framework.StatusFromError(fmt.Errorf("wrapped: %w", err))
		v.FromErr, v.FromErrMatch = ok, got == s
	}
	return v
}

func TestStatus(t *testing.T) {
	tests := []struct {
		name   string
		status *framework.Status
		want   statusView
	}{
		{
			name:   "nil is success",
			status: nil,
			want:   statusView{Code: framework.Success, Success: true, Str: "Success", ErrNil: true},
		},
		{
			name:   "explicit success",
			status: framework.NewStatus(framework.Success),
			want:   statusView{Code: framework.Success, Success: true, Str: "Success", ErrNil: true},
		},
		{
			name:   "unschedulable with reasons",
			status: framework.NewStatus(framework.Unschedulable, "full", "draining"),
			want: statusView{
				Code: framework.Unschedulable, Rejected: true, Message: "full, draining",
				Str: "Unschedulable: full, draining", Reasons: []string{"full", "draining"},
				ErrText: "Unschedulable: full, draining", FromErr: true, FromErrMatch: true,
			},
		},
		{
			name:   "unresolvable, named",
			status: framework.NewStatus(framework.UnschedulableAndUnresolvable, "never").WithPlugin("P"),
			want: statusView{
				Code: framework.UnschedulableAndUnresolvable, Rejected: true, Plugin: "P", Message: "never",
				Str: "P: UnschedulableAndUnresolvable: never", Reasons: []string{"never"},
				ErrText: "plugin P: UnschedulableAndUnresolvable: never", FromErr: true, FromErrMatch: true,
			},
		},
		{
			name:   "skip without reasons",
			status: framework.NewStatus(framework.Skip),
			want: statusView{
				Code: framework.Skip, Str: "Skip", ErrText: "Skip", FromErr: true, FromErrMatch: true,
			},
		},
		{
			name:   "error from AsStatus",
			status: framework.AsStatus(errors.New("boom")).WithPlugin("Q"),
			want: statusView{
				Code: framework.Error, Plugin: "Q", Message: "boom", Str: "Q: Error: boom", Reasons: []string{"boom"},
				ErrText: "plugin Q: Error: boom", FromErr: true, FromErrMatch: true,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, view(tt.status)); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStatusNilSafety(t *testing.T) {
	var s *framework.Status
	if s.WithPlugin("P") != nil {
		t.Errorf("nil.WithPlugin is not nil")
	}
	if framework.AsStatus(nil) != nil {
		t.Errorf("AsStatus(nil) is not nil")
	}
	if s.Reasons() != nil || s.Plugin() != "" || s.Message() != "" {
		t.Errorf("nil status has content")
	}
}

func TestStatusUnwrap(t *testing.T) {
	sentinel := errors.New("disk on fire")
	err := framework.AsStatus(fmt.Errorf("ctx: %w", sentinel)).WithPlugin("P").AsError()
	if !errors.Is(err, sentinel) {
		t.Errorf("errors.Is(AsStatus(err).AsError(), err) = false")
	}
	// A status not built from an error unwraps to nothing.
	if u := errors.Unwrap(framework.NewStatus(framework.Error, "x").AsError()); u != nil {
		t.Errorf("Unwrap = %v, want nil", u)
	}
	if _, ok := framework.StatusFromError(sentinel); ok {
		t.Errorf("StatusFromError found a status in a plain error")
	}
	if _, ok := framework.StatusFromError(nil); ok {
		t.Errorf("StatusFromError(nil) found a status")
	}
}

// TestWithPluginCopies: plugins may return one preallocated status from
// every call, concurrently; naming it must not write to it.
func TestWithPluginCopies(t *testing.T) {
	shared := framework.NewStatus(framework.Unschedulable, "full")
	a := shared.WithPlugin("A")
	b := shared.WithPlugin("B")
	if shared.Plugin() != "" {
		t.Errorf("WithPlugin changed its receiver: plugin %q", shared.Plugin())
	}
	if a.Plugin() != "A" || b.Plugin() != "B" {
		t.Errorf("WithPlugin gave %q and %q", a.Plugin(), b.Plugin())
	}
	if a.Code() != shared.Code() || a.Message() != shared.Message() {
		t.Errorf("WithPlugin lost the code or reasons: %v", a)
	}
	if a.WithPlugin("A") != a {
		t.Errorf("renaming to the same name copied")
	}
}
