package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// FormatVersion is the scenario format this build reads, and the version
// of the JSON result it writes.
const FormatVersion = 1

// Scenario is a described cluster, the scheduling configuration and the
// steps to run against them. See examples/README.md for the format.
type Scenario struct {
	// Version must be FormatVersion.
	Version *int `json:"version"`
	// Name and Description are for people; Name titles the outputs.
	Name        string `json:"name"`
	Description string `json:"description"`
	// Cluster is the nodes and the StatefulSet.
	Cluster Cluster `json:"cluster"`
	// Scheduler, Descheduler and Autoscaler hold what the data of
	// config-scheduler, config-descheduler and config-autoscaler would.
	// nil means the ConfigMap is absent (its defaults apply).
	Scheduler   ConfigData `json:"scheduler"`
	Descheduler ConfigData `json:"descheduler"`
	Autoscaler  ConfigData `json:"autoscaler"`
	// CostClasses name costs that sources refer to by name (cost: heavy):
	// each a cost in the vsched.dev/vreplica-cost format.
	CostClasses Quantities `json:"costClasses"`
	// Sources are the sources that exist before the first step, with
	// their placements (a snapshot of a live cluster has them).
	Sources []InitialSource `json:"sources"`
	// Steps run in order. A scenario with Sources may have none: it then
	// shows the cluster as it stands.
	Steps []Step `json:"steps"`

	// File is where the scenario was read from, for messages.
	File string `json:"-"`
	doc  *document
}

// Cluster describes the nodes and the StatefulSet.
type Cluster struct {
	// Zones lists the zones. With Nodes unset, NodesPerZone nodes named
	// "node-<zone>-<i>" are made in each.
	Zones []string `json:"zones"`
	// NodesPerZone defaults to 1; only without Nodes.
	NodesPerZone *int32 `json:"nodesPerZone"`
	// Nodes lists the nodes one by one.
	Nodes []Node `json:"nodes"`
	// StatefulSet is the StatefulSet whose pods hold vreplicas.
	StatefulSet StatefulSet `json:"statefulSet"`
}

// Node is one node.
type Node struct {
	Name string `json:"name"`
	Zone string `json:"zone"`
	// Cordoned starts the node cordoned.
	Cordoned bool `json:"cordoned"`
	// Ready false starts the node failed (NotReady, tainted unreachable).
	// Defaults to true.
	Ready *bool `json:"ready"`
}

// StatefulSet describes the StatefulSet.
type StatefulSet struct {
	// Namespace defaults to DefaultNamespace, Name to DefaultStatefulSet.
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Replicas is the initial spec.replicas (default 0).
	Replicas *int32 `json:"replicas"`
	// Capacity is the most vreplicas a pod holds. Required.
	Capacity *int32 `json:"capacity"`
	// PodNodes binds pod i to PodNodes[i] whenever it is created; ordinals
	// beyond the list (and "" entries: unbound) follow the default rule,
	// round-robin over the zones as a topology spread constraint does.
	PodNodes []string `json:"podNodes"`
	// Resources is what one pod holds in each resource (memory: 1Gi,
	// cpu: 2), as its containers' limits (else requests) give it: the
	// scheduler keeps every pod within it (statefulset.Config's
	// PodResources), and the cpu and memory triggers measure usage
	// against it. None: slots only.
	Resources Quantities `json:"resources"`
}

// Defaults of the StatefulSet.
const (
	DefaultNamespace   = "vsched"
	DefaultStatefulSet = "adapter"
)

// StepKind says what a step does.
type StepKind string

// The step kinds.
const (
	StepSchedule  StepKind = "schedule"
	StepDelete    StepKind = "delete"
	StepCordon    StepKind = "cordon"
	StepUncordon  StepKind = "uncordon"
	StepFail      StepKind = "fail"
	StepRecover   StepKind = "recover"
	StepAutoscale StepKind = "autoscale"
	StepCompact   StepKind = "compact"
	StepAdvance   StepKind = "advance"
	// StepConfigMap applies a ConfigMap mid-run, as kubectl apply would.
	StepConfigMap StepKind = "configmap"
	// StepSignal sets a source's demand signal; StepTraffic runs the
	// source autoscaler on it over time (issue 22).
	StepSignal  StepKind = "signal"
	StepTraffic StepKind = "traffic"
	// StepUsage sets the pods' measured usage (issue 23), as
	// metrics-server would report it.
	StepUsage StepKind = "usage"
)

