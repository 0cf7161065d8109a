package sim

import (
	"fmt"
	"html/template"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
)

// The heat map's geometry, in pixels.
const (
	rowHeight   = 22
	cellWidth   = 46
	charWidth   = 7.2
	labelPad    = 12
	freeWidth   = 100
	freeText    = 70
	statusWidth = 130
	groupGap    = 6
	// maxHTMLSources is the most sources the heat map shows in columns of
	// their own.
	maxHTMLSources = 40
	// maxLabel is the most characters of a source's name a column header
	// shows; the full name is in its tooltip.
	maxLabel = 28
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
// sources (columns), then each pod's free capacity.
type htmlMap struct {
	Width, Height int
	// HeadY is the baseline of the column headers.
	HeadY   int
	Columns []htmlColumn
	Rows    []htmlRow
	Cells   []htmlCell
	Groups  []htmlGroup
	FreeX   int
	StatusX int
	LabelX  [3]int // zone, node, pod label columns
}

type htmlColumn struct {
	X, Y  int
	Label string
	Key   string
}

type htmlRow struct {
	Y, TextY     int
	Pod          string
	Zone, Node   string
	ShowZone     bool
	ShowNode     bool
	Status       string
	Bad          bool
	Used, Free   int32
	UsedW, FullW int
	FreeText     string
	FreeTextX    int
	Over         bool
	// GridX and GridW span the row's cells, drawn as its background.
	GridX, GridW int
}

type htmlCell struct {
	X, Y      int
	TextX     int
	TextY     int
	Pod       string
	Source    string
	VReplicas int32
	Fill      string
	Ink       string
	// Changed: the cell's vreplicas differ from the previous step's;
	// Was is what it held then, From the pods the source's vreplicas
	// left in the step.
	Changed bool
	Was     int32
	From    string
}

type htmlGroup struct {
	Y, Height int
	Zone      string
}

type htmlSwatch struct {
	Label string
	Fill  string
	Ink   string
}

// heat returns the fill for a share of a pod's capacity, from pale to deep
// blue, and the ink that reads on it.
func heat(share float64) (fill, ink string) {
	share = math.Max(0, math.Min(1, share))
	// Pale blue to deep blue, in steps a screenshot can tell apart.
	from := [3]float64{0xde, 0xeb, 0xf7}
	to := [3]float64{0x08, 0x30, 0x6b}
	var c [3]int
	for i := range c {
		c[i] = int(math.Round(from[i] + (to[i]-from[i])*share))
	}
	ink = "#0b1f3a"
	if share > 0.45 {
		ink = "#ffffff"
	}
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2]), ink
}

func textWidth(s string) int { return int(math.Ceil(float64(len([]rune(s))) * charWidth)) }

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
func layoutMap(keys []string, others int, pods []PodState, on map[string]map[string]int32, capacity int32) htmlMap {
	var zoneW, nodeW, podW int
	for _, p := range pods {
		zoneW = max(zoneW, textWidth(p.Zone))
		nodeW = max(nodeW, textWidth(p.Node))
		podW = max(podW, textWidth(p.Name))
	}
	zoneW, nodeW, podW = max(zoneW, textWidth("zone")), max(nodeW, textWidth("node")), max(podW, textWidth("pod"))
	var m htmlMap
	m.LabelX = [3]int{labelPad, labelPad + zoneW + labelPad, labelPad + zoneW + labelPad + nodeW + labelPad}
	gridX := m.LabelX[2] + podW + labelPad
	headHeight := m.addColumns(keys, others, gridX)
	m.FreeX = gridX + len(keys)*cellWidth + labelPad
	m.StatusX = m.FreeX + freeWidth + freeText + labelPad
	y := headHeight
	lastZone, lastNode := "\x00", "\x00"
	for _, p := range pods {
		zone, node := p.Zone, p.Node
		if node == "" {
			zone, node = "-", "-"
		}
		newZone := zone != lastZone
		if newZone && lastZone != "\x00" {
			y += groupGap
		}
		m.addRow(p, y, zone, node, newZone, newZone || node != lastNode, gridX, keys, on, capacity)
		lastZone, lastNode = zone, node
		y += rowHeight
	}
	m.Height = y + labelPad
	m.Width = m.StatusX + statusWidth
	return m
}

