package monitoring

import (
	"sort"
	"strings"
)

// PromQL words that are not metric names wherever they stand; an
// aggregation may take its by/without clause before its parentheses.
var (
	aggregators = setOf("sum", "min", "max", "avg", "group", "stddev", "stdvar", "count",
		"count_values", "bottomk", "topk", "quantile", "limitk", "limit_ratio")
	// Followed by a list of labels in parentheses.
	labelListWords = setOf("by", "without", "on", "ignoring", "group_left", "group_right")
	keywords       = setOf("and", "or", "unless", "bool", "offset", "atan2", "inf", "nan", "start", "end")
)

func setOf(words ...string) map[string]bool {
	m := map[string]bool{}
	for _, w := range words {
		m[strings.ToLower(w)] = true
	}
	return m
}

// MetricNames returns the metric names a PromQL query selects, sorted and
// unique: the bare names of its vector selectors and any
// {__name__="..."} matcher. It reads the query's words, skipping strings,
// label matchers, ranges, label lists and functions, rather than parsing
// it: enough to check that a query names only known metrics, not to
// validate it (promtool does that for the rules). Grafana's variables
// ($name, ${name}) are skipped.
func MetricNames(query string) []string {
	found := map[string]bool{}
	s := &scanner{q: query}
	for s.i < len(s.q) {
		c := s.q[s.i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			s.skipString()
		case c == '{':
			for _, n := range s.matchers() {
				found[n] = true
			}
		case c == '[':
			s.skipTo(']')
		case c == '#':
			s.skipTo('\n')
		case c == '$':
			s.skipVariable()
		case isIdentStart(c):
			if name := s.word(); name != "" {
				found[name] = true
			}
		case c >= '0' && c <= '9' || c == '.':
			s.skipNumber()
		default:
			s.i++
		}
	}
	names := make([]string, 0, len(found))
	for n := range found {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

type scanner struct {
	q string
	i int
}

func isIdentStart(c byte) bool {
	return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdent(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// word reads an identifier and returns it if it names a metric.
func (s *scanner) word() string {
	start := s.i
	for s.i < len(s.q) && isIdent(s.q[s.i]) {
		s.i++
	}
	w := s.q[start:s.i]
	lower := strings.ToLower(w)
	switch {
	case labelListWords[lower]:
		if s.peek() == '(' {
			s.i = s.next()
			s.skipTo(')')
		}
		return ""
	case aggregators[lower], keywords[lower], s.peek() == '(':
		return ""
	}
	return w
}

// next is the index of the next character that is not a space.
func (s *scanner) next() int {
	j := s.i
	for j < len(s.q) && strings.IndexByte(" \t\r\n", s.q[j]) >= 0 {
		j++
	}
	return j
}

func (s *scanner) peek() byte {
	if j := s.next(); j < len(s.q) {
		return s.q[j]
	}
	return 0
}

// skipTo moves past the next end, skipping strings on the way.
func (s *scanner) skipTo(end byte) {
	for s.i < len(s.q) {
		switch c := s.q[s.i]; {
		case c == end:
			s.i++
			return
		case c == '"' || c == '\'' || c == '`':
			s.skipString()
		default:
			s.i++
		}
	}
}

// skipString moves past a quoted string, escapes included.
func (s *scanner) skipString() {
	quote := s.q[s.i]
	for s.i++; s.i < len(s.q); s.i++ {
		switch s.q[s.i] {
		case '\\':
			if quote != '`' {
				s.i++
			}
		case quote:
			s.i++
			return
		}
	}
}

// matchers moves past {...} and returns the names its __name__ matchers
// give.
func (s *scanner) matchers() []string {
	start := s.i
	s.skipTo('}')
	body := s.q[start:s.i]
	var names []string
	for {
		k := strings.Index(body, "__name__")
		if k < 0 {
			return names
		}
		body = strings.TrimLeft(body[k+len("__name__"):], " \t=")
		if len(body) > 0 && (body[0] == '"' || body[0] == '\'') {
			if end := strings.IndexByte(body[1:], body[0]); end >= 0 {
				names = append(names, body[1:1+end])
			}
		}
	}
}

func (s *scanner) skipVariable() {
	s.i++
	if s.i < len(s.q) && s.q[s.i] == '{' {
		s.skipTo('}')
		return
	}
	for s.i < len(s.q) && isIdent(s.q[s.i]) {
		s.i++
	}
}

// skipNumber moves past a number or a duration (5m, 1.5e3, 0x1f).
func (s *scanner) skipNumber() {
	for s.i < len(s.q) && (isIdent(s.q[s.i]) || s.q[s.i] == '.') {
		s.i++
	}
}
