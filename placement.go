package vsched

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Placement says how many of a source's vreplicas run on one pod. It is the
// shape sources keep in status.placements. ZoneName and NodeName record where
// the pod was when the vreplicas were placed, for people reading the status;
// scheduling decisions always use the live cluster instead.
type Placement struct {
	PodName   string `json:"podName"`
	ZoneName  string `json:"zoneName,omitempty"`
	NodeName  string `json:"nodeName,omitempty"`
	VReplicas int32  `json:"vreplicas"`
}

// PlacementForPod returns the placement on podName, or nil.
func PlacementForPod(placements []Placement, podName string) *Placement {
	for i := range placements {
		if placements[i].PodName == podName {
			return &placements[i]
		}
	}
	return nil
}

// PodCount returns how many distinct pods hold at least one vreplica.
func PodCount(placements []Placement) int {
	seen := make(map[string]struct{}, len(placements))
	for _, p := range placements {
		if p.VReplicas > 0 {
			seen[p.PodName] = struct{}{}
		}
	}
	return len(seen)
}

// TotalVReplicas returns the sum of vreplicas over placements, saturated to
// the int32 range: placements read from a status are input, and a sum that
// wrapped would turn "too many" into "too few" (or negative). Placements
// the scheduler returns never come near the limits; use TotalVReplicas64
// for the exact sum of arbitrary ones.
func TotalVReplicas(placements []Placement) int32 {
	return int32(max(min(TotalVReplicas64(placements), math.MaxInt32), math.MinInt32))
}

// TotalVReplicas64 returns the exact sum of vreplicas over placements.
func TotalVReplicas64(placements []Placement) int64 {
	var n int64
	for _, p := range placements {
		n += int64(p.VReplicas)
	}
	return n
}

// PodName returns the name of the StatefulSet pod with the given ordinal.
func PodName(statefulSetName string, ordinal int32) string {
	return statefulSetName + "-" + strconv.FormatInt(int64(ordinal), 10)
}

// OrdinalOf returns the ordinal of podName when it names a pod of the
// StatefulSet statefulSetName, exactly as the StatefulSet controller names
// it, and false for any other name (another StatefulSet's pod, a malformed
// or zero-padded ordinal).
func OrdinalOf(statefulSetName, podName string) (int32, bool) {
	// OrdinalFromPodName accepts only the canonical ordinal, so the name is
	// PodName(statefulSetName, ord) exactly when what precedes its last dash
	// is statefulSetName: compared in place rather than by building the
	// name, a concatenation for every placement of every decision.
	ord, err := OrdinalFromPodName(podName)
	if err != nil || strings.LastIndexByte(podName, '-') != len(statefulSetName) || !strings.HasPrefix(podName, statefulSetName) {
		return -1, false
	}
	return ord, true
}

// OrdinalFromPodName parses the ordinal of a StatefulSet pod name
// ("<statefulset>-<ordinal>"). It never panics: a name without a numeric
// suffix, or with a negative or out-of-range one, is an error naming it.
func OrdinalFromPodName(podName string) (int32, error) {
	i := strings.LastIndexByte(podName, '-')
	switch {
	case i < 0 || i == len(podName)-1:
		return -1, fmt.Errorf("pod name %q has no ordinal suffix", podName)
	case i == 0:
		return -1, fmt.Errorf("pod name %q has no StatefulSet name before its ordinal", podName)
	case podName[i-1] == '-':
		// A StatefulSet name cannot end in '-', so "web--1" can only be a
		// negative ordinal, not pod 1 of "web-".
		return -1, fmt.Errorf("pod name %q has a negative ordinal", podName)
	}
	suffix := podName[i+1:]
	// StatefulSet pods are named with strconv's canonical form; accepting
	// "01" too would let two names denote one pod.
	if len(suffix) > 1 && suffix[0] == '0' {
		return -1, fmt.Errorf("pod name %q has a malformed ordinal %q", podName, suffix)
	}
	// ParseUint rejects signs, so "+1" is malformed; bitSize 31 keeps the
	// result within int32.
	n, err := strconv.ParseUint(suffix, 10, 31)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return -1, fmt.Errorf("pod name %q has an ordinal %q out of range", podName, suffix)
		}
		return -1, fmt.Errorf("pod name %q has a malformed ordinal %q", podName, suffix)
	}
	return int32(n), nil
}

// SortPlacements sorts placements by pod ordinal, in place. Names without a
// valid ordinal sort after every valid one, by name, so the order is total
// and deterministic even for bad input.
func SortPlacements(placements []Placement) {
	sort.SliceStable(placements, func(i, j int) bool {
		oi, ei := OrdinalFromPodName(placements[i].PodName)
		oj, ej := OrdinalFromPodName(placements[j].PodName)
		switch {
		case ei == nil && ej == nil:
			if oi != oj {
				return oi < oj
			}
			return placements[i].PodName < placements[j].PodName
		case ei == nil:
			return true
		case ej == nil:
			return false
		default:
			return placements[i].PodName < placements[j].PodName
		}
	})
}

// ValidatePlacements reports the first problem that would make placements
// unsafe to build on: a negative count, a pod name without an ordinal, or a
// pod listed twice (two names with one ordinal count as the same pod, since
// placements all name pods of one StatefulSet). Zero-count entries are
// allowed and ignored, whatever their name, as framework.NewDecision ignores
// them.
func ValidatePlacements(placements []Placement) error {
	seen := make(map[int32]int, len(placements))
	for i, p := range placements {
		if p.VReplicas < 0 {
			return fmt.Errorf("placements[%d] (pod %q): vreplicas is negative (%d)", i, p.PodName, p.VReplicas)
		}
		if p.VReplicas == 0 {
			continue
		}
		ord, err := OrdinalFromPodName(p.PodName)
		if err != nil {
			return fmt.Errorf("placements[%d]: %w", i, err)
		}
		if j, dup := seen[ord]; dup {
			return fmt.Errorf("placements[%d]: pod %q already listed at placements[%d] (%q)", i, p.PodName, j, placements[j].PodName)
		}
		seen[ord] = i
	}
	return nil
}

// SamePlacements reports whether a and b put the same number of vreplicas on
// every pod, in whatever order they list them; zone and node names and empty
// entries do not matter, and a pod listed twice counts the sum.
func SamePlacements(a, b []Placement) bool {
	// Schedule and Observe mostly compare lists sorted the same way; equal
	// entries in the same order need no counting.
	if len(a) == len(b) {
		same := true
		for i := range a {
			if a[i].PodName != b[i].PodName || a[i].VReplicas != b[i].VReplicas {
				same = false
				break
			}
		}
		if same {
			return true
		}
	}
	// Summed in int64: placements may come from a status, and a pod
	// listed twice near MaxInt32 must not wrap to a small count.
	count := func(ps []Placement) map[string]int64 {
		m := make(map[string]int64, len(ps))
		for _, p := range ps {
			if p.VReplicas != 0 {
				m[p.PodName] += int64(p.VReplicas)
			}
		}
		return m
	}
	ma, mb := count(a), count(b)
	if len(ma) != len(mb) {
		return false
	}
	for k, v := range ma {
		if mb[k] != v {
			return false
		}
	}
	return true
}