// addColumns labels the columns, and returns the headers' height.
func (m *htmlMap) addColumns(keys []string, others, gridX int) int {
	labels := sourceLabels(keys)
	if others > 0 {
		labels = append(sourceLabels(keys[:len(keys)-1]), fmt.Sprintf("%d other sources", others))
	}
	longest := 0
	for c := range labels {
		if r := []rune(labels[c]); len(r) > maxLabel {
			labels[c] = string(r[:maxLabel-1]) + "…"
		}
		longest = max(longest, textWidth(labels[c]))
	}
	// Headers are rotated 40 degrees: their height is sin(40°) of their
	// length.
	headHeight := max(28, int(math.Ceil(float64(longest)*math.Sin(40*math.Pi/180)))+20)
	m.HeadY = headHeight - 8
	for c, k := range keys {
		m.Columns = append(m.Columns, htmlColumn{X: gridX + c*cellWidth + cellWidth/2 - 4, Y: m.HeadY, Label: labels[c], Key: k})
	}
	return headHeight
}

// addRow adds a pod's row at y, its zone group, and its cells.
func (m *htmlMap) addRow(p PodState, y int, zone, node string, newZone, showNode bool, gridX int, keys []string, on map[string]map[string]int32, capacity int32) {
	row := htmlRow{
		Y: y, TextY: y + rowHeight/2 + 4, Pod: p.Name, Zone: zone, Node: node,
		ShowZone: newZone, ShowNode: showNode,
		Used: p.Used, Free: p.Free, FullW: freeWidth,
		FreeText: fmt.Sprintf("%d free", p.Free), FreeTextX: m.FreeX + freeWidth + 6, Over: p.Free < 0,
		GridX: gridX + 1, GridW: len(keys)*cellWidth - 2,
	}
	if p.Status != PodOK {
		row.Status, row.Bad = p.Status, true
	}
	if capacity > 0 {
		row.UsedW = int(math.Round(float64(freeWidth) * math.Min(1, float64(max(p.Used, 0))/float64(capacity))))
	}
	m.Rows = append(m.Rows, row)
	if newZone {
		m.Groups = append(m.Groups, htmlGroup{Y: y, Zone: zone})
	}
	m.Groups[len(m.Groups)-1].Height = y + rowHeight - m.Groups[len(m.Groups)-1].Y
	for c, k := range keys {
		v := on[p.Name][k]
		if v <= 0 {
			// Empty cells are the row's background.
			continue
		}
		fill, ink := heat(float64(v) / float64(capacity))
		x := gridX + c*cellWidth
		m.Cells = append(m.Cells, htmlCell{
			X: x + 1, Y: y + 1, TextX: x + cellWidth/2, TextY: y + rowHeight/2 + 4,
			Pod: p.Name, Source: k, VReplicas: v, Fill: fill, Ink: ink,
		})
	}
}

