package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/vsched/vsched"
	"github.com/vsched/vsched/framework"
)

func reflectValue(p any) reflect.Value { return reflect.ValueOf(p).Elem() }

// ParseScenario reads a scenario (YAML or JSON) and checks it: its shape,
// every reference (nodes, zones, sources), every value, and the scheduler,
// descheduler and autoscaler configuration it holds. It returns every
// problem found; the scenario is usable only when there is none.
func ParseScenario(file string, data []byte) (*Scenario, Problems) {
	return ReadScenario(file, data, nil)
}

// ReadScenario is ParseScenario checking the configuration against reg
// (nil: the in-tree plugins).
func ReadScenario(file string, data []byte, reg *framework.Registry) (*Scenario, Problems) {
	docs, probs := splitFile(file, data)
	if len(probs) > 0 {
		return nil, probs
	}
	switch len(docs) {
	case 0:
		return nil, Problems{{File: file, Step: -1, Message: "is empty; a scenario starts with \"version: 1\""}}
	case 1:
	default:
		return nil, Problems{{File: file, Line: docs[1].firstLine, Step: -1, Message: fmt.Sprintf("holds %d YAML documents; a scenario is one document", len(docs))}}
	}
	return decodeScenario(docs[0], reg)
}

func decodeScenario(doc *document, reg *framework.Registry) (*Scenario, Problems) {
	s := &Scenario{File: doc.file, doc: doc}
	d := &decoder{doc: doc, stepNames: stepNames(doc.json)}
	if !bytes.HasPrefix(bytes.TrimSpace(doc.json), []byte("{")) {
		d.problem(nil, "a scenario must be a mapping starting with \"version: 1\", not %s", jsonKind(doc.json))
		return nil, d.probs
	}
	d.decode(doc.json, reflectValue(s), nil)
	// Check the values too, so one run reports every problem; problems
	// at (or around) a field that did not decode are left out, as they
	// would only repeat it.
	v := &validator{d: d, s: s, reg: reg, undecoded: map[string]bool{}}
	for _, p := range d.probs {
		v.undecoded[p.Path] = true
	}
	v.validate()
	if len(d.probs) > 0 {
		sortProblems(d.probs)
		return nil, d.probs
	}
	return s, nil
}

// stepNames reads the steps' names ahead of decoding, so that problems in
// a step can name it whatever the order of its keys.
func stepNames(raw json.RawMessage) map[int]string {
	var top struct {
		Steps []json.RawMessage `json:"steps"`
	}
	out := map[int]string{}
	if json.Unmarshal(raw, &top) != nil {
		return out
	}
	for i, st := range top.Steps {
		var n struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(st, &n) == nil && n.Name != "" {
			out[i] = n.Name
		}
	}
	return out
}

// validator checks a decoded scenario's values and references.
type validator struct {
	d   *decoder
	s   *Scenario
	reg *framework.Registry

	nodes map[string]bool
	zones map[string]bool
	// undecoded are the paths of fields that did not decode.
	undecoded map[string]bool
}

func (v *validator) problem(p path, format string, args ...any) {
	for i := len(p); i >= 0; i-- {
		if v.undecoded[p[:i].String()] {
			return
		}
	}
	ps := p.String()
	for u := range v.undecoded {
		if strings.HasPrefix(u, ps+".") || strings.HasPrefix(u, ps+"[") {
			return
		}
	}
	v.d.problem(p, format, args...)
}

func (v *validator) validate() {
	s := v.s
	switch {
	case s.Version == nil:
		v.problem(path{"version"}, "required; write \"version: %d\" at the top", FormatVersion)
	case *s.Version != FormatVersion:
		v.problem(path{"version"}, "version %d is not supported; this vsched reads version %d", *s.Version, FormatVersion)
	}
	v.cluster()
	v.costClasses()
	for k := range numConfigKinds {
		data := [...]ConfigData{s.Scheduler, s.Descheduler, s.Autoscaler}[k]
		if cm := scenarioConfigMap(k, data); cm != nil {
			v.d.probs = append(v.d.probs, checkConfig(k, cm, v.d.doc, true, v.reg)...)
		}
	}
	v.sources()
	v.steps()
}

func (v *validator) cluster() {
	v.clusterZones()
	v.clusterNodes()
	v.statefulSet()
	v.resources()
}

