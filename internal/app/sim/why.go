package sim

import (
	"encoding/json"
	"html/template"
	"maps"
	"slices"
)

// whyTable holds the report's explanations, embedded once as compact JSON
// that the page's script turns into text when a "why" is opened. The text
// of every decision of 2,000 sources would be megabytes, while most of its
// strings (pods, nodes, zones, the plugins' verdicts) repeat from one
// decision to the next: the table keeps each string once and a decision as
// indexes into them.
type whyTable struct {
	strings []string
	index   map[string]int
	// decisions are encoded by encode.
	decisions [][]any
	// current is, by source, the index of its most recent decision so
	// far: the one a row of the step being built explains.
	current map[string]int
}

func newWhyTable() *whyTable {
	t := &whyTable{index: map[string]int{}, current: map[string]int{}}
	t.str(explainLegend) // the script finds the legend at 0
	return t
}

func (t *whyTable) str(s string) int {
	i, ok := t.index[s]
	if !ok {
		i = len(t.strings)
		t.index[s] = i
		t.strings = append(t.strings, s)
	}
	return i
}

// add records a step's decisions as the sources' most recent ones.
func (t *whyTable) add(byKey map[string]*Explained) {
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		t.current[k] = len(t.decisions)
		t.decisions = append(t.decisions, t.encode(k, byKey[k]))
	}
}

// encode writes a decision as [key, where, verb, changed, asked, pending,
// decision line, steps...], each step as [head, winner's candidate index,
// then pod, node, zone and verdict of each candidate]; strings are
// indexes into t.strings. The page's script pads and joins them as
// writeExplanation does.
func (t *whyTable) encode(key string, ex *Explained) []any {
	l := explanationLines(ex)
	d := []any{t.str(key), t.str(l.where), t.str(l.verb), ex.Changed, ex.Asked, ex.Pending, t.str(l.decision)}
	for _, st := range l.steps {
		s := make([]int, 0, 2+4*len(st.candidates))
		s = append(s, t.str(st.head), st.winner)
		for _, c := range st.candidates {
			s = append(s, t.str(c.pod), t.str(c.node), t.str(c.zone), t.str(c.verdict))
		}
		d = append(d, s)
	}
	return d
}

// link gives each source row of the step its most recent decision.
func (t *whyTable) link(hs *htmlStep) {
	for i := range hs.Sources {
		if d, ok := t.current[hs.Sources[i].Key]; ok {
			hs.Sources[i].HasWhy, hs.Sources[i].Why = true, d
		}
	}
}

// js is the table as a script's literal. json.Marshal escapes <, > and &,
// so no string can end the script element.
func (t *whyTable) js() (template.JS, error) {
	b, err := json.Marshal(struct {
		Strings   []string `json:"s"`
		Decisions [][]any  `json:"d"`
	}{t.strings, t.decisions})
	return template.JS(b), err
}
