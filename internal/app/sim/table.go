package sim

import (
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxGridSources is the most sources the table shows as columns of the pod
// grid; with more, each source's placements are listed instead.
const maxGridSources = 10

// WriteTable writes the result for people: per step, a grid of pods
// (grouped by zone and node) by sources, then each source's pending
// vreplicas, skews and moves, then the step's metrics. A step that leaves
// the cluster as the previous one did gets its header only. A legend of the
// columns ends it.
func WriteTable(w io.Writer, s *Scenario, res *Result) error {
	var b strings.Builder
	title := res.Scenario
	if title == "" {
		title = s.File
	}
	fmt.Fprintf(&b, "Scenario %q\n", title)
	for _, line := range wrap(oneLine(s.Description), 76) {
		fmt.Fprintf(&b, "  %s\n", line)
	}
	fmt.Fprintf(&b, "StatefulSet %s, %d vreplicas per pod\n", res.StatefulSet, res.Capacity)
	fmt.Fprintf(&b, "Configuration: %s\n", DescribeConfiguration(res.Configuration))
	b.WriteString(strings.ToUpper(describeNodes(s)[:1]) + describeNodes(s)[1:] + "\n")
	prev := int32(-1)
	if res.Initial != nil {
		b.WriteString("\n")
		writeStep(&b, -1, len(res.Steps), res.Initial, prev, false, zoneOrder(s))
		prev = res.Initial.Replicas
	}
	for i := range res.Steps {
		b.WriteString("\n")
		same := i > 0 && sameState(&res.Steps[i-1], &res.Steps[i]) || i == 0 && res.Initial != nil && sameState(res.Initial, &res.Steps[0])
		writeStep(&b, i, len(res.Steps), &res.Steps[i], prev, same, zoneOrder(s))
		prev = res.Steps[i].Replicas
	}
	b.WriteString(tableLegend)
	if hasResources(res) {
		b.WriteString(resourceLegend)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// DescribeConfiguration says where each ConfigMap came from, in one line:
// "config-scheduler (from the scenario), config-descheduler (defaults), ...".
func DescribeConfiguration(origins []ConfigOrigin) string {
	parts := make([]string, len(origins))
	for i, o := range origins {
		switch o.From {
		case FromDefault:
			parts[i] = o.ConfigMap + " (defaults)"
		case FromScenario:
			parts[i] = o.ConfigMap + " (from the scenario)"
		default:
			parts[i] = o.ConfigMap + " (from " + o.From + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// wrap breaks text into lines of at most width characters (longer words
// stay whole).
func wrap(text string, width int) []string {
	var lines []string
	var cur string
	for _, w := range strings.Fields(text) {
		switch {
		case cur == "":
			cur = w
		case utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(w) <= width:
			cur += " " + w
		default:
			lines = append(lines, cur)
			cur = w
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// oneLine folds a multi-line description.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// describeNodes lists the zones and their nodes: "zones zone-a (node-a-0,
// node-a-1), zone-b (...)".
func describeNodes(s *Scenario) string {
	byZone := map[string][]string{}
	var zones []string
	for _, n := range s.Cluster.nodeList() {
		if _, ok := byZone[n.Zone]; !ok {
			zones = append(zones, n.Zone)
		}
		byZone[n.Zone] = append(byZone[n.Zone], n.Name)
	}
	parts := make([]string, len(zones))
	for i, z := range zones {
		name := z
		if name == "" {
			name = "no zone"
		}
		parts[i] = fmt.Sprintf("%s (%s)", name, strings.Join(byZone[z], ", "))
	}
	return "nodes by zone: " + strings.Join(parts, ", ")
}

// zoneOrder ranks zones and nodes as the scenario lists them.
func zoneOrder(s *Scenario) map[string]int {
	order := map[string]int{}
	for i, z := range s.Cluster.zoneList() {
		order["zone/"+z] = i
	}
	for i, n := range s.Cluster.nodeList() {
		order["node/"+n.Name] = i
	}
	return order
}

// sortPods orders pods by zone, node (both in scenario order) and ordinal;
// pods without a node come last.
func sortPods(pods []PodState, order map[string]int) []PodState {
	out := append([]PodState(nil), pods...)
	rank := func(p PodState) (int, int) {
		if p.Node == "" {
			return 1 << 30, 1 << 30
		}
		z, ok := order["zone/"+p.Zone]
		if !ok {
			z = 1 << 29
		}
		return z, order["node/"+p.Node]
	}
	sort.SliceStable(out, func(i, j int) bool {
		zi, ni := rank(out[i])
		zj, nj := rank(out[j])
		if zi != zj {
			return zi < zj
		}
		if ni != nj {
			return ni < nj
		}
		return podOrdinal(out[i].Name) < podOrdinal(out[j].Name)
	})
	return out
}

func podOrdinal(name string) int {
	i := strings.LastIndexByte(name, '-')
	n, err := strconv.Atoi(name[i+1:])
	if err != nil {
		return -1
	}
	return n
}

// sourceLabels shortens source keys for column headers: the names alone
// when every source is in one namespace.
func sourceLabels(keys []string) []string {
	out := make([]string, len(keys))
	ns := ""
	same := true
	for i, k := range keys {
		n, _, _ := strings.Cut(k, "/")
		if i == 0 {
			ns = n
		} else if n != ns {
			same = false
		}
	}
	for i, k := range keys {
		if same {
			_, out[i], _ = strings.Cut(k, "/")
		} else {
			out[i] = k
		}
	}
	return out
}

// replicasText is "replicas 6", or "replicas 3 -> 6" when the step changed
// them (prev < 0: unknown).
func replicasText(prev, now int32) string {
	if prev >= 0 && prev != now {
		return fmt.Sprintf("replicas %d -> %d", prev, now)
	}
	return fmt.Sprintf("replicas %d", now)
}

// sameState reports whether two steps leave the cluster alike: the same
// replicas, pods, nodes, placements, pending vreplicas and metrics.
func sameState(a, b *StepResult) bool {
	return a.Replicas == b.Replicas && reflect.DeepEqual(a.Pods, b.Pods) && reflect.DeepEqual(a.Nodes, b.Nodes) &&
		reflect.DeepEqual(a.Placements, b.Placements) && reflect.DeepEqual(a.Pending, b.Pending) &&
		reflect.DeepEqual(a.Metrics, b.Metrics)
}

// writeStep writes one step; same says the cluster is as the previous step
// left it, and only the header is written.
func writeStep(b *strings.Builder, i, n int, st *StepResult, prev int32, same bool, order map[string]int) {
	if i < 0 {
		fmt.Fprintf(b, "Before step 1: %s\n", st.Name)
	} else {
		fmt.Fprintf(b, "Step %d/%d: %s\n", i+1, n, st.Name)
	}
	detail := []string{}
	if st.Action != st.Name {
		detail = append(detail, st.Action)
	}
	detail = append(detail, "clock "+st.Clock, replicasText(prev, st.Replicas))
	fmt.Fprintf(b, "  %s\n", strings.Join(detail, "; "))
	for _, note := range st.Notes {
		fmt.Fprintf(b, "  note: %s\n", note)
	}
	writeTraffic(b, st.Traffic)
	if same {
		b.WriteString("  placements, pods and metrics as in the previous step\n")
		return
	}
	keys := slices.Sorted(maps.Keys(st.Placements))
	grid := len(keys) <= maxGridSources
	writePods(b, st, keys, grid, order)
	writeSources(b, st, keys, grid)
	m := st.Metrics
	fmt.Fprintf(b, "  podsUsed %d, lowerBound %d, vreplicas %d, pending %d, unavailable %d, moved %d\n",
		m.PodsUsed, m.LowerBound, m.VReplicas, m.Pending, m.Unavailable, m.Moved)
}

// writePods writes the pods, grouped by zone and node, by sources when
// they fit as columns (grid), or with the vreplicas they hold.
func writePods(b *strings.Builder, st *StepResult, keys []string, grid bool, order map[string]int) {
	on := map[string]map[string]int32{} // pod -> source -> vreplicas
	for _, k := range keys {
		for _, p := range st.Placements[k] {
			if on[p.PodName] == nil {
				on[p.PodName] = map[string]int32{}
			}
			on[p.PodName][k] += p.VReplicas
		}
	}
	var t table
	header := []string{"ZONE", "NODE", "POD"}
	if grid {
		header = append(header, sourceLabels(keys)...)
	} else {
		header = append(header, "USED")
	}
	header = append(header, "FREE")
	names, measured := resourceColumns(st.Pods)
	free := len(header)
	header = append(append(header, resourceHeader(names, measured)...), "")
	t.row(header...)
	t.rightFrom(3, free)
	lastZone, lastNode := "\x00", "\x00"
	for _, p := range sortPods(st.Pods, order) {
		zone, node := p.Zone, p.Node
		if node == "" {
			zone, node = "-", "-"
		}
		zoneCell, nodeCell := zone, node
		if zone == lastZone {
			zoneCell = ""
			if node == lastNode {
				nodeCell = ""
			}
		}
		lastZone, lastNode = zone, node
		cells := []string{zoneCell, nodeCell, p.Name}
		if grid {
			for _, k := range keys {
				cells = append(cells, dotZero(on[p.Name][k]))
			}
		} else {
			cells = append(cells, dotZero(p.Used))
		}
		status := ""
		if p.Status != PodOK {
			status = p.Status
		}
		cells = append(append(cells, strconv.Itoa(int(p.Free))), resourceCells(p, names, measured)...)
		t.row(append(cells, status)...)
	}
	t.write(b, "  ")
}

// writeSources writes each source's metrics, and its placements when the
// pods' table has no column for it.
func writeSources(b *strings.Builder, st *StepResult, keys []string, grid bool) {
	if len(keys) == 0 {
		b.WriteString("  (no sources)\n")
		return
	}
	var s table
	sh := []string{"SOURCE", "VREPLICAS", "PENDING", "ZONESKEW", "ALLZONES", "ROOMZONES", "NODESKEW", "MOVED"}
	if !grid {
		sh = append(sh, "PLACEMENTS")
	}
	s.row(sh...)
	s.rightFrom(1, 8)
	for _, k := range keys {
		m := st.Metrics.Sources[k]
		cells := []string{k, strconv.Itoa(int(m.VReplicas)), strconv.Itoa(int(st.Pending[k])),
			strconv.Itoa(int(m.ZoneSkew)), strconv.Itoa(int(m.ZoneSkewAll)), strconv.Itoa(int(m.ZoneSkewRoom)),
			strconv.Itoa(int(m.NodeSkew)), strconv.Itoa(int(m.Moved))}
		if !grid {
			parts := make([]string, len(st.Placements[k]))
			for j, p := range st.Placements[k] {
				parts[j] = fmt.Sprintf("%s=%d", p.PodName, p.VReplicas)
			}
			cells = append(cells, strings.Join(parts, " "))
		}
		s.row(cells...)
	}
	s.write(b, "  ")
}

func dotZero(n int32) string {
	if n == 0 {
		return "."
	}
	return strconv.Itoa(int(n))
}

// table lays out rows of cells in columns two spaces apart.
type table struct {
	rows  [][]string
	right map[int]bool
}

func (t *table) row(cells ...string) { t.rows = append(t.rows, cells) }

// rightFrom right-aligns columns [from, to).
func (t *table) rightFrom(from, to int) {
	if t.right == nil {
		t.right = map[int]bool{}
	}
	for c := from; c < to; c++ {
		t.right[c] = true
	}
}

func (t *table) write(b *strings.Builder, indent string) {
	var widths []int
	for _, r := range t.rows {
		for c, cell := range r {
			if c >= len(widths) {
				widths = append(widths, 0)
			}
			widths[c] = max(widths[c], utf8.RuneCountInString(cell))
		}
	}
	for _, r := range t.rows {
		var line strings.Builder
		line.WriteString(indent)
		for c, cell := range r {
			if c > 0 {
				line.WriteString("  ")
			}
			pad := strings.Repeat(" ", widths[c]-utf8.RuneCountInString(cell))
			if t.right[c] {
				line.WriteString(pad + cell)
			} else {
				line.WriteString(cell + pad)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}