// clusterZones checks the zones and nodesPerZone.
func (v *validator) clusterZones() {
	c := &v.s.Cluster
	cp := path{"cluster"}
	v.zones = map[string]bool{}
	for i, z := range c.Zones {
		zp := cp.key("zones").index(i)
		switch {
		case z == "":
			v.problem(zp, "a zone needs a name")
		case v.zones[z]:
			v.problem(zp, "zone %q is listed twice", z)
		default:
			if msgs := validation.IsValidLabelValue(z); len(msgs) > 0 {
				v.problem(zp, "%q is not a valid zone label value: %s", z, strings.Join(msgs, "; "))
			}
		}
		v.zones[z] = true
	}
	if c.NodesPerZone != nil {
		switch {
		case len(c.Nodes) > 0:
			v.problem(cp.key("nodesPerZone"), "applies only without nodes; with nodes listed, list every node")
		case len(c.Zones) == 0:
			v.problem(cp.key("nodesPerZone"), "needs zones")
		case *c.NodesPerZone < 1:
			v.problem(cp.key("nodesPerZone"), "must be at least 1, not %d", *c.NodesPerZone)
		case *c.NodesPerZone > 1000:
			v.problem(cp.key("nodesPerZone"), "must be at most 1000, not %d", *c.NodesPerZone)
		}
	}
	if len(c.Zones) == 0 && len(c.Nodes) == 0 {
		v.problem(cp, "describe the nodes: give zones (and nodesPerZone), or nodes")
	}
}

// clusterNodes checks the nodes, and records the nodes and zones the
// scenario has.
func (v *validator) clusterNodes() {
	c := &v.s.Cluster
	cp := path{"cluster"}
	v.nodes = map[string]bool{}
	withNodes := map[string]bool{}
	for i, n := range c.Nodes {
		np := cp.key("nodes").index(i)
		switch {
		case n.Name == "":
			v.problem(np.key("name"), "required: every node has a name")
		case v.nodes[n.Name]:
			v.problem(np.key("name"), "node %q is listed twice", n.Name)
		default:
			if msgs := validation.IsDNS1123Subdomain(n.Name); len(msgs) > 0 {
				v.problem(np.key("name"), "%q is not a valid node name: %s", n.Name, strings.Join(msgs, "; "))
			}
		}
		v.nodes[n.Name] = true
		switch {
		case n.Zone == "" && len(c.Zones) > 0:
			v.problem(np.key("zone"), "required: node %q needs one of the zones %s", n.Name, strings.Join(slices.Sorted(maps.Keys(v.zones)), ", "))
		case n.Zone != "" && len(c.Zones) > 0 && !v.zones[n.Zone]:
			v.problem(np.key("zone"), "unknown zone %q%s; the zones are %s", n.Zone, didYouMean(n.Zone, c.Zones), strings.Join(slices.Sorted(maps.Keys(v.zones)), ", "))
		case n.Zone != "" && len(c.Zones) == 0:
			if msgs := validation.IsValidLabelValue(n.Zone); len(msgs) > 0 {
				v.problem(np.key("zone"), "%q is not a valid zone label value: %s", n.Zone, strings.Join(msgs, "; "))
			}
		}
		withNodes[n.Zone] = true
	}
	if len(c.Nodes) > 0 {
		for i, z := range c.Zones {
			if z != "" && !withNodes[z] {
				v.problem(cp.key("zones").index(i), "zone %q has no node", z)
			}
		}
	} else {
		for _, n := range c.nodeList() {
			v.nodes[n.Name] = true
		}
	}
	if len(c.Nodes) == 0 {
		for _, z := range c.Zones {
			v.zones[z] = true
		}
	} else {
		for _, z := range c.zoneList() {
			v.zones[z] = true
		}
	}
}

