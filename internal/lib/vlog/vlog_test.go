package vlog

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	"knative.dev/pkg/logging"
)

// recorder returns a logr.Logger at verbosity v and the lines it received.
func recorder(v int) (logr.Logger, *[]string) {
	var lines []string
	l := funcr.New(func(prefix, args string) { lines = append(lines, args) }, funcr.Options{Verbosity: v})
	return l, &lines
}

func TestLogrSink(t *testing.T) {
	for _, tc := range []struct {
		name      string
		verbosity int
		log       func(*zap.SugaredLogger)
		want      []string
	}{
		{"info with fields in key order", 0, func(l *zap.SugaredLogger) { l.With("z", 1).Infow("placed", "a", "x") },
			[]string{`"level"=0 "msg"="placed" "a"="x" "z"=1`}},
		{"warn is info", 0, func(l *zap.SugaredLogger) { l.Warnw("careful") },
			[]string{`"level"=0 "msg"="careful"`}},
		{"debug hidden at V(0)", 0, func(l *zap.SugaredLogger) { l.Debugw("detail", "n", 2) }, nil},
		{"debug is V(1)", 1, func(l *zap.SugaredLogger) { l.Debugw("detail", "n", 2) },
			[]string{`"level"=1 "msg"="detail" "n"=2`}},
		{"error", 0, func(l *zap.SugaredLogger) { l.Errorw("failed", "n", 1, "error", errors.New("boom")) },
			[]string{`"msg"="failed" "error"="boom" "n"=1`}},
		{"named", 0, func(l *zap.SugaredLogger) { l.Named("auto").Info("hi") },
			[]string{`"level"=0 "msg"="hi" "logger"="auto"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, lines := recorder(tc.verbosity)
			tc.log(Pick(context.Background(), Explicit(l)))
			if diff := cmp.Diff(tc.want, *lines); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFromContext(t *testing.T) {
	obsCore, observed := observer.New(zapcore.DebugLevel)
	knative := logging.WithLogger(context.Background(), zap.New(obsCore).Sugar())
	l, lines := recorder(0)
	withLogr := logr.NewContext(context.Background(), l)

	FromContext(knative).Info("to knative")
	FromContext(withLogr).Info("to logr")
	if got := observed.Len(); got != 1 {
		t.Errorf("knative logger got %d entries, want 1", got)
	}
	if diff := cmp.Diff([]string{`"level"=0 "msg"="to logr"`}, *lines); diff != "" {
		t.Errorf("logr lines (-want +got):\n%s", diff)
	}
	if FromContext(context.Background()).Desugar().Core().Enabled(zapcore.ErrorLevel) {
		t.Error("with no logger anywhere, the logger writes; want one that discards")
	}
	// An explicit logger wins over the context's.
	Pick(knative, Explicit(l)).Info("explicit")
	if observed.Len() != 1 || len(*lines) != 2 {
		t.Errorf("explicit logger: knative got %d, logr got %d lines; want 1 and 2", observed.Len(), len(*lines))
	}
}

// TestCaller: a logr sink that reports callers sees vsched's call, not
// this package's forwarding.
func TestCaller(t *testing.T) {
	var line string
	l := funcr.New(func(_, args string) { line = args }, funcr.Options{LogCaller: funcr.All})
	FromLogr(l).Infow("here")
	if !strings.Contains(line, `"file"="vlog_test.go"`) {
		t.Errorf("caller of %s; want vlog_test.go", line)
	}
}
