package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"
)

// document is one YAML (or JSON) document of a file: its JSON form, for
// strict decoding, and its node tree, for telling which line a field is on.
type document struct {
	file string
	// firstLine is the file line the document starts on (1-based).
	firstLine int
	json      []byte
	root      *yamlv3.Node // the document's top node; nil when unknown
}

var yamlLineRE = regexp.MustCompile(`line (\d+): (.*)$`)

// splitDocuments splits a file into its YAML documents at "---" lines. It
// keeps every document's first line so positions stay file positions.
// Documents holding nothing but blanks and comments are dropped.
func splitDocuments(data []byte) (docs [][]byte, firstLines []int) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	var cur []byte
	start := 1
	flush := func(next int) {
		if !blankYAML(cur) {
			docs = append(docs, cur)
			firstLines = append(firstLines, start)
		}
		cur, start = nil, next
	}
	for i, l := range lines {
		t := bytes.TrimRight(l, "\r\n")
		if bytes.Equal(t, []byte("---")) || bytes.HasPrefix(t, []byte("--- ")) || bytes.HasPrefix(t, []byte("---\t")) {
			flush(i + 2)
			// "--- {a: 1}" starts a document on the marker's line; keep
			// what follows the marker, in its column.
			if rest := bytes.TrimSpace(t[3:]); len(rest) > 0 && rest[0] != '#' {
				cur = append(bytes.Repeat([]byte(" "), 4), t[4:]...)
				cur = append(cur, '\n')
				start = i + 1
			}
			continue
		}
		cur = append(cur, l...)
	}
	flush(0)
	return docs, firstLines
}

// blankYAML reports whether b holds only blanks and comments.
func blankYAML(b []byte) bool {
	for _, l := range bytes.Split(b, []byte("\n")) {
		t := bytes.TrimSpace(l)
		if len(t) > 0 && t[0] != '#' && !bytes.Equal(t, []byte("...")) {
			return false
		}
	}
	return true
}

// parseDocument converts one document to JSON. A syntax error comes back
// as a problem naming the file line.
func parseDocument(file string, data []byte, firstLine int) (*document, *Problem) {
	if t := bytes.TrimSpace(data); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		// JSON: its own parser says where it breaks more precisely.
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			return nil, jsonProblem(file, firstLine, data, err)
		}
	}
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, yamlProblem(file, firstLine, err)
	}
	d := &document{file: file, firstLine: firstLine, json: j}
	var n yamlv3.Node
	if yamlv3.Unmarshal(data, &n) == nil && n.Kind == yamlv3.DocumentNode && len(n.Content) == 1 {
		d.root = n.Content[0]
	}
	if p := d.duplicateKey(); p != nil {
		return nil, p
	}
	return d, nil
}

// duplicateKey reports the first mapping key given twice: YAML to JSON
// conversion keeps only the last, which would silently drop the first.
func (d *document) duplicateKey() *Problem {
	var walk func(n *yamlv3.Node, p path) *Problem
	walk = func(n *yamlv3.Node, p path) *Problem {
		switch n.Kind {
		case yamlv3.MappingNode:
			seen := map[string]int{}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if first, dup := seen[k.Value]; dup {
					return &Problem{File: d.file, Line: d.firstLine + k.Line - 1, Step: -1, Field: p.key(k.Value).String(),
						Message: fmt.Sprintf("given twice (first on line %d)", d.firstLine+first-1)}
				}
				seen[k.Value] = k.Line
				if pr := walk(n.Content[i+1], p.key(k.Value)); pr != nil {
					return pr
				}
			}
		case yamlv3.SequenceNode:
			for i, c := range n.Content {
				if pr := walk(c, p.index(i)); pr != nil {
					return pr
				}
			}
		}
		return nil
	}
	if d.root == nil {
		return nil
	}
	return walk(d.root, nil)
}

// jsonProblem turns a JSON syntax error into a problem with the file line
// and column.
func jsonProblem(file string, firstLine int, data []byte, err error) *Problem {
	p := &Problem{File: file, Step: -1, Message: "malformed JSON: " + err.Error()}
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		at := min(max(int(syn.Offset)-1, 0), len(data))
		line := 1 + bytes.Count(data[:at], []byte("\n"))
		col := at - (bytes.LastIndexByte(data[:at], '\n') + 1) + 1
		p.Line = firstLine + line - 1
		p.Message = fmt.Sprintf("malformed JSON at column %d: %v", col, syn)
	case errors.Is(err, io.ErrUnexpectedEOF):
		p.Message = "malformed JSON: unexpected end of input"
	}
	return p
}

// yamlProblem turns a YAML parser error into a problem with the file line.
func yamlProblem(file string, firstLine int, err error) *Problem {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "error converting YAML to JSON: ")
	msg = strings.TrimPrefix(msg, "yaml: ")
	p := &Problem{File: file, Step: -1, Message: "malformed YAML: " + msg}
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			p.Line = firstLine + n - 1
			p.Message = "malformed YAML: " + m[2]
		}
	}
	return p
}

// line returns the file line of the node at p, or of its nearest ancestor
// present in the document; 0 when the document has no node tree.
func (d *document) line(p path) int {
	if d == nil || d.root == nil {
		return 0
	}
	n := d.root
	best := n.Line
	for _, e := range p {
		var next *yamlv3.Node
		switch v := e.(type) {
		case string:
			if n.Kind == yamlv3.MappingNode {
				for i := 0; i+1 < len(n.Content); i += 2 {
					if n.Content[i].Value == v {
						// A key's line reads best: the value of a
						// block scalar starts on the next line.
						best = n.Content[i].Line
						next = n.Content[i+1]
						break
					}
				}
			}
		case int:
			if n.Kind == yamlv3.SequenceNode && v >= 0 && v < len(n.Content) {
				next = n.Content[v]
				best = next.Line
			}
		}
		if next == nil {
			break
		}
		for next.Kind == yamlv3.AliasNode && next.Alias != nil {
			next = next.Alias
		}
		n = next
	}
	if best == 0 {
		return 0
	}
	return d.firstLine + best - 1
}
