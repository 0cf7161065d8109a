package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"sigs.k8s.io/yaml"
)

// LiveView is what vsched get shows, and its -o json / -o yaml format:
// fields may be added, never changed or removed (version changes if that
// ever has to happen).
type LiveView struct {
	Version     int             `json:"version"`
	StatefulSet LiveStatefulSet `json:"statefulSet"`
	Sources     []LiveSource    `json:"sources"`
	Pods        []LivePod       `json:"pods"`
}

// LiveStatefulSet is the StatefulSet; Capacity is 0 when not given.
type LiveStatefulSet struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Replicas  int32  `json:"replicas"`
	Capacity  int32  `json:"capacity,omitempty"`
}

// LiveSource is one source: what it wants, where it is, what waits and
// why (its condition, as the controller wrote it).
type LiveSource struct {
	Source     string           `json:"source"`
	VReplicas  int32            `json:"vreplicas"`
	Placed     int32            `json:"placed"`
	Pending    int32            `json:"pending"`
	Status     string           `json:"status,omitempty"`
	Reason     string           `json:"reason,omitempty"`
	Message    string           `json:"message,omitempty"`
	Placements []LivePlacement  `json:"placements,omitempty"`
	ByNode     map[string]int32 `json:"byNode,omitempty"`
	ByZone     map[string]int32 `json:"byZone,omitempty"`
}

// LivePlacement is a placement with its pod's node and zone.
type LivePlacement struct {
	Pod       string `json:"pod"`
	Node      string `json:"node,omitempty"`
	Zone      string `json:"zone,omitempty"`
	VReplicas int32  `json:"vreplicas"`
}

// LivePod is one pod of the StatefulSet and its use. State is ok,
// draining, node-not-ready, node-cordoned, unbound or beyond-replicas;
// Free is set when the capacity is known.
type LivePod struct {
	Name    string           `json:"name"`
	Ordinal int32            `json:"ordinal"`
	Node    string           `json:"node,omitempty"`
	Zone    string           `json:"zone,omitempty"`
	State   string           `json:"state"`
	Used    int32            `json:"used"`
	Free    *int32           `json:"free,omitempty"`
	Sources map[string]int32 `json:"sources,omitempty"`
}

// fillPodUse adds up each pod's vreplicas from the sources' placements.
func (v *LiveView) fillPodUse() {
	idx := map[string]int{}
	for i, p := range v.Pods {
		idx[p.Name] = i
	}
	for _, s := range v.Sources {
		for _, pl := range s.Placements {
			i, ok := idx[pl.Pod]
			if !ok {
				// A placement on a pod that does not exist: shown, so that
				// the vreplicas it holds are not lost from sight.
				v.Pods = append(v.Pods, LivePod{Name: pl.Pod, Ordinal: -1, State: "gone"})
				i = len(v.Pods) - 1
				idx[pl.Pod] = i
			}
			p := &v.Pods[i]
			p.Used += pl.VReplicas
			if p.Sources == nil {
				p.Sources = map[string]int32{}
			}
			p.Sources[s.Source] += pl.VReplicas
		}
	}
	if c := v.StatefulSet.Capacity; c > 0 {
		for i := range v.Pods {
			free := c - v.Pods[i].Used
			v.Pods[i].Free = &free
		}
	}
}

func (v *LiveView) encode(format string) ([]byte, error) {
	switch format {
	case "json":
		data, err := json.MarshalIndent(v, "", "  ")
		return append(data, '\n'), err
	case "yaml":
		return yaml.Marshal(v)
	}
	return v.table(format == "wide"), nil
}

// table writes the sources, then the pods, as kubectl get would.
func (v *LiveView) table(wide bool) []byte {
	var buf bytes.Buffer
	st := v.StatefulSet
	fmt.Fprintf(&buf, "StatefulSet %s/%s: %d replicas", st.Namespace, st.Name, st.Replicas)
	if st.Capacity > 0 {
		fmt.Fprintf(&buf, ", %d vreplicas per pod", st.Capacity)
	}
	buf.WriteString("\n\n")
	w := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
	head := "SOURCE\tVREPLICAS\tPLACED\tPENDING\tPODS\tZONES\tWHY"
	if wide {
		head = "SOURCE\tVREPLICAS\tPLACED\tPENDING\tPODS\tZONES\tBY ZONE\tBY NODE\tPLACEMENTS\tWHY"
	}
	fmt.Fprintln(w, head)
	for _, s := range v.Sources {
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\t", s.Source, s.VReplicas, s.Placed, s.Pending, len(s.Placements), len(s.ByZone))
		if wide {
			fmt.Fprintf(w, "%s\t%s\t%s\t", counts(s.ByZone), counts(s.ByNode), placements(s.Placements))
		}
		fmt.Fprintln(w, why(s))
	}
	_ = w.Flush()
	buf.WriteString("\n")
	v.podTable(&buf, wide)
	return trimLines(buf.Bytes())
}

// trimLines drops the spaces tabwriter leaves after a row's last cell.
func trimLines(b []byte) []byte {
	lines := bytes.Split(b, []byte("\n"))
	for i, l := range lines {
		lines[i] = bytes.TrimRight(l, " ")
	}
	return bytes.Join(lines, []byte("\n"))
}

func (v *LiveView) podTable(buf *bytes.Buffer, wide bool) {
	w := tabwriter.NewWriter(buf, 0, 4, 2, ' ', 0)
	head := "POD\tNODE\tZONE\tSTATE\tUSED\tFREE"
	if wide {
		head += "\tSOURCES"
	}
	fmt.Fprintln(w, head)
	for _, p := range v.Pods {
		free := "-"
		if p.Free != nil {
			free = fmt.Sprint(*p.Free)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%s", p.Name, orNone(p.Node), orNone(p.Zone), p.State, p.Used, free)
		if wide {
			fmt.Fprintf(w, "\t%s", counts(p.Sources))
		}
		fmt.Fprintln(w)
	}
	_ = w.Flush()
}

// why is a source's pending reason: its condition's reason and message,
// when something waits or the condition is not True.
func why(s LiveSource) string {
	if s.Pending == 0 && (s.Status == "" || s.Status == "True") {
		return ""
	}
	switch {
	case s.Reason != "" && s.Message != "":
		return s.Reason + ": " + s.Message
	case s.Reason != "":
		return s.Reason
	case s.Pending > 0:
		return "no condition written yet"
	}
	return ""
}

// counts writes name=n pairs, sorted by name, or <none>.
func counts(m map[string]int32) string {
	if len(m) == 0 {
		return "<none>"
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s=%d", n, m[n])
	}
	return strings.Join(parts, ",")
}

func placements(ps []LivePlacement) string {
	if len(ps) == 0 {
		return "<none>"
	}
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("%s=%d", p.Pod, p.VReplicas)
	}
	return strings.Join(parts, ",")
}
