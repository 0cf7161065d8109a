package sim

import (
	"fmt"
	"html/template"
	"strings"
	"time"
)

// trafficColors are the traffic chart's series colours: pods, pending,
// then each source's vreplicas and its signal (dashed, on its own scale).
var trafficColors = []string{"#1f5fa8", "#b3261e", "#2e7d32", "#8a5a00", "#6a1b9a", "#00838f"}

// trafficSVG charts a traffic step's polling intervals against the clock:
// pods, pending, and per source its vreplicas (on the count scale) and its
// signal (dashed, scaled to its own maximum, given in the legend). The
// intervals are those the result keeps (where something but the signal
// changed, and the last), so a line holds its value between them.
func trafficSVG(ticks []TrafficTick) template.HTML {
	if len(ticks) == 0 {
		return ""
	}
	type series struct {
		name, color string
		dashed      bool
		value       func(TrafficTick) float64
	}
	ss := []series{
		{"pods", trafficColors[0], false, func(t TrafficTick) float64 { return float64(t.Pods) }},
		{"pending", trafficColors[1], false, func(t TrafficTick) float64 { return float64(t.Pending) }},
	}
	for i, s := range ticks[0].Sources {
		c := trafficColors[2+i%(len(trafficColors)-2)]
		ss = append(ss,
			series{s.Source + " vreplicas", c, false, func(t TrafficTick) float64 { return float64(sourceAt(t, i).VReplicas) }},
			series{s.Source + " signal", c, true, func(t TrafficTick) float64 { return sourceAt(t, i).Signal }})
	}
	clocks := make([]time.Duration, len(ticks))
	for i, t := range ticks {
		clocks[i], _ = time.ParseDuration(t.Clock)
	}
	from, to := clocks[0], max(clocks[len(clocks)-1], clocks[0]+1)
	right, bottom := timelineW-12, timelineH-timelineBot
	x := func(i int) int {
		return timelineLeft + int(int64(clocks[i]-from)*int64(right-timelineLeft)/int64(to-from))
	}
	countMax := 1.0
	for _, s := range ss {
		for _, t := range ticks {
			if !s.dashed {
				countMax = max(countMax, s.value(t))
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="timeline traffic" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="signal, vreplicas, pods and pending over the traffic step">`, timelineW, timelineH+16*len(ss), timelineW, timelineH+16*len(ss))
	fmt.Fprintf(&b, `<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"/><text x="4" y="%d">%g</text><text x="4" y="%d">0</text>`,
		timelineLeft, bottom, right, bottom, timelineTop+4, countMax, bottom)
	fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text><text x="%d" y="%d" text-anchor="end">%s</text>`,
		timelineLeft, bottom+16, template.HTMLEscapeString(ticks[0].Clock), right, bottom+16, template.HTMLEscapeString(ticks[len(ticks)-1].Clock))
	for k, s := range ss {
		top := countMax
		if s.dashed {
			top = 1
			for _, t := range ticks {
				top = max(top, s.value(t))
			}
		}
		var pts []string
		prevY := -1
		for i, t := range ticks {
			y := bottom - int(s.value(t)*float64(bottom-timelineTop)/top)
			if prevY >= 0 { // hold the value until the next kept interval
				pts = append(pts, fmt.Sprintf("%d,%d", x(i), prevY))
			}
			pts = append(pts, fmt.Sprintf("%d,%d", x(i), y))
			prevY = y
		}
		dash, label := "", s.name
		if s.dashed {
			dash, label = ` stroke-dasharray="4 3"`, fmt.Sprintf("%s (top %.4g)", s.name, top)
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"><title>%s</title></polyline>`,
			s.color, dash, strings.Join(pts, " "), template.HTMLEscapeString(label))
		ly := timelineH + 16*k + 4
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/><text x="%d" y="%d">%s</text>`,
			timelineLeft, ly, timelineLeft+24, ly, s.color, dash, timelineLeft+30, ly+4, template.HTMLEscapeString(label))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // numbers and escaped names only
}

// sourceAt is the i-th source of a tick (zero when the tick has fewer:
// a source deleted during the step).
func sourceAt(t TrafficTick, i int) SignalTick {
	if i < len(t.Sources) {
		return t.Sources[i]
	}
	return SignalTick{}
}