// statefulSet checks the StatefulSet.
func (v *validator) statefulSet() {
	c := &v.s.Cluster
	cp := path{"cluster"}
	ss := &c.StatefulSet
	sp := cp.key("statefulSet")
	if ss.Namespace != "" {
		if msgs := validation.IsDNS1123Label(ss.Namespace); len(msgs) > 0 {
			v.problem(sp.key("namespace"), "%q is not a valid namespace: %s", ss.Namespace, strings.Join(msgs, "; "))
		}
	}
	if ss.Name != "" {
		if msgs := validation.IsDNS1123Label(ss.Name); len(msgs) > 0 {
			v.problem(sp.key("name"), "%q is not a valid StatefulSet name: %s", ss.Name, strings.Join(msgs, "; "))
		}
	}
	switch {
	case ss.Capacity == nil:
		v.problem(sp.key("capacity"), "required: the most vreplicas one pod holds")
	case *ss.Capacity < 1:
		v.problem(sp.key("capacity"), "must be at least 1, not %d", *ss.Capacity)
	case *ss.Capacity > vsched.MaxCapacity:
		v.problem(sp.key("capacity"), "must be at most %d, not %d", vsched.MaxCapacity, *ss.Capacity)
	}
	if ss.Replicas != nil && *ss.Replicas < 0 {
		v.problem(sp.key("replicas"), "must not be negative, not %d", *ss.Replicas)
	}
	if ss.Replicas != nil && *ss.Replicas > maxReplicas {
		v.problem(sp.key("replicas"), "must be at most %d, not %d", maxReplicas, *ss.Replicas)
	}
	for i, n := range ss.PodNodes {
		if n != "" && !v.nodes[n] {
			v.problem(sp.key("podNodes").index(i), "unknown node %q%s", n, didYouMean(n, slices.Sorted(maps.Keys(v.nodes))))
		}
	}
}

// maxReplicas bounds the StatefulSet a scenario may describe, so a typo
// cannot ask for millions of pods.
const maxReplicas = 10000

func (v *validator) steps() {
	s := v.s
	if len(s.Steps) == 0 && len(s.Sources) == 0 {
		v.problem(path{"steps"}, "required: a scenario has at least one step, or sources")
		return
	}
	exists := map[string]bool{}
	for _, src := range s.Sources {
		exists[src.Source] = true
	}
	for i := range s.Steps {
		st := &s.Steps[i]
		p := path{"steps", i}
		ap := p.key(string(st.Kind))
		switch st.Kind {
		case StepSchedule:
			seen := map[string]bool{}
			for j, sp := range st.Schedule {
				ep := ap
				if st.listed {
					ep = ap.index(j)
				}
				v.sourceSpec(ep, sp, seen, " in this step")
				exists[sp.Source] = true
			}
		case StepDelete:
			v.deleteStep(st, ap, exists)
		case StepCordon, StepUncordon, StepFail, StepRecover:
			switch {
			case st.Node != "" && st.Zone != "":
				v.problem(ap, "give a node or a zone, not both")
			case st.Zone != "":
				if !v.zones[st.Zone] {
					v.problem(ap.key("zone"), "unknown zone %q%s; the zones are %s", st.Zone, didYouMean(st.Zone, slices.Sorted(maps.Keys(v.zones))), strings.Join(slices.Sorted(maps.Keys(v.zones)), ", "))
				}
			default:
				if st.Node == "" {
					v.problem(ap, "required: node or zone")
					continue
				}
				v.checkNode(ap, st.Node)
			}
		case StepAdvance:
			if st.Duration <= 0 {
				v.problem(ap, "must move the clock forward, not by %s", st.Duration)
			}
		case StepSignal:
			if st.Signal != nil {
				v.signalStep(st.Signal, ap)
			}
		case StepTraffic:
			if st.Traffic != nil {
				v.trafficStep(st.Traffic, ap)
			}
		case StepUsage:
			v.usageStep(st, ap)
		}
	}
}

// sourceSpec checks what a schedule step and an initial source both give:
// a valid key, named once in seen (where says within what), vreplicas and
// partitions.
func (v *validator) sourceSpec(p path, sp SourceSpec, seen map[string]bool, where string) {
	v.sourceKey(p.key("source"), sp.Source)
	if seen[sp.Source] {
		v.problem(p.key("source"), "source %s is listed twice%s", sp.Source, where)
	}
	seen[sp.Source] = true
	v.vreplicas(p.key("vreplicas"), sp.VReplicas)
	if sp.Partitions != nil && *sp.Partitions < 1 {
		v.problem(p.key("partitions"), "must be at least 1 when given, not %d", *sp.Partitions)
	}
	v.cost(p.key("cost"), sp.Cost)
}

