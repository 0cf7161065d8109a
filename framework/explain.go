package framework

import (
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// Explanation records a decision: per vreplica, every candidate pod, the
// filter that rejected it or each plugin's score, and the winner. Ask for one
// by passing a non-nil *Explanation to Profile.Run.
type Explanation struct {
	Mode    Mode                 `json:"-"`
	Key     types.NamespacedName `json:"-"`
	Skipped []string             `json:"skipped,omitempty"`
	Steps   []StepExplanation    `json:"steps"`
}

// StepExplanation is the choice for one vreplica.
type StepExplanation struct {
	// VReplica counts the vreplicas of this decision from 1.
	VReplica   int32                  `json:"vreplica"`
	Winner     int32                  `json:"winner"`
	WinnerPod  string                 `json:"winnerPod,omitempty"`
	Reason     string                 `json:"reason,omitempty"`
	Candidates []CandidateExplanation `json:"candidates"`
}

// CandidateExplanation is one pod's fate in a step.
type CandidateExplanation struct {
	Ordinal  int32         `json:"ordinal"`
	Pod      string        `json:"pod"`
	Rejected *Rejection    `json:"rejected,omitempty"`
	Feasible bool          `json:"feasible"`
	Scores   []PluginScore `json:"scores,omitempty"`
	Total    int64         `json:"total"`
	// Resources is the pod's use of its slots and of every resource
	// before this vreplica, for a source with a cost
	// (Decision.ResourceUse); "" otherwise.
	Resources string `json:"resources,omitempty"`
}

// Rejection names the filter that rejected a pod, and why.
type Rejection struct {
	Plugin  string   `json:"plugin"`
	Code    string   `json:"code"`
	Reasons []string `json:"reasons"`
}

// PluginScore is one plugin's score for one pod.
type PluginScore struct {
	Plugin   string `json:"plugin"`
	Score    int64  `json:"score"`
	Weight   int32  `json:"weight"`
	Weighted int64  `json:"weighted"`
	// Error says why a weight-0 plugin has no score for the pod (its
	// Score or NormalizeScores failed, or the score was out of range);
	// Score is then 0. A weight-0 plugin does not count, so its failure
	// does not stop the decision; a counting plugin's aborts Run instead.
	Error string `json:"error,omitempty"`
}

// WriteText writes the explanation for people: a block per vreplica, a line
// per candidate.
func (e *Explanation) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s decision", e.Key, e.Mode)
	if len(e.Skipped) > 0 {
		fmt.Fprintf(&b, " (skipped plugins: %s)", strings.Join(e.Skipped, ", "))
	}
	b.WriteString("\n")
	for _, s := range e.Steps {
		if s.Winner >= 0 {
			fmt.Fprintf(&b, "vreplica %d -> %s\n", s.VReplica, s.WinnerPod)
		} else {
			fmt.Fprintf(&b, "vreplica %d -> not placed: %s\n", s.VReplica, s.Reason)
		}
		for _, c := range s.Candidates {
			mark := " "
			if c.Ordinal == s.Winner {
				mark = "*"
			}
			fmt.Fprintf(&b, "  %s %-24s %s\n", mark, c.Pod, c.Verdict())
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Verdict is the candidate's fate in one line, as WriteText shows it: the
// filter that rejected it and why, or its total and each score ("plugin
// score xweight"), then, for a source with a cost, the pod's use of each
// resource in brackets. Tools that lay candidates out their own way use it.
func (c CandidateExplanation) Verdict() string {
	v := c.verdict()
	if c.Resources != "" {
		v += " [" + c.Resources + "]"
	}
	return v
}

func (c CandidateExplanation) verdict() string {
	if c.Rejected != nil {
		return fmt.Sprintf("rejected by %s: %s", c.Rejected.Plugin, strings.Join(c.Rejected.Reasons, ", "))
	}
	parts := make([]string, len(c.Scores))
	for i, sc := range c.Scores {
		if sc.Error != "" {
			parts[i] = fmt.Sprintf("%s x%d failed (%s)", sc.Plugin, sc.Weight, sc.Error)
			continue
		}
		parts[i] = fmt.Sprintf("%s %d x%d", sc.Plugin, sc.Score, sc.Weight)
	}
	return fmt.Sprintf("total %-5d %s", c.Total, strings.Join(parts, ", "))
}