// StepKinds lists every step kind, in the order the documentation gives
// them.
var StepKinds = []StepKind{StepSchedule, StepDelete, StepCordon, StepUncordon, StepFail, StepRecover, StepAutoscale, StepCompact, StepAdvance, StepConfigMap, StepSignal, StepTraffic, StepUsage}

// Step is one thing that happens to the cluster or its sources.
type Step struct {
	// Name is optional; the outputs show the step's action without one.
	Name string
	Kind StepKind
	// Schedule lists the sources to create or update (schedule).
	Schedule []SourceSpec
	// Delete lists the sources to delete (delete).
	Delete []string
	// Node is the node to cordon, uncordon, fail or recover; Zone the
	// zone whose every node to. One of them is set.
	Node string
	Zone string
	// Duration is how far to move the clock (advance).
	Duration time.Duration
	// ConfigMap is the ConfigMap to apply (configmap).
	ConfigMap *ConfigMapStep
	// Signal is a source's signal (signal); Traffic how long the source
	// autoscaler runs on the signals, how often (traffic).
	Signal  *SignalSpec
	Traffic *TrafficSpec
	// Usage are the pods' measured usage (usage).
	Usage []PodUsage

	// listed is true when schedule or delete was written as a list.
	listed bool
}

// SourceSpec is a source's desired state in a schedule step.
type SourceSpec struct {
	// Source is "namespace/name".
	Source string `json:"source"`
	// VReplicas is how many vreplicas the source wants. Required.
	VReplicas *int32 `json:"vreplicas"`
	// Partitions is the source's resource count (a Kafka topic's
	// partitions), read by NoMaxResourceCount. Optional.
	Partitions *int32 `json:"partitions"`
	// Cost is what one vreplica costs, as the vsched.dev/vreplica-cost
	// annotation writes it ("memory=512Mi,cpu=250m"), or the name of one
	// of the scenario's costClasses; "" declares none. Omitted on an
	// update, the source keeps its cost.
	Cost *string `json:"cost"`
}

// InitialSource is a source that exists before the first step.
type InitialSource struct {
	// Source is "namespace/name".
	Source string `json:"source"`
	// VReplicas is how many vreplicas the source wants. Required.
	VReplicas *int32 `json:"vreplicas"`
	// Partitions is the source's resource count. Optional.
	Partitions *int32 `json:"partitions"`
	// Cost is what one vreplica costs, as SourceSpec's.
	Cost *string `json:"cost"`
	// Placements are where its vreplicas are: pods of the StatefulSet.
	Placements []InitialPlacement `json:"placements"`
}

// InitialPlacement is some of a source's vreplicas on one pod.
type InitialPlacement struct {
	PodName   string `json:"podName"`
	VReplicas int32  `json:"vreplicas"`
}

// sourceRef is the body of a delete step.
type sourceRef struct {
	Source string `json:"source"`
}

// target is the body of cordon, uncordon, fail and recover steps.
type target struct {
	Node string `json:"node"`
	Zone string `json:"zone"`
}

// stepKeys are the keys a step mapping may hold besides its action.
var stepKeys = []string{"name"}

func (s *Step) decodeAt(d *decoder, raw json.RawMessage, p path) {
	ms, err := members(raw)
	if err != nil {
		d.problem(p, "a step must be a mapping with one action (%s), not %s", kindList(), jsonKind(raw))
		return
	}
	var actions []member
	unknown := false
	for _, m := range ms {
		switch {
		case m.key == "name":
			var name string
			if json.Unmarshal(m.value, &name) != nil {
				d.problem(p.key("name"), "must be a string, not %s", describeValue(m.value))
				continue
			}
			s.Name = name
		case isKind(m.key):
			actions = append(actions, m)
		default:
			unknown = true
			all := append(kindStrings(), stepKeys...)
			d.problem(p.key(m.key), "unknown step %q%s; a step is one of %s", m.key, didYouMean(m.key, all), kindList())
		}
	}
	switch len(actions) {
	case 0:
		if !unknown { // an unknown action was reported already
			d.problem(p, "the step has no action; give one of %s", kindList())
		}
		return
	case 1:
	default:
		keys := make([]string, len(actions))
		for i, a := range actions {
			keys[i] = a.key
		}
		d.problem(p.key(actions[1].key), "a step does one thing, but this one has %s; split it into steps", strings.Join(keys, " and "))
		return
	}
	s.decodeAction(d, actions[0], p.key(actions[0].key))
}