// maxVReplicas bounds one source's vreplicas: the scheduler refuses more.
const maxVReplicas = vsched.MaxVReplicas

// sources checks the initial sources: valid keys, once each, and
// placements on pods of the StatefulSet.
func (v *validator) sources() {
	seen := map[string]bool{}
	for i, src := range v.s.Sources {
		sp := path{"sources", i}
		v.sourceSpec(sp, SourceSpec{Source: src.Source, VReplicas: src.VReplicas, Partitions: src.Partitions, Cost: src.Cost}, seen, "")
		pods := map[string]bool{}
		for j, pl := range src.Placements {
			pp := sp.key("placements").index(j)
			v.podName(pp.key("podName"), pl.PodName)
			if pods[pl.PodName] {
				v.problem(pp.key("podName"), "pod %s is listed twice", pl.PodName)
			}
			pods[pl.PodName] = true
			if pl.VReplicas < 1 {
				v.problem(pp.key("vreplicas"), "must be at least 1, not %d", pl.VReplicas)
			}
		}
	}
}

// podName checks name is a pod of the scenario's StatefulSet.
func (v *validator) podName(p path, name string) {
	ss := v.s.Cluster.StatefulSet.Name
	if ss == "" {
		ss = DefaultStatefulSet
	}
	ord, err := vsched.OrdinalFromPodName(name)
	switch {
	case name == "":
		v.problem(p, "required: the pod's name")
	case err != nil || vsched.PodName(ss, ord) != name:
		v.problem(p, "%q is not a pod of StatefulSet %s; write %s-ORDINAL", name, ss, ss)
	case ord >= maxReplicas:
		v.problem(p, "ordinal %d is beyond the most replicas a scenario may have (%d)", ord, maxReplicas)
	}
}

// sourceKey checks a source's namespace/name.
func (v *validator) sourceKey(p path, source string) {
	switch key, err := SourceKey(source); {
	case source == "":
		v.problem(p, "required: the source's namespace/name")
	case err != nil:
		v.problem(p, "%v", err)
	default:
		if msgs := validation.IsDNS1123Label(key.Namespace); len(msgs) > 0 {
			v.problem(p, "namespace %q is not valid: %s", key.Namespace, strings.Join(msgs, "; "))
		} else if msgs := validation.IsDNS1123Subdomain(key.Name); len(msgs) > 0 {
			v.problem(p, "name %q is not valid: %s", key.Name, strings.Join(msgs, "; "))
		}
	}
}

// vreplicas checks a source's vreplicas.
func (v *validator) vreplicas(p path, n *int32) {
	switch {
	case n == nil:
		v.problem(p, "required: how many vreplicas the source wants")
	case *n < 0:
		v.problem(p, "must not be negative, not %d", *n)
	case *n > maxVReplicas:
		v.problem(p, "must be at most %d, not %d", maxVReplicas, *n)
	}
}

// deleteStep checks a delete step's sources exist, once each.
func (v *validator) deleteStep(st *Step, ap path, exists map[string]bool) {
	seen := map[string]bool{}
	for j, src := range st.Delete {
		ep := ap
		if st.listed {
			ep = ap.index(j)
		}
		ep = ep.key("source")
		switch _, err := SourceKey(src); {
		case src == "":
			v.problem(ep, "required: the source's namespace/name")
		case err != nil:
			v.problem(ep, "%v", err)
		case seen[src]:
			v.problem(ep, "source %s is listed twice in this step", src)
		case !exists[src]:
			v.problem(ep, "source %s does not exist at this step%s", src, didYouMean(src, slices.Sorted(maps.Keys(exists))))
		}
		seen[src] = true
	}
	for _, src := range st.Delete {
		delete(exists, src)
	}
}

func (v *validator) checkNode(ap path, node string) {
	switch {
	case node == "":
		v.problem(ap.key("node"), "required: the node's name")
	case !v.nodes[node]:
		names := slices.Sorted(maps.Keys(v.nodes))
		list := strings.Join(names, ", ")
		if len(names) > 8 {
			list = strings.Join(names[:8], ", ") + ", ..."
		}
		v.problem(ap.key("node"), "unknown node %q%s; the nodes are %s", node, didYouMean(node, names), list)
	}
}
