package sim

import (
	"github.com/vsched/vsched"
)

// Result is what a simulation did, step by step. Its JSON form (-o json) is
// the stable output format, documented in internal/app/cli/README-section.md:
// fields are only ever added, maps are written with sorted keys, and the
// same scenario always gives byte-identical output.
type Result struct {
	// Version is FormatVersion.
	Version int `json:"version"`
	// Scenario is the scenario's name.
	Scenario string `json:"scenario,omitempty"`
	// StatefulSet is "namespace/name".
	StatefulSet string `json:"statefulSet"`
	// Capacity is the vreplicas one pod holds.
	Capacity int32 `json:"capacity"`
	// Configuration says where the data of config-scheduler,
	// config-descheduler and config-autoscaler (in this order) came from.
	Configuration []ConfigOrigin `json:"configuration"`
	// Warnings are what the scenario and its configuration disagree on
	// (the StatefulSet starts above max-replicas, ...).
	Warnings []string `json:"warnings,omitempty"`
	// Initial is the cluster before the first step, when the scenario
	// gives initial sources: their placements as given, after one
	// reconcile each.
	Initial *StepResult `json:"initial,omitempty"`
	// Steps has one entry per scenario step, in order.
	Steps []StepResult `json:"steps"`
	// Explanations are, with Options.ExplainAll, the last decision about
	// each source in each step, by step index (-1 for the initial
	// sources' reconcile) and source key. Not part of the JSON output.
	Explanations map[int]map[string]*Explained `json:"-"`
}

// ConfigOrigin is where a ConfigMap's data came from.
type ConfigOrigin struct {
	// ConfigMap is the ConfigMap's name.
	ConfigMap string `json:"configMap"`
	// From is FromDefault, FromScenario or the manifest file's name.
	From string `json:"from"`
}

// Where configuration comes from, besides a manifest file.
const (
	FromDefault  = "default"
	FromScenario = "scenario"
)

// StepResult is the cluster after one step (and the requeue that follows
// it).
type StepResult struct {
	// Name is the step's name, or what it does when it has none.
	Name string `json:"name"`
	// Action is what the step does ("fail node node-b-0").
	Action string `json:"action"`
	// Clock is the scenario's time since the start, as a Go duration.
	Clock string `json:"clock"`
	// Replicas is the StatefulSet's spec.replicas.
	Replicas int32 `json:"replicas"`
	// Placements are each source's placements, by "namespace/name",
	// sorted by pod ordinal, with the node and zone the pod is on now.
	Placements map[string][]vsched.Placement `json:"placements"`
	// Pending is, per source, how many vreplicas have no pod (0 included).
	Pending map[string]int32 `json:"pending"`
	// Metrics summarise the placements.
	Metrics Metrics `json:"metrics"`
	// Nodes are the nodes and their state, in scenario order.
	Nodes []NodeState `json:"nodes"`
	// Pods are the StatefulSet's pods by ordinal: every pod that exists,
	// and any pod that is gone but still holds vreplicas.
	Pods []PodState `json:"pods"`
	// Notes say what else happened: the StatefulSet resized, an
	// autoscaler or evictor decision.
	Notes []string `json:"notes,omitempty"`
	// Cycles are a compact step's autoscaler cycles, in order, up to the
	// one that changed nothing; or an advance step's, one per refresh
	// period, with the clock each ran at.
	Cycles []CycleResult `json:"cycles,omitempty"`
	// Traffic are a traffic step's polling intervals where a source's
	// vreplicas, the pods or the pending vreplicas changed, and its last.
	Traffic []TrafficTick `json:"traffic,omitempty"`
	// VReplicas are a traffic step's last source autoscaler decision
	// about each signalled source, with its numbers (vsched explain).
	VReplicas map[string]VReplicaDecision `json:"vreplicaDecisions,omitempty"`
}

// CycleResult is one autoscaler cycle of a compact or advance step.
type CycleResult struct {
	// Cycle counts the step's cycles from 1.
	Cycle int `json:"cycle"`
	// Clock is when an advance step's cycle ran, as StepResult.Clock
	// (a compact step's cycles all run at the step's clock).
	Clock string `json:"clock,omitempty"`
	// Replicas is spec.replicas after the cycle.
	Replicas int32 `json:"replicas"`
	// Draining are the pods marked draining after the cycle.
	Draining []string `json:"draining,omitempty"`
	// Requeued are the sources the evictor requeued; Moved the vreplicas
	// that changed pod when they were scheduled again.
	Requeued []string `json:"requeued,omitempty"`
	Moved    int32    `json:"moved"`
	// Notes are the cycle's Events and decisions, as in the step's notes
	// (which are capped; these are not).
	Notes []string `json:"notes,omitempty"`
}