// decodeAction reads the step's action a, at ap.
func (s *Step) decodeAction(d *decoder, a member, ap path) {
	s.Kind = StepKind(a.key)
	switch s.Kind {
	case StepSchedule:
		if bytes.HasPrefix(bytes.TrimSpace(a.value), []byte("[")) {
			s.listed = true
			d.decode(a.value, reflectValue(&s.Schedule), ap)
			if len(s.Schedule) == 0 {
				d.problem(ap, "lists no source")
			}
			return
		}
		if !bytes.HasPrefix(bytes.TrimSpace(a.value), []byte("{")) {
			d.problem(ap, "must be a mapping {source, vreplicas, partitions} or a list of them, not %s", jsonKind(a.value))
			return
		}
		var one SourceSpec
		d.decode(a.value, reflectValue(&one), ap)
		s.Schedule = []SourceSpec{one}
	case StepDelete:
		s.decodeDelete(d, a.value, ap)
	case StepCordon, StepUncordon, StepFail, StepRecover:
		want := "{node: NAME} or {zone: NAME}"
		if !bytes.HasPrefix(bytes.TrimSpace(a.value), []byte("{")) {
			d.problem(ap, "must be a mapping %s, not %s", want, jsonKind(a.value))
			return
		}
		var t target
		d.decode(a.value, reflectValue(&t), ap)
		s.Node, s.Zone = t.Node, t.Zone
	case StepAutoscale, StepCompact:
		v := bytes.TrimSpace(a.value)
		if !isNull(v) && !bytes.Equal(v, []byte("{}")) && !bytes.Equal(v, []byte("true")) {
			d.problem(ap, "takes no settings (write %q), not %s", a.key+": {}", describeValue(a.value))
		}
	case StepConfigMap:
		s.ConfigMap = decodeConfigMapStep(d, a.value, ap)
	case StepSignal:
		s.decodeSignal(d, a.value, ap)
	case StepTraffic:
		s.decodeTraffic(d, a.value, ap)
	case StepUsage:
		s.decodeUsage(d, a.value, ap)
	case StepAdvance:
		var str string
		if json.Unmarshal(a.value, &str) != nil {
			d.problem(ap, "must be a duration such as 5m or 90s, not %s", describeValue(a.value))
			return
		}
		dur, err := time.ParseDuration(strings.TrimSpace(str))
		if err != nil {
			d.problem(ap, "%q is not a duration; write one such as 5m, 90s or 1h30m", str)
			return
		}
		s.Duration = dur
	}
}

// decodeDelete reads a delete step: {source: NAME}, or a list of them as
// schedule takes.
func (s *Step) decodeDelete(d *decoder, raw json.RawMessage, ap path) {
	v := bytes.TrimSpace(raw)
	switch {
	case bytes.HasPrefix(v, []byte("[")):
		s.listed = true
		var refs []sourceRef
		d.decode(raw, reflectValue(&refs), ap)
		if len(refs) == 0 {
			d.problem(ap, "lists no source")
		}
		for _, r := range refs {
			s.Delete = append(s.Delete, r.Source)
		}
	case bytes.HasPrefix(v, []byte("{")):
		var r sourceRef
		d.decode(raw, reflectValue(&r), ap)
		s.Delete = []string{r.Source}
	default:
		d.problem(ap, "must be a mapping {source: namespace/name} or a list of them, not %s", jsonKind(raw))
	}
}

func isKind(s string) bool {
	for _, k := range StepKinds {
		if string(k) == s {
			return true
		}
	}
	return false
}

func kindStrings() []string {
	out := make([]string, len(StepKinds))
	for i, k := range StepKinds {
		out[i] = string(k)
	}
	return out
}

func kindList() string { return strings.Join(kindStrings(), ", ") }

