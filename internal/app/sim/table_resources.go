package sim

import (
	"maps"
	"slices"
	"strings"
)

// resourceColumns are the pods' resources a step's table shows, sorted,
// and whether any pod's usage was measured; none without resources.
func resourceColumns(pods []PodState) (names []string, measured bool) {
	seen := map[string]bool{}
	for _, p := range pods {
		for _, r := range p.Resources {
			if r.Capacity != "" {
				seen[r.Name] = true
			}
			if r.Measured != "" {
				measured = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen)), measured
}

// resourceHeader is the columns' headers: MEMORY, CPU..., MEASURED.
func resourceHeader(names []string, measured bool) []string {
	out := make([]string, 0, len(names)+1)
	for _, n := range names {
		out = append(out, strings.ToUpper(n))
	}
	if measured {
		out = append(out, "MEASURED")
	}
	return out
}

// resourceCells is a pod's cells under resourceHeader: its vreplicas'
// cost over its capacity per resource (850Mi/1Gi), then its measured usage
// (cpu=900m,memory=700Mi; - when not measured).
func resourceCells(p PodState, names []string, measured bool) []string {
	by := map[string]ResourceUse{}
	for _, r := range p.Resources {
		by[r.Name] = r
	}
	out := make([]string, 0, len(names)+1)
	for _, n := range names {
		r, ok := by[n]
		if !ok {
			out = append(out, "-")
			continue
		}
		out = append(out, r.Cost+"/"+r.Capacity)
	}
	if measured {
		out = append(out, measuredText(p.Resources))
	}
	return out
}

// measuredText is a pod's measured usage, "cpu=900m,memory=700Mi", or "-".
func measuredText(rs []ResourceUse) string {
	var parts []string
	for _, r := range rs {
		if r.Measured != "" {
			parts = append(parts, r.Name+"="+r.Measured)
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ",")
}

// resourceLegend explains the resource columns, for a result that has
// them.
const resourceLegend = `  Resources, with pod resources or measured usage: a column per resource
            of the pods (CPU, MEMORY, ...): what the declared costs of the
            pod's vreplicas add up to over the pod's capacity (850Mi/1Gi);
            MEASURED the pod's measured usage, as a usage step set it (-
            when not measured).
`

// hasResources reports whether any step of the result shows resources.
func hasResources(res *Result) bool {
	steps := res.Steps
	if res.Initial != nil {
		steps = append([]StepResult{*res.Initial}, steps...)
	}
	for i := range steps {
		for _, p := range steps[i].Pods {
			if len(p.Resources) > 0 {
				return true
			}
		}
	}
	return false
}
