package sim

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Problem is one thing wrong with an input file, located as precisely as
// the file allows.
type Problem struct {
	// File is the file's name as the user gave it.
	File string
	// Line is the 1-based line the problem is on, 0 when unknown.
	Line int
	// Step is the 0-based index of the scenario step the problem is in,
	// -1 when it is not in a step.
	Step int
	// StepName is the step's name, when it has one.
	StepName string
	// Field is the path of the offending field, relative to the step when
	// Step >= 0 ("schedule.vreplicas"), else from the document's root
	// ("cluster.nodes[2].zone"). Empty for the document as a whole.
	Field string
	// Message says what is wrong.
	Message string
	// Path is the field's full path from the document's root.
	Path string
}

// String formats the problem as one line:
//
//	bad.yaml:14: step 4 "node failure": fail.node: unknown node "node-x"
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		b.WriteString(":" + strconv.Itoa(p.Line))
	}
	b.WriteString(": ")
	if p.Step >= 0 {
		fmt.Fprintf(&b, "step %d", p.Step+1)
		if p.StepName != "" {
			b.WriteString(" " + strconv.Quote(p.StepName))
		}
		b.WriteString(": ")
	}
	if p.Field != "" {
		b.WriteString(p.Field + ": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Problems is every problem found in one or more files. It is an error.
type Problems []Problem

// Error joins the problems, one per line.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// sortProblems orders problems by file and line, keeping the order found
// among problems on the same line (and among those without one).
func sortProblems(ps Problems) {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].File != ps[j].File {
			return ps[i].File < ps[j].File
		}
		return ps[i].Line < ps[j].Line && ps[i].Line > 0 && ps[j].Line > 0
	})
}

// path is a field path: each element is a string (object key) or an int
// (list index).
type path []any

func (p path) key(k string) path { return append(p[:len(p):len(p)], k) }
func (p path) index(i int) path  { return append(p[:len(p):len(p)], i) }

// String renders the path as "cluster.nodes[2].zone".
func (p path) String() string {
	var b strings.Builder
	for _, e := range p {
		switch v := e.(type) {
		case int:
			b.WriteString("[" + strconv.Itoa(v) + "]")
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(v)
		}
	}
	return b.String()
}

// parseFieldPath turns a rendered path ("data.priorities[1].Args.MaxSkew")
// back into elements. Keys holding '.' or '[' cannot be told apart; config
// field paths never have them.
func parseFieldPath(s string) path {
	var out path
	for _, part := range strings.Split(s, ".") {
		for part != "" {
			i := strings.IndexByte(part, '[')
			if i < 0 {
				out = append(out, part)
				break
			}
			if i > 0 {
				out = append(out, part[:i])
			}
			j := strings.IndexByte(part[i:], ']')
			if j < 0 {
				out = append(out, part[i:])
				break
			}
			if n, err := strconv.Atoi(part[i+1 : i+j]); err == nil {
				out = append(out, n)
			} else {
				out = append(out, part[i+1:i+j])
			}
			part = part[i+j+1:]
		}
	}
	return out
}