// Describe says what the step does, in a few words: "fail node node-b-0".
func (s *Step) Describe() string {
	switch s.Kind {
	case StepSchedule:
		parts := make([]string, len(s.Schedule))
		for i, sp := range s.Schedule {
			n := int32(0)
			if sp.VReplicas != nil {
				n = *sp.VReplicas
			}
			parts[i] = fmt.Sprintf("%s=%d", sp.Source, n)
		}
		return "schedule " + shortList(parts)
	case StepDelete:
		return "delete " + shortList(s.Delete)
	case StepCordon, StepUncordon, StepFail, StepRecover:
		if s.Zone != "" {
			return string(s.Kind) + " zone " + s.Zone
		}
		return string(s.Kind) + " node " + s.Node
	case StepAdvance:
		return "advance " + s.Duration.String()
	case StepConfigMap:
		if s.ConfigMap != nil {
			return "configmap " + s.ConfigMap.Name
		}
	case StepSignal:
		if s.Signal != nil {
			return "signal " + s.Signal.Source + " " + s.Signal.Shape
		}
	case StepTraffic:
		if s.Traffic != nil {
			return "traffic for " + s.Traffic.dur.String() + " every " + s.Traffic.every.String()
		}
	case StepUsage:
		return "usage " + describeUsage(s.Usage)
	}
	return string(s.Kind)
}

// shortList joins up to 4 items, or 3 and how many more.
func shortList(parts []string) string {
	if len(parts) > 4 {
		parts = append(parts[:3:3], fmt.Sprintf("and %d more", len(parts)-3))
	}
	return strings.Join(parts, " ")
}

// Title is the step's name, or what it does when it has none.
func (s *Step) Title() string {
	if s.Name != "" {
		return s.Name
	}
	return s.Describe()
}

// ConfigData is a ConfigMap's data given inline. Values are strings as in a
// ConfigMap; for convenience a list or mapping is taken as its JSON text
// and a number or boolean as its literal, so
//
//	priorities: [{Name: LowestOrdinalPriority, Weight: 2}]
//	max-replicas: 10
//
// mean what `priorities: '[{"Name":"LowestOrdinalPriority","Weight":2}]'`
// and `max-replicas: "10"` do.
type ConfigData map[string]string

func (c *ConfigData) decodeAt(d *decoder, raw json.RawMessage, p path) {
	ms, ok := d.mapping(raw, p, "a mapping of the ConfigMap's data keys")
	if !ok {
		return
	}
	out := ConfigData{}
	for _, m := range ms {
		v := bytes.TrimSpace(m.value)
		switch {
		case isNull(v):
			out[m.key] = ""
		case v[0] == '"':
			var s string
			_ = json.Unmarshal(v, &s)
			out[m.key] = s
		case v[0] == '{' || v[0] == '[':
			var b bytes.Buffer
			if json.Compact(&b, v) != nil {
				out[m.key] = string(v)
			} else {
				out[m.key] = b.String()
			}
		default:
			out[m.key] = string(v)
		}
	}
	*c = out
}

// SourceKey parses "namespace/name".
func SourceKey(s string) (types.NamespacedName, error) {
	ns, name, ok := strings.Cut(s, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return types.NamespacedName{}, fmt.Errorf("%q is not a source key; write namespace/name", s)
	}
	return types.NamespacedName{Namespace: ns, Name: name}, nil
}

// Zones returns the scenario's zones in order: those listed, or the nodes'
// zones in order of first appearance.
func (c *Cluster) zoneList() []string {
	if len(c.Zones) > 0 {
		return c.Zones
	}
	var out []string
	seen := map[string]bool{}
	for _, n := range c.Nodes {
		if n.Zone != "" && !seen[n.Zone] {
			seen[n.Zone] = true
			out = append(out, n.Zone)
		}
	}
	return out
}

// nodeList returns the scenario's nodes: those listed, or NodesPerZone per
// zone.
func (c *Cluster) nodeList() []Node {
	if len(c.Nodes) > 0 {
		return c.Nodes
	}
	per := int32(1)
	if c.NodesPerZone != nil {
		per = *c.NodesPerZone
	}
	var out []Node
	for _, z := range c.Zones {
		for i := range per {
			out = append(out, Node{Name: fmt.Sprintf("node-%s-%d", z, i), Zone: z})
		}
	}
	return out
}
