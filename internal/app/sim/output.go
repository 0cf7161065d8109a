package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/vsched/vsched/framework"
)

// WriteJSON writes the result as indented JSON. Maps are written with their
// keys sorted and every list is in a fixed order, so the same scenario
// always gives the same bytes.
func WriteJSON(w io.Writer, res *Result) error {
	return writeJSON(w, res)
}

// WriteExplanation writes the explanation of a source's decision for
// people: where it was made and what it was asked, then per vreplica every
// candidate pod with its node and zone.
func WriteExplanation(w io.Writer, source string, ex *Explained) error {
	return writeExplanation(w, fmt.Sprintf("Most recent decision about %s", source), ex)
}

// WriteDecision writes the explanation of a given decision (explain
// --step) as WriteExplanation does the most recent one.
func WriteDecision(w io.Writer, source string, ex *Explained) error {
	return writeExplanation(w, "Decision about "+source, ex)
}

// WriteExplanations writes several decisions about a source (explain
// --all), numbered, one after the other.
func WriteExplanations(w io.Writer, source string, all []*Explained) error {
	for i, ex := range all {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if err := writeExplanation(w, fmt.Sprintf("Decision %d of %d about %s", i+1, len(all), source), ex); err != nil {
			return err
		}
	}
	return nil
}

// explainLegend says how to read a candidate line.
const explainLegend = "Candidates are marked * for the winner, with their node and zone; a rejected pod names the filter and its reason; scores read \"plugin score xweight\".\n"

