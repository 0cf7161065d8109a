package vlog

import (
	"context"

	"github.com/go-logr/logr"
	"go.uber.org/zap"
	"knative.dev/pkg/logging"
)

var nop = zap.NewNop().Sugar()

// Given reports whether l was set: a zero logr.Logger has no sink.
func Given(l logr.Logger) bool { return l.GetSink() != nil }

// FromLogr returns a SugaredLogger writing to l.
func FromLogr(l logr.Logger) *zap.SugaredLogger { return zap.New(newCore(l)).Sugar() }

// Explicit returns a SugaredLogger writing to l, or nil when l was not set,
// so that Pick falls back to the call's context.
func Explicit(l logr.Logger) *zap.SugaredLogger {
	if !Given(l) {
		return nil
	}
	return FromLogr(l)
}

// Pick returns explicit when it is not nil, else FromContext(ctx).
func Pick(ctx context.Context, explicit *zap.SugaredLogger) *zap.SugaredLogger {
	if explicit != nil {
		return explicit
	}
	return FromContext(ctx)
}

// FromContext returns knative's logger in ctx, else a SugaredLogger over the
// logr.Logger in ctx, else one that discards everything.
func FromContext(ctx context.Context) *zap.SugaredLogger {
	if l := logging.FromContext(ctx); l != fallback() {
		return l
	}
	if l, err := logr.FromContext(ctx); err == nil && Given(l) {
		return FromLogr(l)
	}
	return nop
}

// fallback is the logger knative's FromContext returns for a context
// without one: a package-level singleton, so comparing pointers tells it
// apart from a logger the caller put in the context.
func fallback() *zap.SugaredLogger { return logging.FromContext(context.Background()) }
