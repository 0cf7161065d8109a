// Package bounded keeps messages built from input to a bounded size: a
// value echoed into an error, a log line or an Event is cut, and a list of
// problems names the first few and counts the rest. Input that is large by
// mistake or by design must not turn into messages larger still.
package bounded

import (
	"strconv"
	"unicode/utf8"
)

const (
	// ValueLen is how many bytes of a value a message echoes.
	ValueLen = 200
	// Problems is how many problems a message lists; the rest are
	// counted.
	Problems = 20
	// EventLen is the most bytes of an Event's message. The API server
	// keeps Events in etcd like any object; a message of this size says
	// what went wrong and points at the logs for the rest.
	EventLen = 1024
)

// Cut returns s when it is at most n bytes long, and otherwise its first
// bytes (never splitting a UTF-8 sequence) followed by how many bytes were
// cut, so that the total stays within n plus a short suffix.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := max(n, 0)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "...(" + strconv.Itoa(len(s)-i) + " more bytes)"
}

// List collects up to Max messages and counts those beyond.
type List struct {
	// Max is how many messages are kept; 0 means Problems.
	Max     int
	items   []string
	dropped int
}

// Add keeps msg, or counts it when Max are kept already.
func (l *List) Add(msg string) {
	m := l.Max
	if m <= 0 {
		m = Problems
	}
	if len(l.items) < m {
		l.items = append(l.items, msg)
		return
	}
	l.dropped++
}

// Items returns the messages kept followed, when some were dropped, by one
// saying how many; nil when none was added.
func (l *List) Items() []string {
	if l.dropped == 0 {
		return l.items
	}
	return append(l.items[:len(l.items):len(l.items)], "and "+strconv.Itoa(l.dropped)+" more")
}