// Metrics summarise a step's placements.
type Metrics struct {
	// PodsUsed is how many pods hold at least one vreplica.
	PodsUsed int `json:"podsUsed"`
	// LowerBound is ceil(total vreplicas wanted / capacity): the fewest
	// pods that could hold every vreplica.
	LowerBound int `json:"lowerBound"`
	// Moved is how many vreplicas changed pod in this step, over all
	// sources.
	Moved int32 `json:"moved"`
	// VReplicas is the vreplicas every source wants; Pending how many of
	// them have no pod.
	VReplicas int64 `json:"vreplicas"`
	Pending   int64 `json:"pending"`
	// Unavailable is how many vreplicas are placed on pods below the
	// replicas that run nothing: gone, unbound, or on a NotReady node.
	// They are not pending, and not running either.
	Unavailable int64 `json:"unavailable"`
	// Sources are the per-source metrics, by "namespace/name".
	Sources map[string]SourceMetrics `json:"sources"`
}

// SourceMetrics are one source's metrics.
type SourceMetrics struct {
	// VReplicas is how many vreplicas the source wants.
	VReplicas int32 `json:"vreplicas"`
	// ZoneSkew and NodeSkew are max - min of the source's vreplicas over
	// the healthy zones (nodes): a node is healthy when it is Ready, not
	// cordoned, and hosts a pod of the StatefulSet; a zone when it has a
	// healthy node. Vreplicas elsewhere are not counted.
	ZoneSkew int32 `json:"zoneSkew"`
	NodeSkew int32 `json:"nodeSkew"`
	// ZoneSkewAll is the zone skew over every zone with a node, a failed
	// or cordoned zone counting the vreplicas running there (none): a
	// source left 3 / 0 / 3 by a zone failure shows 3. ZoneSkewRoom is
	// the zone skew over the healthy zones with a schedulable pod that has
	// room, the zones a spread rule can still balance: with the default
	// policy it stays within MaxSkew whenever the source could (a full
	// zone does not count).
	ZoneSkewAll  int32 `json:"zoneSkewAll"`
	ZoneSkewRoom int32 `json:"zoneSkewRoom"`
	// Moved is how many of the source's vreplicas changed pod in this
	// step: the smaller of the vreplicas that left pods and those that
	// arrived on pods, so scaling alone moves nothing.
	Moved int32 `json:"moved"`
}

// Node states.
const (
	NodeReady    = "ready"
	NodeCordoned = "cordoned"
	NodeNotReady = "not-ready"
)

// NodeState is one node.
type NodeState struct {
	Name string `json:"name"`
	Zone string `json:"zone,omitempty"`
	// Status is "ready", "cordoned" or "not-ready".
	Status string `json:"status"`
}

// Pod states.
const (
	PodOK        = "ok"
	PodDraining  = "draining"
	PodCordoned  = "node-cordoned"
	PodNotReady  = "node-not-ready"
	PodUnbound   = "unbound"
	PodGone      = "gone"
	PodScaledOut = "beyond-replicas"
)

// PodState is one pod.
type PodState struct {
	Name string `json:"name"`
	Node string `json:"node,omitempty"`
	Zone string `json:"zone,omitempty"`
	// Status is "ok" (takes new vreplicas), "draining", "node-cordoned",
	// "node-not-ready", "unbound", "beyond-replicas" (ordinal at or above
	// the replicas) or "gone" (deleted, yet still holding vreplicas).
	Status string `json:"status"`
	// Used is the vreplicas on the pod; Free is capacity - Used (negative
	// when over capacity).
	Used int32 `json:"used"`
	Free int32 `json:"free"`
	// Resources are the pod's use of each resource, by name, when the
	// StatefulSet has resources or the pod's usage was measured (issue 23).
	Resources []ResourceUse `json:"resources,omitempty"`
}

// ResourceUse is a pod's use of one resource, as quantities ("800Mi").
type ResourceUse struct {
	Name string `json:"name"`
	// Cost is what the declared costs of the vreplicas on the pod add up
	// to; Capacity the pod's capacity in the resource ("" without one).
	// The scheduler keeps Cost within Capacity.
	Cost     string `json:"cost"`
	Capacity string `json:"capacity,omitempty"`
	// Measured is the pod's measured usage, as a usage step set it (""
	// when not measured).
	Measured string `json:"measured,omitempty"`
}
