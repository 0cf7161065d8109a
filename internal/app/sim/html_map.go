package sim

import (
	"fmt"
	"math"
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
	// ResX is where the pods' resources are written; 0 when no pod has
	// any.
	ResX   int
	LabelX [3]int // zone, node, pod label columns
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
	// Resources is the pod's use of each resource: "cpu 200m/1, memory
	// 950Mi/1Gi; measured cpu=900m".
	Resources string
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
	if w := m.addResources(pods); w > 0 {
		m.ResX = m.Width
		m.Width += w + labelPad
	}
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

// addResources writes each row's resources, and returns the widest text.
func (m *htmlMap) addResources(pods []PodState) int {
	widest := 0
	for i, p := range pods {
		if len(p.Resources) == 0 {
			continue
		}
		var parts []string
		for _, r := range p.Resources {
			if r.Capacity != "" {
				parts = append(parts, r.Name+" "+r.Cost+"/"+r.Capacity)
			}
		}
		text := strings.Join(parts, ", ")
		if mt := measuredText(p.Resources); mt != "-" {
			text = strings.TrimPrefix(text+"; measured "+mt, "; ")
		}
		m.Rows[i].Resources = text
		widest = max(widest, textWidth(text))
	}
	return widest
}
