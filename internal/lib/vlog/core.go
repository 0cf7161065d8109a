package vlog

import (
	"sort"

	"github.com/go-logr/logr"
	"go.uber.org/zap/zapcore"
)

// core is a zapcore.Core that forwards every entry to a logr.Logger:
// Info and Warn as Info, Debug as V(1).Info, Error and above as Error.
type core struct {
	l      logr.Logger
	fields []zapcore.Field
}

// callDepth is how many frames zap puts between a SugaredLogger call (as
// vsched logs) and Write.
const callDepth = 4

func newCore(l logr.Logger) zapcore.Core { return &core{l: l} }

func (c *core) sink(lvl zapcore.Level) logr.Logger {
	if lvl < zapcore.InfoLevel {
		// zap's levels below Info are negative: Debug is -1, so V(1).
		return c.l.V(int(zapcore.InfoLevel - lvl))
	}
	return c.l
}

func (c *core) Enabled(lvl zapcore.Level) bool {
	return lvl >= zapcore.ErrorLevel || c.sink(lvl).Enabled()
}

func (c *core) With(fields []zapcore.Field) zapcore.Core {
	return &core{l: c.l, fields: append(append([]zapcore.Field(nil), c.fields...), fields...)}
}

func (c *core) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c *core) Write(e zapcore.Entry, fields []zapcore.Field) error {
	err, fields := takeError(e.Level, fields)
	kv := keysAndValues(c.fields, fields)
	// The caller is vsched's code, past zap's frames.
	l := c.sink(e.Level).WithCallDepth(callDepth)
	if e.LoggerName != "" {
		l = l.WithValues("logger", e.LoggerName)
	}
	if e.Level >= zapcore.ErrorLevel {
		l.Error(err, e.Message, kv...)
		return nil
	}
	l.Info(e.Message, kv...)
	return nil
}

func (c *core) Sync() error { return nil }

// takeError removes an error field from an entry at Error level, to be
// logr's error argument rather than one more value.
func takeError(lvl zapcore.Level, fields []zapcore.Field) (error, []zapcore.Field) {
	if lvl < zapcore.ErrorLevel {
		return nil, fields
	}
	for i, f := range fields {
		if err, ok := f.Interface.(error); ok && f.Type == zapcore.ErrorType {
			return err, append(fields[:i:i], fields[i+1:]...)
		}
	}
	return nil, fields
}

// keysAndValues flattens zap fields into logr's alternating keys and
// values, sorted by key so that a line's fields come in a stable order.
func keysAndValues(sets ...[]zapcore.Field) []any {
	enc := zapcore.NewMapObjectEncoder()
	for _, fs := range sets {
		for _, f := range fs {
			f.AddTo(enc)
		}
	}
	keys := make([]string, 0, len(enc.Fields))
	for k := range enc.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	kv := make([]any, 0, 2*len(keys))
	for _, k := range keys {
		kv = append(kv, k, enc.Fields[k])
	}
	return kv
}
