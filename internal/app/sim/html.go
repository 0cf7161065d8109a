package sim

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
)

// otherSources is the key of the heat map's column summing the sources
// without a column of their own.
const otherSources = "(other sources)"

// htmlPage is what the template renders.
type htmlPage struct {
	Title       string
	Description string
	Cluster     string
	StatefulSet string
	Capacity    int32
	Config      string
	Warnings    []string
	Steps       []htmlStep
	Legend      []htmlSwatch
	Timeline    htmlTimeline
	// Initial is the cluster before step 1, when the scenario gives
	// sources.
	Initial *htmlStep
	// Sources counts the sources of the whole run, for the filter box.
	Sources int
	// Why is the explanations' table, for the page's script.
	Why template.JS
}

type htmlStep struct {
	Index, Of int
	ID        string
	Name      string
	Action    string
	Clock     string
	Replicas  int32
	// ReplicasText is "6 replicas", or "3 -> 6 replicas" after a change.
	ReplicasText string
	Notes        []string
	Metrics      Metrics
	Sources      []htmlSource
	// Others is how many sources the map sums in one column; Shown how
	// many have a column of their own then.
	Others, Shown int
	Map           htmlMap
	Nodes         []NodeState
	// Unchanged: the step left the cluster as the previous one did; its
	// map and table are collapsed.
	Unchanged bool
	// Changed counts the cells whose vreplicas changed in the step.
	Changed int
	// Traffic charts a traffic step's signal, vreplicas, pods, pending.
	Traffic template.HTML
}

type htmlSource struct {
	// Why indexes the source's most recent decision up to the step in
	// the explanations' table, when HasWhy.
	HasWhy     bool
	Why        int
	Key        string
	VReplicas  int32
	Pending    int32
	ZoneSkew   int32
	AllZones   int32
	RoomZones  int32
	NodeSkew   int32
	Moved      int32
	Placements string
}

// htmlMap is one step's heat map: pods (rows, grouped by zone and node) by
type htmlSwatch struct {
	Label string
	Fill  string
	Ink   string
}

// heat returns the fill for a share of a pod's capacity, from pale to deep
// WriteHTML writes the result as one self-contained HTML page (inline CSS
// and SVG, no script loaded from anywhere): per step, the heat map of pods
// by sources grouped by zone and node, each pod's free capacity, the
// sources' metrics and the step's metrics.
func WriteHTML(w io.Writer, s *Scenario, res *Result) error {
	page := htmlPage{
		Title:       res.Scenario,
		Description: oneLine(s.Description),
		Cluster:     describeNodes(s),
		StatefulSet: res.StatefulSet,
		Capacity:    res.Capacity,
		Config:      DescribeConfiguration(res.Configuration),
		Warnings:    res.Warnings,
	}
	if page.Title == "" {
		page.Title = s.File
	}
	for _, share := range []float64{0.1, 0.3, 0.5, 0.7, 1} {
		f, ink := heat(share)
		page.Legend = append(page.Legend, htmlSwatch{Label: fmt.Sprintf("%d%%", int(share*100)), Fill: f, Ink: ink})
	}
	order := zoneOrder(s)
	prev := int32(-1)
	before := res.Initial
	why := newWhyTable()
	if before != nil {
		hs := buildHTMLStep(-1, len(res.Steps), before, res.Capacity, order)
		why.add(res.Explanations[-1])
		why.link(&hs)
		hs.ID, hs.ReplicasText = "initial", fmt.Sprintf("%d replicas", before.Replicas)
		page.Initial, prev = &hs, before.Replicas
	}
	all := map[string]bool{}
	for i := range res.Steps {
		st := &res.Steps[i]
		hs := buildHTMLStep(i, len(res.Steps), st, res.Capacity, order)
		why.add(res.Explanations[i])
		why.link(&hs)
		hs.ReplicasText = strings.Replace(replicasText(prev, hs.Replicas), "replicas ", "", 1) + " replicas"
		hs.Unchanged = before != nil && sameState(before, st)
		hs.Changed = markChanges(&hs.Map, before, st)
		page.Steps = append(page.Steps, hs)
		prev, before = hs.Replicas, st
		for k := range st.Placements {
			all[k] = true
		}
	}
	page.Sources = len(all)
	page.Timeline = buildTimeline(res)
	var err error
	if page.Why, err = why.js(); err != nil {
		return err
	}
	return pageTemplate.Execute(w, page)
}

