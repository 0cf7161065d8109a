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
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteExplanation writes the explanation of a source's decision for
// people: where it was made, then the framework's account of it.
func WriteExplanation(w io.Writer, source string, ex *Explained) error {
	var b strings.Builder
	e := ex.Explanation
	placed := 0
	for _, s := range e.Steps {
		if s.Winner >= 0 {
			placed++
		}
	}
	verb := "placed"
	if e.Mode == framework.Remove {
		verb = "removed"
	}
	fmt.Fprintf(&b, "Most recent decision about %s: step %d %q, %s %d of %d vreplica(s) asked.\n",
		source, ex.Step+1, ex.StepTitle, verb, placed, len(e.Steps))
	fmt.Fprintf(&b, "Candidates are marked * for the winner; a rejected pod names the filter and its reason; scores read \"plugin score xweight\".\n\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return e.WriteText(w)
}

// explainedJSON is the JSON form of an explanation.
type explainedJSON struct {
	Version     int                    `json:"version"`
	Source      string                 `json:"source"`
	Step        int                    `json:"step"`
	StepName    string                 `json:"stepName"`
	Mode        string                 `json:"mode"`
	Explanation *framework.Explanation `json:"explanation"`
}

// WriteExplanationJSON writes the explanation as JSON: the step (1-based)
// and its name, the mode ("place" or "remove"), and the framework's
// explanation.
func WriteExplanationJSON(w io.Writer, source string, ex *Explained) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(explainedJSON{
		Version: FormatVersion, Source: source, Step: ex.Step + 1, StepName: ex.StepTitle,
		Mode: ex.Explanation.Mode.String(), Explanation: ex.Explanation,
	}); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// CheckSource reports a source the scenario never schedules.
func CheckSource(s *Scenario, source string) error {
	var known []string
	seen := map[string]bool{}
	for _, st := range s.Steps {
		for _, sp := range st.Schedule {
			if !seen[sp.Source] {
				seen[sp.Source] = true
				known = append(known, sp.Source)
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