func writeExplanation(w io.Writer, lead string, ex *Explained) error {
	var b strings.Builder
	l := explanationLines(ex)
	fmt.Fprintf(&b, "%s: %s, %s %d of %d vreplica(s) asked, %d pending.\n",
		lead, l.where, l.verb, ex.Changed, ex.Asked, ex.Pending)
	b.WriteString(explainLegend + "\n")
	fmt.Fprintf(&b, "%s: %s\n", ex.Explanation.Key, l.decision)
	podW, nodeW, zoneW := l.widths()
	for _, st := range l.steps {
		b.WriteString(st.head + "\n")
		for i, c := range st.candidates {
			mark := " "
			if i == st.winner {
				mark = "*"
			}
			fmt.Fprintf(&b, "  %s %-*s %-*s %-*s %s\n", mark, podW, c.pod, nodeW, c.node, zoneW, c.zone, c.verdict)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// explained is a decision cut into the strings its text is made of: the
// text output pads and joins them, the HTML report embeds them for its
// script to do the same.
type explained struct {
	where, verb, decision string
	steps                 []explainedStep
}

type explainedStep struct {
	// head is "vreplica N -> pod" or why it was not placed; winner the
	// index of the winning candidate, -1 for none.
	head       string
	winner     int
	candidates []explainedCandidate
}

type explainedCandidate struct{ pod, node, zone, verdict string }

func explanationLines(ex *Explained) explained {
	e := ex.Explanation
	l := explained{verb: "placed", where: fmt.Sprintf("step %d %q", ex.Step+1, ex.StepTitle), decision: e.Mode.String() + " decision"}
	if e.Mode == framework.Remove {
		l.verb = "removed"
	}
	if ex.Step < 0 {
		l.where = "the " + InitialStepName
	}
	if len(e.Skipped) > 0 {
		l.decision += fmt.Sprintf(" (skipped plugins: %s)", strings.Join(e.Skipped, ", "))
	}
	for _, st := range e.Steps {
		ls := explainedStep{winner: -1, head: fmt.Sprintf("vreplica %d -> %s", st.VReplica, st.WinnerPod)}
		if st.Winner < 0 {
			ls.head = fmt.Sprintf("vreplica %d -> not %s: %s", st.VReplica, l.verb, st.Reason)
		}
		for i, c := range st.Candidates {
			if c.Ordinal == st.Winner {
				ls.winner = i
			}
			p := ex.Pods[c.Ordinal]
			ls.candidates = append(ls.candidates, explainedCandidate{pod: c.Pod, node: orDash(p.Node), zone: orDash(p.Zone), verdict: c.Verdict()})
		}
		l.steps = append(l.steps, ls)
	}
	return l
}

// widths are the pod, node and zone columns' widths.
func (l *explained) widths() (pod, node, zone int) {
	pod, node, zone = 12, len("NODE"), len("ZONE")
	for _, st := range l.steps {
		for _, c := range st.candidates {
			pod, node, zone = max(pod, len(c.pod)), max(node, len(c.node)), max(zone, len(c.zone))
		}
	}
	return pod, node, zone
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// explainedJSON is the JSON form of an explanation.
type explainedJSON struct {
	Version  int    `json:"version,omitempty"`
	Source   string `json:"source,omitempty"`
	Step     int    `json:"step"`
	StepName string `json:"stepName"`
	Mode     string `json:"mode"`
	// Asked, Placed (removed, in remove mode) and Pending count
	// vreplicas as the text header does.
	Asked   int32 `json:"asked"`
	Placed  int32 `json:"placed"`
	Pending int32 `json:"pending"`
	// Pods are the candidate pods' node and zone, by pod name.
	Pods        map[string]PodPlace    `json:"pods"`
	Explanation *framework.Explanation `json:"explanation"`
}

func toExplainedJSON(ex *Explained) explainedJSON {
	pods := map[string]PodPlace{}
	for _, st := range ex.Explanation.Steps {
		for _, c := range st.Candidates {
			pods[c.Pod] = ex.Pods[c.Ordinal]
		}
	}
	return explainedJSON{Step: ex.Step + 1, StepName: ex.StepTitle, Mode: ex.Explanation.Mode.String(),
		Asked: ex.Asked, Placed: ex.Changed, Pending: ex.Pending, Pods: pods, Explanation: ex.Explanation}
}

// WriteExplanationJSON writes the explanation as JSON: the step (1-based)
// and its name, the mode ("place" or "remove"), the counts, the candidate
// pods' nodes and zones, and the framework's explanation.
func WriteExplanationJSON(w io.Writer, source string, ex *Explained) error {
	j := toExplainedJSON(ex)
	j.Version, j.Source = FormatVersion, source
	return writeJSON(w, j)
}

// WriteExplanationsJSON writes several decisions about a source (explain
// --all) as {"version", "source", "decisions": [...]}.
func WriteExplanationsJSON(w io.Writer, source string, all []*Explained) error {
	out := struct {
		Version   int             `json:"version"`
		Source    string          `json:"source"`
		Decisions []explainedJSON `json:"decisions"`
	}{Version: FormatVersion, Source: source, Decisions: make([]explainedJSON, len(all))}
	for i, ex := range all {
		out.Decisions[i] = toExplainedJSON(ex)
	}
	return writeJSON(w, out)
}

func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// SourceCount is how many distinct sources the scenario has.
func SourceCount(s *Scenario) int {
	seen := map[string]bool{}
	for _, src := range s.Sources {
		seen[src.Source] = true
	}
	for _, st := range s.Steps {
		for _, sp := range st.Schedule {
			seen[sp.Source] = true
		}
	}
	return len(seen)
}

// CheckSource reports a source the scenario never schedules.
func CheckSource(s *Scenario, source string) error {
	var known []string
	seen := map[string]bool{}
	for _, src := range s.Sources {
		if !seen[src.Source] {
			seen[src.Source] = true
			known = append(known, src.Source)
		}
	}
	for _, st := range s.Steps {
		names := make([]string, 0, len(st.Schedule)+1)
		for _, sp := range st.Schedule {
			names = append(names, sp.Source)
		}
		if st.Signal != nil { // a signal step creates its source
			names = append(names, st.Signal.Source)
		}
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				known = append(known, n)
			}
		}
	}
	if seen[source] {
		return nil
	}
	msg := fmt.Sprintf("source %s is never scheduled in %s%s", source, s.File, didYouMean(source, known))
	if len(known) > 0 {
		msg += "; its sources are " + strings.Join(known, ", ")
	}
	return errors.New(msg)
}

// ValidateFile checks one file against the in-tree plugins: every
// ConfigMap manifest in it, or the scenario it holds. It returns the
// problems and what the file was found to hold ("scenario",
// "config-scheduler", ...).
func ValidateFile(name string, data []byte) (Problems, string) {
	r := CheckFile(name, data, nil)
	return r.Problems, strings.Join(r.Holds, ", ")
}

// FileReport is what CheckFile found in a file.
type FileReport struct {
	Problems Problems
	// Holds is "scenario", or the names of the ConfigMaps vsched reads.
	Holds []string
	// Skipped are the objects vsched does not read.
	Skipped []Skipped
}

// CheckFile checks one file, the configuration against reg (nil: the
// in-tree plugins): the scenario it holds, or every ConfigMap manifest
// in it, skipping the objects vsched does not read.
func CheckFile(name string, data []byte, reg *framework.Registry) FileReport {
	docs, ps := splitFile(name, data)
	if len(ps) > 0 {
		return FileReport{Problems: ps}
	}
	if len(docs) == 0 {
		return FileReport{Problems: Problems{{File: name, Step: -1, Message: "is empty; expected a scenario or ConfigMap manifests"}}}
	}
	// A document with a "kind" is a Kubernetes manifest; anything else is
	// taken for a scenario.
	if !hasKind(docs[0]) {
		if len(docs) > 1 {
			return FileReport{Problems: Problems{{File: name, Line: docs[1].firstLine, Step: -1, Message: fmt.Sprintf("holds %d YAML documents; a scenario is one document", len(docs))}}}
		}
		_, ps := decodeScenario(docs[0], reg)
		return FileReport{Problems: ps, Holds: []string{"scenario"}}
	}
	var r FileReport
	for _, doc := range docs {
		if !hasKind(doc) {
			r.Problems = append(r.Problems, Problem{File: name, Line: doc.firstLine, Step: -1, Message: "this document has no kind; a file holds one scenario, or ConfigMap manifests"})
			continue
		}
		if sk, ok := skippable(doc); ok {
			r.Skipped = append(r.Skipped, sk)
			continue
		}
		cmf, ps := decodeConfigMap(doc)
		sortProblems(ps)
		r.Problems = append(r.Problems, ps...)
		if cmf == nil {
			continue
		}
		r.Problems = append(r.Problems, checkConfig(cmf.Kind, cmf.ConfigMap, doc, false, reg)...)
		r.Holds = append(r.Holds, cmf.ConfigMap.Name)
	}
	return r
}

func hasKind(doc *document) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(doc.json, &top) != nil {
		return false
	}
	_, ok := top["kind"]
	return ok
}
