package cli

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/vsched/vsched/internal/app/sim"
)

// vreplicaDecisionJSON is the source autoscaler's decision in explain's
// JSON and YAML: the step it was made in (1-based) and the decision as the
// text output shows it (clock, one-line summary, its numbers one a line).
type vreplicaDecisionJSON struct {
	Step int `json:"step"`
	sim.VReplicaDecision
}

// chosenVReplicaDecision is the source autoscaler's decision that explain
// shows for a source with a signal: the last one up to --step (the last of
// all without it), none for --step 0 (the initial sources' reconcile).
func chosenVReplicaDecision(res *sim.Result, f *explainFlags) (vreplicaDecisionJSON, bool) {
	step := 0
	if f.stepSet {
		step = max(f.step, 1)
	}
	d, in, ok := sim.LastVReplicaDecision(res, f.source, step)
	if !ok || (f.stepSet && f.step == 0) {
		return vreplicaDecisionJSON{}, false
	}
	return vreplicaDecisionJSON{Step: in, VReplicaDecision: d}, true
}

// writeExplainJSON writes explain's JSON: the scheduler's decision (or
// decisions, with --all) as internal/app/sim writes them, with the source
// autoscaler's decision, when the text output shows one, under
// "vreplicaDecision" after "source".
func writeExplainJSON(w *bytes.Buffer, res *sim.Result, f *explainFlags, chosen []*sim.Explained) error {
	var j bytes.Buffer
	var err error
	if f.all {
		err = sim.WriteExplanationsJSON(&j, f.source, chosen)
	} else {
		err = sim.WriteExplanationJSON(&j, f.source, chosen[0])
	}
	if err != nil {
		return err
	}
	d, ok := chosenVReplicaDecision(res, f)
	if !ok {
		w.Write(j.Bytes())
		return nil
	}
	out, err := insertField(j.Bytes(), "source", "vreplicaDecision", d)
	if err != nil {
		return err
	}
	w.Write(out)
	return nil
}

// insertField adds key: value to the JSON object js right after its field
// after, keeping the other fields in their order, and indents the result
// as internal/app/sim does (two spaces, HTML characters as they are).
func insertField(js []byte, after, key string, value any) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(js))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("explain's JSON is not an object: %v", err)
	}
	var flat bytes.Buffer
	flat.WriteByte('{')
	add := func(k string, raw []byte) {
		if flat.Len() > 1 {
			flat.WriteByte(',')
		}
		fmt.Fprintf(&flat, "%q:", k)
		flat.Write(bytes.TrimSpace(raw))
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		add(k, raw)
		if k == after {
			var v bytes.Buffer
			enc := json.NewEncoder(&v)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(value); err != nil {
				return nil, err
			}
			add(key, v.Bytes())
		}
	}
	flat.WriteByte('}')
	var out bytes.Buffer
	if err := json.Indent(&out, flat.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