var pageTemplate = template.Must(template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="vsched simulate">
<title>vsched simulation: {{.Title}}</title>
<style>
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 0; color: #1d2530; background: #ffffff; }
header { padding: 20px 28px 12px; border-bottom: 1px solid #d9dee5; background: #f4f6f9; }
h1 { font-size: 22px; margin: 0 0 6px; }
h2 { font-size: 18px; margin: 0 0 4px; }
p { margin: 4px 0; }
nav ol { margin: 8px 0 0; padding-left: 22px; columns: 2; }
main { padding: 8px 28px 40px; }
section.step { border-bottom: 1px solid #e3e7ec; padding: 18px 0; }
.action { color: #4a5563; }
.notes { margin: 6px 0; padding-left: 20px; color: #7a4b00; }
dl.metrics { display: flex; flex-wrap: wrap; gap: 6px 18px; margin: 10px 0; }
dl.metrics div { background: #eef2f7; border-radius: 4px; padding: 3px 10px; }
dl.metrics dt { display: inline; color: #4a5563; }
dl.metrics dd { display: inline; margin: 0 0 0 6px; font-weight: 600; }
.heat { overflow-x: auto; }
svg text { font: 12px system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
svg .head { font-weight: 600; fill: #4a5563; }
svg .zone { font-weight: 600; fill: #1d2530; }
svg .bad { fill: #b3261e; }
svg .zero { fill: #9aa3ad; }
table { border-collapse: collapse; margin-top: 8px; }
th, td { padding: 3px 10px; border-bottom: 1px solid #e3e7ec; text-align: right; }
th:first-child, td:first-child, .placements { text-align: left; }
td.placements { color: #4a5563; font-size: 12px; }
td.pending { color: #b3261e; font-weight: 600; }
.legend span { display: inline-block; padding: 1px 8px; margin-right: 4px; border-radius: 3px; font-size: 12px; }
.nodes span { margin-right: 10px; }
.nodes .cordoned { color: #7a4b00; }
.nodes .not-ready { color: #b3261e; }
.warning { color: #b3261e; font-weight: 600; }
svg.timeline { background: #ffffff; border: 1px solid #d9dee5; border-radius: 4px; margin-top: 8px; }
svg.timeline .axis { stroke: #9aa3ad; }
.series span { margin-right: 12px; font-size: 12px; }
.series i { display: inline-block; width: 14px; height: 3px; vertical-align: middle; margin-right: 4px; }
.filterbar { position: sticky; top: 0; z-index: 2; background: #ffffffee; padding: 8px 0; border-bottom: 1px solid #e3e7ec; }
.filterbar input { font: inherit; padding: 3px 8px; width: 280px; }
table.sources thead th { position: sticky; top: 44px; background: #ffffff; z-index: 1; }
section.unchanged h2 { color: #4a5563; }
details > summary { cursor: pointer; color: #4a5563; margin: 6px 0; }
rect.changed { stroke: #e8590c; stroke-width: 2; }
details.why pre { font-size: 11px; text-align: left; background: #f6f7f9; padding: 6px; overflow-x: auto; max-width: 1100px; }
</style>
</head>
<body data-steps="{{len .Steps}}">
<header>
<h1>vsched simulation: {{.Title}}</h1>
{{if .Description}}<p>{{.Description}}</p>{{end}}
<p>StatefulSet {{.StatefulSet}}, {{.Capacity}} vreplicas per pod; {{.Cluster}}</p>
<p class="config">Configuration: {{.Config}}</p>
{{range .Warnings}}<p class="warning">Warning: {{.}}</p>
{{end}}<p class="legend">Cells: a source's vreplicas on a pod, shaded by their share of the pod's capacity: {{range .Legend}}<span style="background: {{.Fill}}; color: {{.Ink}}">{{.Label}}</span>{{end}}</p>
{{with .Timeline}}<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="replicas, pending, pods used and moved across the steps">
<line class="axis" x1="44" y1="{{.Bottom}}" x2="{{.Right}}" y2="{{.Bottom}}"/>
<line class="axis" x1="44" y1="12" x2="44" y2="{{.Bottom}}"/>
<text x="6" y="20">{{.Max}}</text><text x="30" y="{{.Bottom}}">0</text>
{{range .Ticks}}<text x="{{.X}}" y="{{.Y}}" text-anchor="middle">{{.Label}}</text>
{{end}}{{range .Series}}<g class="series" data-series="{{.Name}}" data-values="{{.Values}}"><polyline points="{{.Points}}" fill="none" stroke="{{.Color}}" stroke-width="2"/>
{{$c := .Color}}{{range .Dots}}<circle cx="{{.X}}" cy="{{.Y}}" r="3" fill="{{$c}}"><title>{{.Title}}</title></circle>{{end}}</g>
{{end}}</svg>
<p class="series">Across the steps (x: step): {{range .Series}}<span><i style="background: {{.Color}}"></i>{{.Name}}</span>{{end}}</p>{{end}}
<nav><ol>{{range .Steps}}<li><a href="#{{.ID}}">{{.Name}}</a>{{if .Unchanged}} (unchanged){{end}}</li>{{end}}</ol></nav>
</header>
<main>
<div class="filterbar"><label>Sources: <input id="filter" type="search" placeholder="filter the {{.Sources}} sources by name" autocomplete="off"></label> <span id="filtered"></span></div>
{{with .Initial}}{{template "section" .}}{{end}}{{range .Steps}}{{template "section" .}}{{end}}</main>
<script>
// Marks the page as fully rendered, for the report's browser test: it counts
// every step and every cell (one per placement) of the heat maps.
(function () {
  var cells = document.querySelectorAll("section.step rect.cell").length;
  var steps = document.querySelectorAll("section.step").length;
  document.body.setAttribute("data-rendered", steps + " steps, " + cells + " cells");
})();
// The filter box shows only the sources whose name holds what is typed:
// their table rows, map columns and cells.
(function () {
  var box = document.getElementById("filter");
  var items = document.querySelectorAll("[data-source]");
  box.addEventListener("input", function () {
    var q = box.value.trim().toLowerCase(), shown = {};
    for (var i = 0; i < items.length; i++) {
      var k = items[i].getAttribute("data-source"), on = q === "" || k.toLowerCase().indexOf(q) >= 0;
      items[i].style.display = on ? "" : "none";
      if (on) { shown[k] = true; }
    }
    document.getElementById("filtered").textContent = q === "" ? "" : Object.keys(shown).length + " shown";
  });
})();
// A source's "why" shows its most recent decision up to the step, as
// "vsched explain" prints it, built from the explanations' table when it
// is first opened: strings are indexes into why.s, a decision is
// [key, where, verb, changed, asked, pending, decision, steps...], a step
// [head, winner, then pod, node, zone and verdict of each candidate].
(function () {
  var why = {{.Why}}, S = why.s;
  function pad(s, n) { while (s.length < n) { s += " "; } return s; }
  function explain(d) {
    var key = S[d[0]], pw = 12, nw = 4, zw = 4, i, j, st;
    var out = "Decision about " + key + ": " + S[d[1]] + ", " + S[d[2]] + " " + d[3] + " of " + d[4] +
      " vreplica(s) asked, " + d[5] + " pending.\n" + S[0] + "\n" + key + ": " + S[d[6]] + "\n";
    for (i = 7; i < d.length; i++) {
      for (j = 2; j < d[i].length; j += 4) {
        pw = Math.max(pw, S[d[i][j]].length); nw = Math.max(nw, S[d[i][j + 1]].length); zw = Math.max(zw, S[d[i][j + 2]].length);
      }
    }
    for (i = 7; i < d.length; i++) {
      st = d[i];
      out += S[st[0]] + "\n";
      for (j = 2; j < st.length; j += 4) {
        out += "  " + ((j - 2) / 4 === st[1] ? "*" : " ") + " " + pad(S[st[j]], pw) + " " + pad(S[st[j + 1]], nw) + " " +
          pad(S[st[j + 2]], zw) + " " + S[st[j + 3]] + "\n";
      }
    }
    return out;
  }
  // toggle does not bubble: listen while it is captured.
  document.addEventListener("toggle", function (ev) {
    var el = ev.target;
    if (!el.classList || !el.classList.contains("why") || !el.open || el.querySelector("pre")) { return; }
    var pre = document.createElement("pre");
    pre.textContent = explain(why.d[+el.getAttribute("data-why")]);
    el.appendChild(pre);
  }, true);
})();
</script>
</body>
</html>
`)).Parse(`{{define "section"}}<section class="{{if .Index}}step{{else}}initial{{end}}{{if .Unchanged}} unchanged{{end}}" id="{{.ID}}" data-step="{{.Index}}" data-replicas="{{.Replicas}}" data-changed="{{.Changed}}">
<h2>{{if .Index}}Step {{.Index}}/{{.Of}}: {{else}}Before step 1: {{end}}{{.Name}}</h2>
<p class="action">{{if .Action}}{{.Action}} · {{end}}clock {{.Clock}} · {{.ReplicasText}}</p>
{{if .Notes}}<ul class="notes">{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{.Traffic}}
<dl class="metrics">
<div><dt>podsUsed</dt><dd class="podsUsed">{{.Metrics.PodsUsed}}</dd></div>
<div><dt>lowerBound</dt><dd class="lowerBound">{{.Metrics.LowerBound}}</dd></div>
<div><dt>vreplicas</dt><dd class="vreplicas">{{.Metrics.VReplicas}}</dd></div>
<div><dt>pending</dt><dd class="pending">{{.Metrics.Pending}}</dd></div>
<div><dt>moved</dt><dd class="moved">{{.Metrics.Moved}}</dd></div>
</dl>
<p class="nodes">{{range .Nodes}}<span class="{{.Status}}">{{.Name}}{{if .Zone}} ({{.Zone}}){{end}}: {{.Status}}</span>{{end}}</p>
<details{{if not .Unchanged}} open{{end}}><summary>{{if .Unchanged}}Unchanged from the previous step: its pods, placements and metrics{{else}}Pods by sources{{if .Changed}}: {{.Changed}} cell(s) changed, outlined{{end}}{{end}}</summary>
{{if .Others}}<p class="action">The map has a column for each of the {{.Shown}} sources with the most vreplicas, and one summing the other {{.Others}}; the table below lists every placement.</p>{{end}}
<div class="heat">
{{with .Map}}<svg xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="vreplicas per pod and source">
<text class="head" x="{{index .LabelX 0}}" y="{{.HeadY}}">zone</text>
<text class="head" x="{{index .LabelX 1}}" y="{{.HeadY}}">node</text>
<text class="head" x="{{index .LabelX 2}}" y="{{.HeadY}}">pod</text>
{{range .Columns}}<text class="head source" data-source="{{.Key}}" transform="translate({{.X}} {{.Y}}) rotate(-40)"><title>{{.Key}}</title>{{.Label}}</text>
{{end}}<text class="head" x="{{.FreeX}}" y="{{.HeadY}}">free capacity</text>
{{range .Groups}}<rect class="group" x="4" y="{{.Y}}" width="4" height="{{.Height}}" fill="#8aa4c8"/>
{{end}}{{$free := .FreeX}}{{$status := .StatusX}}{{$lx := .LabelX}}{{range .Rows}}<g class="pod" data-pod="{{.Pod}}" data-node="{{.Node}}" data-zone="{{.Zone}}" data-used="{{.Used}}" data-free="{{.Free}}">
{{if .ShowZone}}<text class="zone" x="{{index $lx 0}}" y="{{.TextY}}">{{.Zone}}</text>{{end}}
{{if .ShowNode}}<text x="{{index $lx 1}}" y="{{.TextY}}">{{.Node}}</text>{{end}}
<text{{if .Bad}} class="bad"{{end}} x="{{index $lx 2}}" y="{{.TextY}}">{{.Pod}}</text>
<rect class="row" x="{{.GridX}}" y="{{.Y}}" width="{{.GridW}}" height="20" fill="#f6f7f9"/>
<rect class="capacity" x="{{$free}}" y="{{.Y}}" width="{{.FullW}}" height="20" fill="#cfe8cf" stroke="#9cc79c"/>
<rect class="used" x="{{$free}}" y="{{.Y}}" width="{{.UsedW}}" height="20" fill="#a9b4c2"/>
<text class="free{{if .Over}} bad{{end}}" x="{{.FreeTextX}}" y="{{.TextY}}">{{.FreeText}}</text>
{{if .Status}}<text class="bad status" x="{{$status}}" y="{{.TextY}}">{{.Status}}</text>{{end}}
</g>
{{end}}{{range .Cells}}<rect class="{{if eq .Source "(other sources)"}}others{{else}}cell{{end}}{{if .Changed}} changed{{end}}" x="{{.X}}" y="{{.Y}}" width="44" height="20" rx="2" fill="{{.Fill}}" data-pod="{{.Pod}}" data-source="{{.Source}}" data-vreplicas="{{.VReplicas}}"{{if .Changed}} data-was="{{.Was}}"{{end}}><title>{{.Pod}} · {{.Source}}: {{.VReplicas}} vreplica(s){{if .Changed}}, was {{.Was}}{{if .From}}; came from {{.From}}{{end}}{{end}}</title></rect>
{{if .VReplicas}}<text class="num" data-source="{{.Source}}" x="{{.TextX}}" y="{{.TextY}}" text-anchor="middle" fill="{{.Ink}}">{{.VReplicas}}</text>
{{end}}{{end}}</svg>{{end}}
</div>
<table class="sources">
<thead><tr><th>source</th><th>vreplicas</th><th>pending</th><th>zoneSkew</th><th>allZones</th><th>roomZones</th><th>nodeSkew</th><th>moved</th><th class="placements">placements</th></tr></thead>
<tbody>
{{range .Sources}}<tr data-source="{{.Key}}"><td>{{.Key}}</td><td>{{.VReplicas}}</td><td{{if .Pending}} class="pending"{{end}}>{{.Pending}}</td><td>{{.ZoneSkew}}</td><td>{{.AllZones}}</td><td>{{.RoomZones}}</td><td>{{.NodeSkew}}</td><td>{{.Moved}}</td><td class="placements">{{.Placements}}{{if .HasWhy}}<details class="why" data-why="{{.Why}}"><summary>why</summary></details>{{end}}</td></tr>
{{end}}</tbody>
</table>
</details>
</section>
{{end}}`))