// markChanges marks the cells whose vreplicas changed since before, with
// what they held and the pods the source's vreplicas left. It returns how
// many changed.
func markChanges(m *htmlMap, before, st *StepResult) int {
	if before == nil {
		return 0
	}
	was := map[string]map[string]int32{} // source -> pod -> vreplicas
	for src, ps := range before.Placements {
		was[src] = map[string]int32{}
		for _, p := range ps {
			was[src][p.PodName] += p.VReplicas
		}
	}
	now := map[string]map[string]int32{}
	for src, ps := range st.Placements {
		now[src] = map[string]int32{}
		for _, p := range ps {
			now[src][p.PodName] += p.VReplicas
		}
	}
	n := 0
	for i := range m.Cells {
		c := &m.Cells[i]
		if c.Source == otherSources || was[c.Source][c.Pod] == c.VReplicas {
			continue
		}
		c.Changed, c.Was = true, was[c.Source][c.Pod]
		var from []string
		for _, pod := range slices.SortedFunc(maps.Keys(was[c.Source]), naturalCompare) {
			if lost := was[c.Source][pod] - now[c.Source][pod]; lost > 0 && c.VReplicas > c.Was {
				from = append(from, fmt.Sprintf("%s (-%d)", pod, lost))
			}
		}
		c.From = strings.Join(from, ", ")
		n++
	}
	return n
}

func buildHTMLStep(i, n int, st *StepResult, capacity int32, order map[string]int) htmlStep {
	hs := htmlStep{
		Index: i + 1, Of: n, ID: fmt.Sprintf("step-%d", i+1),
		Name: st.Name, Clock: st.Clock, Replicas: st.Replicas, Notes: st.Notes, Metrics: st.Metrics, Nodes: st.Nodes,
		Traffic: trafficSVG(st.Traffic),
	}
	if st.Action != st.Name {
		hs.Action = st.Action
	}
	keys := slices.SortedFunc(maps.Keys(st.Placements), naturalCompare)
	on := map[string]map[string]int32{} // pod -> source -> vreplicas
	for _, k := range keys {
		var parts []string
		for _, p := range st.Placements[k] {
			if on[p.PodName] == nil {
				on[p.PodName] = map[string]int32{}
			}
			on[p.PodName][k] += p.VReplicas
			parts = append(parts, fmt.Sprintf("%s=%d", p.PodName, p.VReplicas))
		}
		m := st.Metrics.Sources[k]
		hs.Sources = append(hs.Sources, htmlSource{
			Key: k, VReplicas: m.VReplicas, Pending: st.Pending[k], ZoneSkew: m.ZoneSkew, AllZones: m.ZoneSkewAll, RoomZones: m.ZoneSkewRoom, NodeSkew: m.NodeSkew, Moved: m.Moved,
			Placements: strings.Join(parts, " "),
		})
	}
	cols, others := mapColumns(keys, st, on)
	if len(others) > 0 {
		hs.Others, hs.Shown = len(others), maxHTMLSources
	}
	hs.Map = layoutMap(cols, len(others), sortPods(st.Pods, order), on, capacity)
	return hs
}

// mapColumns chooses the heat map's columns: every source, or with many
// of them the biggest maxHTMLSources and a column summing the others (the
// table below the map lists every placement), whose vreplicas it adds to
// on under otherSources.
func mapColumns(keys []string, st *StepResult, on map[string]map[string]int32) (cols, others []string) {
	if len(keys) <= maxHTMLSources {
		return keys, nil
	}
	bySize := append([]string(nil), keys...)
	sort.SliceStable(bySize, func(i, j int) bool {
		return st.Metrics.Sources[bySize[i]].VReplicas > st.Metrics.Sources[bySize[j]].VReplicas
	})
	cols = append([]string(nil), bySize[:maxHTMLSources]...)
	slices.SortFunc(cols, naturalCompare)
	others = bySize[maxHTMLSources:]
	for pod, bySrc := range on {
		for _, k := range others {
			on[pod][otherSources] += bySrc[k]
		}
	}
	return append(cols, otherSources), others
}

// layoutMap places the heat map's labels, columns, rows and cells.

// The page's template: html_page.tmpl is the page, html_section.tmpl a
// step's section, which the page calls for the initial state and each
// step.
var (
	//go:embed html_page.tmpl
	pageText string
	//go:embed html_section.tmpl
	sectionText string

	pageTemplate = template.Must(template.Must(template.New("page").Parse(pageText)).Parse(sectionText))
)
